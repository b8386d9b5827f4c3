/**
 * Runs a command the quick path read (quick-command.ts) as its action in program.ts runs it, on
 * the same `runCommand`: commander and the other commands are not loaded.
 */
import { installSignalHandlers, runCommand } from '../command.js';
import type { QuickCommand } from './quick-command.js';

/** Runs `quick`; sets `process.exitCode`. */
export async function runQuickCommand(quick: QuickCommand): Promise<void> {
  // Not the output streams: Output guards each when it first writes (after the servers spawn).
  installSignalHandlers();
  const [first, second] = quick.args;
  await runCommand(quick.globals, async (cli) => {
    switch (quick.command) {
      case 'tools':
        return (await import('../commands/tools.js')).tools(cli, first, quick.options);
      case 'inspect':
        return (await import('../commands/tools.js')).inspect(cli, first!);
      case 'call':
        return (await import('../commands/call.js')).call(cli, first!, second, quick.options);
    }
  });
}
