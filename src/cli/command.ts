/**
 * How a command runs: `action(fn)` gives commander a handler that builds the run's `CliRuntime`
 * from the global options, runs `fn`, prints a failure (exit code by exit-codes.ts) and always
 * closes what the run opened. SIGINT/SIGTERM close every open run gracefully, then exit.
 * runtime.ts (config loading, the output layer) is imported when a command runs, not when the
 * program is built: `--help` and `--version` load none of it.
 */
import type { Command } from 'commander';
import { CliError, ExitCode, exitCodeOf } from './exit-codes.js';
import { readGlobalOptions } from './global-options.js';
import type { CliRuntime } from './runtime.js';

/** A command's body: returns its exit code (default 0) or throws. */
export type CommandBody<Options> = (
  cli: CliRuntime,
  args: string[],
  options: Options,
  command: Command,
) => Promise<ExitCode | void>;

const open = new Set<CliRuntime>();

/** Wraps a command body for `command.action(...)`. */
export function action<Options = Record<string, unknown>>(
  body: CommandBody<Options>,
): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const options = args[args.length - 2] as Options;
    const positional = args
      .slice(0, -2)
      .flatMap((arg) =>
        arg === undefined ? [] : Array.isArray(arg) ? (arg as string[]) : [String(arg as string)],
      );
    const { CliRuntime } = await import('./runtime.js');
    const cli = new CliRuntime(
      readGlobalOptions(command.optsWithGlobals(), process.env, (key) =>
        command.getOptionValueSourceWithGlobals(key),
      ),
    );
    open.add(cli);
    try {
      const code = await body(cli, positional, options, command);
      process.exitCode = code ?? ExitCode.ok;
    } catch (error) {
      if (error instanceof CliError && error.code === 'ABORTED') return;
      cli.output.error(error);
      if (cli.options.verbose && error instanceof Error && error.stack !== undefined)
        cli.output.debug(error.stack);
      process.exitCode = exitCodeOf(error);
    } finally {
      await cli.close();
      open.delete(cli);
    }
  };
}

let installed = false;

/**
 * On SIGINT or SIGTERM: close every open run (its servers get their graceful shutdown), then exit
 * 130 or 143. A second signal exits at once.
 */
export function installSignalHandlers(): void {
  if (installed) return;
  installed = true;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    const code = signal === 'SIGINT' ? 130 : 143;
    if (stopping) process.exit(code);
    stopping = true;
    void Promise.allSettled([...open].map((cli) => cli.close())).then(() => process.exit(code));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
