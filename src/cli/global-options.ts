/**
 * The global options, on the program so they are taken before or after the command, each also
 * read from an `MCP_HOST_*` environment variable (the command line wins).
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { delimiter } from 'node:path';
import { durationArgument } from './duration.js';
import type { OutputFormat } from './output.js';

/** What every command gets. */
export interface GlobalOptions {
  /** Explicit config files (`--config`, repeatable; `MCP_HOST_CONFIG` with the path delimiter). */
  config: string[];
  format: OutputFormat;
  /** Connect and request timeout. */
  timeoutMs: number;
  /** How many servers connect at once. */
  concurrency: number;
  verbose: boolean;
  quiet: boolean;
  color: boolean;
}

export const DEFAULT_CLI_TIMEOUT_MS = 30_000;
export const DEFAULT_CLI_CONCURRENCY = 8;

export function addGlobalOptions(program: Command): void {
  program
    .addOption(
      new Option('-c, --config <file>', 'a config file (repeatable; merged in order)')
        .env('MCP_HOST_CONFIG')
        .argParser((value: string, previous: string[] | undefined) => [
          ...(previous ?? []),
          ...value.split(delimiter).filter((part) => part !== ''),
        ]),
    )
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['table', 'json'])
        .env('MCP_HOST_FORMAT'),
    )
    .addOption(new Option('--json', 'same as --format json').env('MCP_HOST_JSON'))
    .addOption(
      new Option('--timeout <duration>', 'connect and request timeout, e.g. 3s, 500ms')
        .env('MCP_HOST_TIMEOUT')
        .argParser(durationArgument),
    )
    .addOption(
      new Option(
        '--concurrency <n>',
        `servers connecting at once (default ${DEFAULT_CLI_CONCURRENCY})`,
      )
        .env('MCP_HOST_CONCURRENCY')
        .argParser((value: string) => {
          const n = Number(value);
          if (!Number.isInteger(n) || n < 1)
            throw new InvalidArgumentError(`'${value}' is not a whole number of at least 1`);
          return n;
        }),
    )
    .addOption(new Option('-v, --verbose', 'more detail on stderr').env('MCP_HOST_VERBOSE'))
    .addOption(new Option('-q, --quiet', 'no notices or progress on stderr').env('MCP_HOST_QUIET'))
    .addOption(new Option('--no-color', 'no colours (also NO_COLOR)').env('MCP_HOST_NO_COLOR'));
}

/**
 * Whether an `MCP_HOST_*` switch variable turns its option on: set, and not empty, `0`, `false`,
 * `no` or `off` (any case).
 */
export function envFlag(value: string | undefined): boolean {
  return value !== undefined && !/^\s*(?:|0|false|no|off)\s*$/i.test(value);
}

/** Where commander took an option's value from (`cli`, `env`, `default`, …). */
export type OptionSource = (key: string) => string | undefined;

/**
 * The global options of a parsed command (`cmd.optsWithGlobals()`), with defaults applied. A
 * switch commander took from its variable (`source(key) === 'env'`) is read by `envFlag`:
 * commander turns a switch on for any value, `MCP_HOST_JSON=0` included.
 */
export function readGlobalOptions(
  raw: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>> = process.env,
  source: OptionSource = () => undefined,
): GlobalOptions {
  const flag = (key: string, variable: string): boolean =>
    source(key) === 'env' ? envFlag(env[variable]) : raw[key] === true;
  const json = flag('json', 'MCP_HOST_JSON');
  const format: OutputFormat = json || raw.format === 'json' ? 'json' : 'table';
  const noColorEnv = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  const noColor = source('color') === 'env' ? envFlag(env.MCP_HOST_NO_COLOR) : raw.color === false;
  return {
    config: Array.isArray(raw.config) ? (raw.config as string[]) : [],
    format,
    timeoutMs: typeof raw.timeout === 'number' ? raw.timeout : DEFAULT_CLI_TIMEOUT_MS,
    concurrency: typeof raw.concurrency === 'number' ? raw.concurrency : DEFAULT_CLI_CONCURRENCY,
    verbose: flag('verbose', 'MCP_HOST_VERBOSE'),
    quiet: flag('quiet', 'MCP_HOST_QUIET'),
    color: !noColor && !noColorEnv,
  };
}
