/**
 * Usage errors that commander finds while parsing (an unknown command or option, a missing
 * argument or command, an invalid option value), in JSON mode: commander's own text is held back
 * (`jsonUsageErrors`) and the error becomes the one line `{"error":{...}}` every other failure
 * prints (`usageErrorLine`), with the usage exit code.
 */
import type { Command, CommanderError } from 'commander';
import { errorJsonOf, usageError } from './exit-codes.js';
import { envFlag, readGlobalOptions } from './global-options.js';

/**
 * Whether errors are to be JSON, judged while parsing may have stopped part-way: the program's
 * options parsed so far, else `--json` or `--format json` anywhere on the command line before
 * `--` (an option after the one that failed is never parsed), else `MCP_HOST_FORMAT=json` or
 * `MCP_HOST_JSON` set to something other than `0`, `false`, `no` or `off` (`envFlag`).
 */
export function wantsJsonErrors(
  program: Command,
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  const source = (key: string) => program.getOptionValueSource(key);
  if (readGlobalOptions(program.opts(), env, source).format === 'json') return true;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') break;
    if (arg === '--json' || arg === '--format=json') return true;
    if (arg === '--format' && argv[i + 1] === 'json') return true;
  }
  return env.MCP_HOST_FORMAT === 'json' || envFlag(env.MCP_HOST_JSON);
}

/**
 * The JSON error line of a parse error (`INVALID_ARGUMENT`, no server): commander's message
 * without its `error: ` prefix, its lines joined (`unknown command 'servr' (Did you mean
 * servers?)`); for a command group given no command, which commands it takes.
 */
export function usageErrorLine(
  error: CommanderError,
  program: Command,
  argv: readonly string[],
): string {
  const message =
    error.code === 'commander.help'
      ? missingCommand(program, argv)
      : error.message
          .replace(/^error: /, '')
          .split('\n')
          .filter((line) => line.trim() !== '')
          .join(' ');
  return `${JSON.stringify({ error: errorJsonOf(usageError(message)) })}\n`;
}

/** `missing command: mcp-host config takes validate, show, import, print`. */
function missingCommand(program: Command, argv: readonly string[]): string {
  const path = [program];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg.startsWith('-')) {
      if (!arg.includes('=') && takesValue(path, arg)) i++;
      continue;
    }
    const next = path[path.length - 1]!.commands.find(
      (command) => command.name() === arg || command.aliases().includes(arg),
    );
    if (next === undefined) break;
    path.push(next);
  }
  const command = path[path.length - 1]!;
  const names = command.commands
    .map((sub) => sub.name())
    .filter((name) => name !== 'help' && !name.startsWith('__'));
  const shown = path.map((c) => c.name()).join(' ');
  return `missing command: ${shown} takes ${names.join(', ')} (see ${shown} --help)`;
}

/** Whether `flag` is an option, of a command on the path so far, that takes a value. */
function takesValue(path: readonly Command[], flag: string): boolean {
  for (const command of path)
    for (const option of command.options)
      if (option.long === flag || option.short === flag) return option.required || option.optional;
  return false;
}
