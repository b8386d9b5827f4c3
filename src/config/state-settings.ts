/**
 * Where state is kept, resolved: what the config's `state:` section (model.ts, `StateConfig`)
 * says, a state file's path made absolute (against the folder of the config file that wrote it),
 * and the connection string of `state.postgres` expanded from the environment (`${VAR}`;
 * an input reference is refused: a store is opened without asking anyone) and checked. The
 * connection string holds a password: it and its password are registered with the redactor while
 * the settings are in use (masked in every error and log line), and no message quotes them. `openHost` (src/cli/runtime.ts) opens the store they
 * name.
 */
import { homedir } from 'node:os';
import { dirname, isAbsolute, resolve as resolvePath } from 'node:path';
import { McpHostError } from '../errors/mcp-host-error.js';
import { addSecret } from '../errors/redact.js';
import { isRegistrableSecret } from '../errors/secret-values.js';
import { toDisposable, type Disposable } from '../internal/disposable.js';
import { formatKeyPath } from './diagnostics.js';
import { parseTemplate } from './expand/template.js';
import { urlCredentials } from './expand/secrets.js';
import type { McpConfig, SourceLocation } from './model.js';

/**
 * The state settings (`resolveStateSettings`): none named (OAuth tokens in the default state
 * file, pins and eras in memory), a state file for all of it, or a PostgreSQL store.
 */
export type StateSettings =
  | { readonly store: 'default' }
  | {
      readonly store: 'file';
      /** The state file, absolute. */
      readonly path: string;
    }
  | {
      readonly store: 'postgres';
      /** The expanded connection string: a secret, never print it. */
      readonly connectionString: string;
      /** The schema of its tables; undefined: the store's default (`mcp_host`). */
      readonly schema: string | undefined;
      /** Where it was configured (`file: state.postgres.url`), for messages. */
      readonly where: string;
      /** Ends the redactor's registration of its secrets (idempotent). */
      readonly secrets: Disposable;
    };

/** Options of `resolveStateSettings`. */
export interface StateSettingsOptions {
  /** The environment `${VAR}` is read from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** What `~` becomes (default `os.homedir()`). */
  homeDir?: string;
}

/**
 * The state settings of `config` (its `state:` section; none: the state file). Throws
 * `CONFIG_VARIABLE_UNSET` naming the variables, file and key when the connection string needs a
 * variable that is not set, and `CONFIG_INVALID` naming file and key when it is not a template
 * of the grammar, asks for an input, or is not a `postgres://` or `postgresql://` URL; never
 * with the value.
 */
export function resolveStateSettings(
  config: Pick<McpConfig, 'state'>,
  options: StateSettingsOptions = {},
): StateSettings {
  const section = config.state;
  if (section?.file !== undefined) {
    const home = options.homeDir ?? homedir();
    const written = section.file;
    const expanded = /^~(?:[/\\]|$)/.test(written) ? home + written.slice(1) : written;
    const file = section.source.file;
    const base = isAbsolute(file) ? dirname(file) : process.cwd();
    return Object.freeze({ store: 'file', path: resolvePath(base, expanded) });
  }
  const postgres = section?.postgres;
  if (section === undefined || postgres === undefined) return Object.freeze({ store: 'default' });
  const where = describe(section.source, ['postgres', 'url']);
  const env = options.env ?? process.env;
  let parts: ReturnType<typeof parseTemplate>;
  try {
    parts = parseTemplate(postgres.url);
  } catch (error) {
    throw new McpHostError('CONFIG_INVALID', `${where}: ${(error as McpHostError).message}`, {
      details: { file: section.source.file, path: 'state.postgres.url' },
    });
  }
  const unset: string[] = [];
  let url = '';
  for (const part of parts) {
    if (part.kind === 'text') url += part.text;
    else if (part.kind === 'input')
      throw new McpHostError(
        'CONFIG_INVALID',
        `${where}: \${input:${part.id}} cannot be used here (the store is opened without asking anyone): use an environment variable`,
        { details: { file: section.source.file, path: 'state.postgres.url' } },
      );
    else {
      const value = env[part.name];
      const useDefault =
        part.fallback !== undefined &&
        (value === undefined || (part.fallback.ifEmpty && value === ''));
      if (useDefault) url += part.fallback!.text;
      else if (value === undefined) unset.push(part.name);
      else url += value;
    }
  }
  if (unset.length > 0)
    throw new McpHostError(
      'CONFIG_VARIABLE_UNSET',
      `${where}: variable ${unset.join(', ')} is not set (and has no default)`,
      { details: { variables: unset, file: section.source.file, path: 'state.postgres.url' } },
    );
  const secrets = registerSecrets([url, ...urlCredentials(url, { userName: false })]);
  if (!isPostgresUrl(url)) {
    secrets.dispose();
    throw new McpHostError(
      'CONFIG_INVALID',
      `${where}: expected a postgres:// or postgresql:// connection URL`,
      { details: { file: section.source.file, path: 'state.postgres.url' } },
    );
  }
  return Object.freeze({
    store: 'postgres',
    connectionString: url,
    schema: postgres.schema,
    where,
    secrets,
  });
}

/** `file:line:column: state.postgres.url` (as far as known). */
function describe(source: SourceLocation, path: readonly string[]): string {
  const line = source.line === undefined ? '' : `:${source.line}:${source.column ?? 1}`;
  return `${source.file}${line}: ${formatKeyPath([...source.path, ...path])}`;
}

function isPostgresUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && url.host !== '';
  } catch {
    return false;
  }
}

/**
 * Registers each value that can be a secret (not the user name: `postgres` would mask every
 * mention of the word) with the redactor; one Disposable ends them all (idempotent).
 */
function registerSecrets(values: readonly string[]): Disposable {
  const held = [...new Set(values)].filter(isRegistrableSecret).map(addSecret);
  return toDisposable(() => {
    for (const registration of held) registration.dispose();
  });
}
