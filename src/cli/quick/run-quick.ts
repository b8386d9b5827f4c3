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
  // The command's module loads alongside the runtime's (runCommand imports it), not after it:
  // loading a module waits on reading its files, and the two waits overlap.
  const tools = quick.command === 'call' ? undefined : import('../commands/tools.js');
  const call = quick.command === 'call' ? import('../commands/call.js') : undefined;
  // Awaited in the body; a failure before it (the runtime not loading) is reported from there.
  void (tools ?? call)?.catch(() => {});
  await runCommand(quick.globals, async (cli) => {
    switch (quick.command) {
      case 'tools':
        return (await tools!).tools(cli, first, quick.options);
      case 'inspect':
        return (await tools!).inspect(cli, first!);
      case 'call':
        return (await call!).call(cli, first!, second, quick.options);
    }
  });
}
