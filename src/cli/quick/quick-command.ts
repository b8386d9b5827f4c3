/**
 * The command line's quick path. The commands a script runs most (`tools`, `inspect`, `call`) are
 * read here from the arguments by a small parser that knows exactly their options and the global
 * ones, with commander's rules, so that they run without loading commander and the program's
 * other commands (main.ts). Whatever it does not fully understand is left to the full program
 * (program.ts), which gives today's output: help and `--version`, any other command, an unknown,
 * grouped (`-vq`) or attached (`-cfile`) option, `--`, a value that looks like an option, a
 * missing or extra argument, an option value or `MCP_HOST_*` variable that commander would refuse.
 * quick-command.test.ts holds it to commander's reading of the same command lines.
 */
import { delimiter } from 'node:path';
import { parseDuration } from '../duration.js';
import {
  parseConcurrency,
  readGlobalOptions,
  type GlobalOptions,
  type OptionSource,
} from '../global-options.js';

/** A command line the quick path runs: the command, as commander would have given it. */
export interface QuickCommand {
  command: 'tools' | 'inspect' | 'call';
  /** The global options' values (`readGlobalOptions`, as `action()` reads them). */
  globals: GlobalOptions;
  /** The command's arguments, in order (none that was left out). */
  args: string[];
  /** The command's own options that were given, by commander's name (`maxResultBytes`). */
  options: Record<string, unknown>;
}

/** How an option's value is read; a parser that throws leaves the line to commander. */
type ValueParser = (value: string, previous: unknown) => unknown;

interface OptionSpec {
  /** Commander's attribute name. */
  key: string;
  /** Reads the value; absent for a switch. */
  parse?: ValueParser;
}

const text: ValueParser = (value) => value;

/** The global options (add-global-options.ts), by flag, and their variables. */
const GLOBAL_FLAGS: Record<string, OptionSpec> = {
  '-c': { key: 'config', parse: configFiles },
  '--config': { key: 'config', parse: configFiles },
  '--format': { key: 'format', parse: format },
  '--json': { key: 'json' },
  '--timeout': { key: 'timeout', parse: parseDuration },
  '--concurrency': { key: 'concurrency', parse: parseConcurrency },
  '-v': { key: 'verbose' },
  '--verbose': { key: 'verbose' },
  '-q': { key: 'quiet' },
  '--quiet': { key: 'quiet' },
  '--no-color': { key: 'color' },
};
const GLOBAL_ENV: ReadonlyArray<readonly [key: string, variable: string]> = [
  ['config', 'MCP_HOST_CONFIG'],
  ['format', 'MCP_HOST_FORMAT'],
  ['json', 'MCP_HOST_JSON'],
  ['timeout', 'MCP_HOST_TIMEOUT'],
  ['concurrency', 'MCP_HOST_CONCURRENCY'],
  ['verbose', 'MCP_HOST_VERBOSE'],
  ['quiet', 'MCP_HOST_QUIET'],
  ['color', 'MCP_HOST_NO_COLOR'],
];

interface CommandSpec {
  /** Arguments it must have, then how many more it may have. */
  required: number;
  optional: number;
  options: Record<string, OptionSpec>;
}

/** The commands of the quick path, as program.ts declares them. */
const COMMANDS: Record<QuickCommand['command'], CommandSpec> = {
  tools: { required: 0, optional: 1, options: { '--view': { key: 'view', parse: text } } },
  inspect: { required: 1, optional: 0, options: {} },
  call: {
    required: 1,
    optional: 1,
    options: {
      '--args': { key: 'args', parse: text },
      '--arg': {
        key: 'arg',
        parse: (value, previous) => [...((previous as string[]) ?? []), value],
      },
      '--raw': { key: 'raw' },
      '--view': { key: 'view', parse: text },
      '--max-result-bytes': { key: 'maxResultBytes', parse: byteCount },
    },
  },
};

/**
 * The quick command of a command line (`process.argv.slice(2)`) and environment, or undefined
 * when the full program must read it.
 */
export function parseQuickCommand(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): QuickCommand | undefined {
  try {
    return parse(argv, env);
  } catch {
    // A value commander would refuse: it says why.
    return undefined;
  }
}

function parse(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): QuickCommand | undefined {
  const globals: Record<string, unknown> = { color: true };
  const sources = new Map<string, string>([['color', 'default']]);
  let name: QuickCommand['command'] | undefined;
  const args: string[] = [];
  const options: Record<string, unknown> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return undefined;
    if (!isOption(arg)) {
      if (name !== undefined) args.push(arg);
      else if (Object.hasOwn(COMMANDS, arg)) name = arg as QuickCommand['command'];
      else return undefined;
      continue;
    }
    // Commander reads the program's options anywhere on the line, before the command's.
    const own = name === undefined ? undefined : COMMANDS[name].options;
    const [flag, attached] = splitAttached(arg);
    const spec = GLOBAL_FLAGS[flag] ?? own?.[flag];
    if (spec === undefined) return undefined;
    const target = Object.hasOwn(GLOBAL_FLAGS, flag) ? globals : options;
    if (spec.parse === undefined) {
      if (attached !== undefined) return undefined;
      target[spec.key] = flag !== '--no-color';
    } else {
      const value = attached ?? argv[++i];
      if (value === undefined || isOption(value)) return undefined;
      target[spec.key] = spec.parse(value, target[spec.key]);
    }
    if (target === globals) sources.set(spec.key, 'cli');
  }
  if (name === undefined) return undefined;
  const { required, optional } = COMMANDS[name];
  if (args.length < required || args.length > required + optional) return undefined;
  // A variable fills an option the command line did not give, through the same parser.
  for (const [key, variable] of GLOBAL_ENV) {
    const value = env[variable];
    if (value === undefined || sources.get(key) === 'cli') continue;
    const spec = GLOBAL_FLAGS[key === 'color' ? '--no-color' : `--${key}`]!;
    globals[key] = spec.parse === undefined ? key !== 'color' : spec.parse(value, globals[key]);
    sources.set(key, 'env');
  }
  const source: OptionSource = (key) => sources.get(key);
  return { command: name, globals: readGlobalOptions(globals, env, source), args, options };
}

/** What commander takes for an option: a `-` and more (a lone `-` is an argument). */
function isOption(arg: string): boolean {
  return arg.length > 1 && arg.startsWith('-');
}

/** `--name=value` as its flag and value; anything else as it is. */
function splitAttached(arg: string): [flag: string, value: string | undefined] {
  const at = arg.startsWith('--') ? arg.indexOf('=') : -1;
  return at < 0 ? [arg, undefined] : [arg.slice(0, at), arg.slice(at + 1)];
}

/** `--config`'s value: files split at the path delimiter, after those before. */
function configFiles(value: string, previous: unknown): string[] {
  return [
    ...((previous as string[] | undefined) ?? []),
    ...value.split(delimiter).filter((part) => part !== ''),
  ];
}

/** `--format`: one of its choices. */
function format(value: string): string {
  if (value !== 'table' && value !== 'json') throw new Error(`'${value}' is not a format`);
  return value;
}

/** `--max-result-bytes`: program.ts's byte count. */
function byteCount(value: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new Error(`'${value}' is not a byte count`);
  return n;
}
