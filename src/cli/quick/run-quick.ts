/**
 * Runs a command the quick path read (quick-command.ts) as its action in program.ts runs it, on
 * the same `runCommand`: commander and the other commands are not loaded.
 */
import { installSignalHandlers, runCommand } from '../command.js';
import type { CliRuntime } from '../runtime.js';
import type { ExitCode } from '../exit-codes.js';
import type { QuickCommand } from './quick-command.js';

/** Runs `quick`; sets `process.exitCode`. */
export async function runQuickCommand(quick: QuickCommand): Promise<void> {
  // Not the output streams: Output guards each when it first writes (after the servers spawn).
  installSignalHandlers();
  // The command's module loads while `runCommand` loads the runtime, not after it. A failure to
  // load is the body's to throw (and `runCommand`'s to report), never an unhandled rejection.
  const body = commandBody(quick);
  body.catch(() => {});
  await runCommand(quick.globals, async (cli) => (await body)(cli));
}

/** `quick`'s command, once its module is loaded. */
async function commandBody(quick: QuickCommand): Promise<(cli: CliRuntime) => Promise<ExitCode>> {
  const [first, second] = quick.args;
  switch (quick.command) {
    case 'tools': {
      const { tools } = await import('../commands/tools.js');
      return (cli) => tools(cli, first, quick.options);
    }
    case 'inspect': {
      const { inspect } = await import('../commands/tools.js');
      return (cli) => inspect(cli, first!);
    }
    case 'call': {
      const { call } = await import('../commands/call.js');
      return (cli) => call(cli, first!, second, quick.options);
    }
  }
}
