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
  // The command's module loads while `runCommand` loads the runtime, not after it. A failure to
  // load is the body's to throw (and `runCommand`'s to report), never an unhandled rejection.
  const loading = quick.command === 'call' ? import('../commands/call.js') : undefined;
  const toolsLoading = quick.command === 'call' ? undefined : import('../commands/tools.js');
  loading?.catch(() => {});
  toolsLoading?.catch(() => {});
  const [first, second] = quick.args;
  await runCommand(quick.globals, async (cli) => {
    switch (quick.command) {
      case 'tools':
        return (await toolsLoading!).tools(cli, first, quick.options);
      case 'inspect':
        return (await toolsLoading!).inspect(cli, first!);
      case 'call':
        return (await loading!).call(cli, first!, second, quick.options);
    }
  });
}
