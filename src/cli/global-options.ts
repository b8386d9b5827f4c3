/**
 * The global options, on the program so they are taken before or after the command, each also
 * read from an `MCP_HOST_*` environment variable (the command line wins).
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { delimiter } from 'node:path';
import { parseDuration } from './duration.js';
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
        .argParser((value: string) => {
          try {
            return parseDuration(value);
          } catch (error) {
            throw new InvalidArgumentError((error as Error).message);
          }
        }),
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

/** The global options of a parsed command (`cmd.optsWithGlobals()`), with defaults applied. */
export function readGlobalOptions(
  raw: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): GlobalOptions {
  const format: OutputFormat = raw.json === true || raw.format === 'json' ? 'json' : 'table';
  const noColorEnv = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  return {
    config: Array.isArray(raw.config) ? (raw.config as string[]) : [],
    format,
    timeoutMs: typeof raw.timeout === 'number' ? raw.timeout : DEFAULT_CLI_TIMEOUT_MS,
    concurrency: typeof raw.concurrency === 'number' ? raw.concurrency : DEFAULT_CLI_CONCURRENCY,
    verbose: raw.verbose === true,
    quiet: raw.quiet === true,
    color: raw.color !== false && !noColorEnv,
  };
}
