/**
 * Which PostgreSQL server and database a connection string names, for messages (never the user's
 * password), and the one mapping of a driver failure to a typed `McpHostError` naming it.
 */
import { McpHostError } from '../errors/mcp-host-error.js';

/** Where a store's data lives, safe to print. */
export interface PostgresTarget {
  host: string;
  port: number;
  database: string;
  /** The passwords found in the connection string (to register with the redactor). */
  secrets: string[];
  /** `PostgreSQL state store '<host>:<port>/<database>'`. */
  where: string;
}

/**
 * Reads host, port and database from a `postgres://` / `postgresql://` URL or a libpq
 * `key=value` string (defaults: localhost, 5432, the user name or `postgres`). Throws
 * `INVALID_ARGUMENT` for something that is neither, without quoting it.
 */
export function parsePostgresTarget(connectionString: unknown): PostgresTarget {
  if (typeof connectionString !== 'string' || connectionString.trim() === '')
    throw new McpHostError(
      'INVALID_ARGUMENT',
      'PostgreSQL state store: connectionString must be a non-empty string',
    );
  const fields = new Map<string, string>();
  const secrets: string[] = [];
  if (/^postgres(?:ql)?:\/\//i.test(connectionString)) {
    let url: URL;
    try {
      url = new URL(connectionString);
    } catch {
      throw new McpHostError(
        'INVALID_ARGUMENT',
        'PostgreSQL state store: connectionString is not a valid postgres:// URL',
      );
    }
    const host = decoded(url.hostname).replace(/^\[(.*)\]$/, '$1'); // IPv6
    if (host !== '') fields.set('host', host);
    if (url.port !== '') fields.set('port', url.port);
    if (url.username !== '') fields.set('user', decoded(url.username));
    if (url.password !== '') secrets.push(decoded(url.password), url.password);
    const database = decoded(url.pathname.replace(/^\//, ''));
    if (database !== '') fields.set('dbname', database);
    for (const [name, value] of url.searchParams) {
      if (name === 'password') secrets.push(value);
      else if (['host', 'port', 'dbname', 'user'].includes(name)) fields.set(name, value);
    }
  } else if (/^\s*\w+\s*=/.test(connectionString)) {
    const pair = /(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)/g;
    for (const [, name, raw] of connectionString.matchAll(pair)) {
      const value = raw!.startsWith("'") ? raw!.slice(1, -1).replace(/\\(.)/g, '$1') : raw!;
      if (name === 'password') secrets.push(value);
      else fields.set(name!, value);
    }
  } else {
    throw new McpHostError(
      'INVALID_ARGUMENT',
      'PostgreSQL state store: connectionString must be a postgres:// URL or libpq key=value pairs',
    );
  }
  const host = fields.get('host') ?? 'localhost';
  const port = Number(fields.get('port') ?? 5432);
  const database = fields.get('dbname') ?? fields.get('user') ?? 'postgres';
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    host,
    port,
    database,
    secrets,
    where: `PostgreSQL state store '${shownHost}:${port}/${database}'`,
  };
}

/**
 * A failure of the driver or the server as a typed error: `STATE_IO_FAILED` naming the store, the
 * operation and the errno or SQLSTATE (an `McpHostError` is passed on as it is). The message is
 * redacted like every `McpHostError`'s, and the connection string is never part of it.
 */
export function toStoreError(
  target: PostgresTarget,
  operation: string,
  error: unknown,
): McpHostError {
  if (error instanceof McpHostError) return error;
  const code = (error as { code?: unknown } | undefined)?.code;
  const reason = error instanceof Error ? error.message : String(error);
  const isSqlState = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
  return new McpHostError('STATE_IO_FAILED', `${target.where}: ${operation} failed: ${reason}`, {
    cause: error,
    details: {
      host: target.host,
      port: target.port,
      database: target.database,
      operation,
      ...(typeof code === 'string' ? { [isSqlState ? 'sqlState' : 'errno']: code } : {}),
    },
  });
}

/** Percent-decoded text, or the text as written when it is not valid percent-encoding. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
