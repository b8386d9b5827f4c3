/**
 * How a command runs: `action(fn)` gives commander a handler that builds the run's `CliRuntime`
 * from the global options, runs `fn`, prints a failure (exit code by exit-codes.ts) and always
 * closes what the run opened (`runCommand`, which the quick path uses too). SIGINT/SIGTERM close
 * every open run gracefully, then exit.
 * runtime.ts (config loading, the output layer) is imported when a command runs, not when the
 * program is built: `--help` and `--version` load none of it.
 */
import type { Command } from 'commander';
import { CliError, ExitCode, exitCodeOf } from './exit-codes.js';
import { readGlobalOptions, type GlobalOptions } from './global-options.js';
import { processStream } from './output.js';
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
    const { command, options, positional, globals } = readAction<Options>(args);
    await runCommand(globals, (cli) => body(cli, positional, options, command));
  };
}

/** What commander hands an action, read: an action's arguments (`action`). */
export interface ActionInput<Options> {
  command: Command;
  /** The command's own options. */
  options: Options;
  /** Its arguments, in order (a variadic one spread, one not given left out). */
  positional: string[];
  /** The global options (`readGlobalOptions` of the command's options with its parents'). */
  globals: GlobalOptions;
}

/** Reads the arguments commander calls an action with: its arguments, options, command. */
export function readAction<Options>(args: readonly unknown[]): ActionInput<Options> {
  const command = args[args.length - 1] as Command;
  const options = args[args.length - 2] as Options;
  const positional = args
    .slice(0, -2)
    .flatMap((arg) =>
      arg === undefined ? [] : Array.isArray(arg) ? (arg as string[]) : [String(arg as string)],
    );
  const globals = readGlobalOptions(command.optsWithGlobals(), process.env, (key) =>
    command.getOptionValueSourceWithGlobals(key),
  );
  return { command, options, positional, globals };
}

/**
 * Runs one command on a `CliRuntime` made from `globals`: sets `process.exitCode` (the body's, or
 * by exit-codes.ts from what it threw, printed), and always closes what the run opened. Used by
 * `action` and by the quick path (quick/quick-command.ts), so both run a command alike.
 */
export async function runCommand(
  globals: GlobalOptions,
  body: (cli: CliRuntime) => Promise<ExitCode | void>,
): Promise<void> {
  const { CliRuntime } = await import('./runtime.js');
  const cli = new CliRuntime(globals);
  open.add(cli);
  try {
    const code = await body(cli);
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
}

/**
 * What the full program needs before any command runs: its output streams guarded
 * (`processStream`: commands there may write to them directly), and SIGINT/SIGTERM close every
 * open run (`installSignalHandlers`). The quick path installs the signal handlers only: its
 * commands write through `Output`, which guards each stream when it first uses it.
 */
export function installProcessHandlers(): void {
  processStream('stdout');
  processStream('stderr');
  installSignalHandlers();
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
