/**
 * The global options' values (the options themselves are declared in program.ts): what every
 * command gets, read from a parsed command line and the `MCP_HOST_*` environment variables. No
 * commander here: the quick path (quick/quick-command.ts) reads the same values without it.
 */
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

/** `--concurrency`: a whole number, 1 or more. */
export function parseConcurrency(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`'${value}' is not a whole number of at least 1`);
  return n;
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
