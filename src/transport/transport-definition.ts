/**
 * A server's transport as plain data (what a config file says): the transport it describes is
 * built on demand by `createTransport` (create-transport.ts), and the definition gives the server
 * a stable identity, the key under which state about it is remembered (its protocol era, its tool
 * pins). Platform-neutral: the Node-only transports are loaded only when one is built.
 */
import { McpHostError } from '../errors/mcp-host-error.js';
import { inspectSymbol, type InspectFn } from '../errors/error-json.js';
import { MASK, redact } from '../errors/redact.js';
import { canonicalJson } from '../state/canonical-json.js';
import { sha256Hex } from '../state/sha256.js';

/** A local server: a command run as a child process, spoken to over stdin and stdout. */
export interface StdioDefinition {
  type: 'stdio';
  command: string;
  args?: readonly string[];
  /** Set on top of the inherited allow-list of variables (see `mcp-host/stdio`); secrets. */
  env?: Record<string, string>;
  /** Names of `env` variables whose values are not secret (see `StdioTransportOptions`). */
  publicEnv?: readonly string[];
  cwd?: string;
}

/** A remote server: Streamable HTTP (`http`), legacy HTTP+SSE (`sse`) or WebSocket. */
export interface RemoteDefinition {
  type: 'http' | 'sse' | 'websocket';
  url: string;
  /** Sent with every request (the WebSocket upgrade); their values are secrets. */
  headers?: Record<string, string>;
  /** Names of `headers` whose values are not secret (see `StreamableHttpTransportOptions`). */
  publicHeaders?: readonly string[];
}

/** How a server is reached, as configured. */
export type TransportDefinition = StdioDefinition | RemoteDefinition;

/**
 * The same definition, whose `JSON.stringify` and `util.inspect` show every `env` and header value
 * masked, and the command's arguments and the URL through the redactor: what a config resolves to
 * can then be logged or dumped without showing a credential. Reading its fields (as
 * `createTransport` does) still gives the real values; a spread copy is a plain definition again.
 */
export function maskedDefinition<T extends TransportDefinition>(definition: T): T {
  const masked = { ...definition };
  const shown = (): Record<string, unknown> => maskValues(masked);
  Object.defineProperties(masked, {
    toJSON: { value: shown, enumerable: false },
    [inspectSymbol]: {
      value: (_depth: number, options: object, inspect: InspectFn) => inspect(shown(), options),
      enumerable: false,
    },
  });
  return masked;
}

function maskValues(definition: TransportDefinition): Record<string, unknown> {
  const maskAll = (values: Record<string, string> | undefined) =>
    values === undefined
      ? undefined
      : Object.fromEntries(Object.keys(values).map((key) => [key, MASK]));
  if (definition.type === 'stdio') {
    const { args, env, ...rest } = definition;
    return {
      ...rest,
      ...(args === undefined ? {} : { args: args.map((arg) => redact(arg)) }),
      ...(env === undefined ? {} : { env: maskAll(env) }),
    };
  }
  const { headers, url, ...rest } = definition;
  return {
    ...rest,
    url: redact(url),
    ...(headers === undefined ? {} : { headers: maskAll(headers) }),
  };
}

/** Who a configured server is, for state keys and for people. */
export interface ServerIdentity {
  /** The configured name, as given. */
  readonly name: string;
  /**
   * `<name>:<fingerprint>`, the state key. The fingerprint is the first 16 hex digits (64 bits)
   * of the SHA-256 of the canonical JSON (RFC 8785) of the whole transport definition, secrets
   * included: the same definition gives the same key whatever the order of its members, of `env`
   * or of `headers`, and changing anything (the command, an argument, a URL, a token) gives a new
   * key, so state remembered about one server is never applied to another. Nothing but the name
   * can be read from it. It is meant for local state, not for publishing: a low-entropy secret
   * could be guessed from it by someone who knows the rest of the definition.
   */
  readonly key: string;
  /**
   * A short description for logs and messages, with no secrets: `stdio:<command>[:<argument>]`
   * (the basename of the command and of its first argument that is not a flag, such as
   * `stdio:python:server.py` or `stdio:npx:server-filesystem`), or `<type>:<url>` (such as
   * `http:https://host/mcp`) with URL user info and credential-looking query parameters masked.
   * Environment variables, headers and the working directory never appear; everything shown passes
   * through the process-wide redactor, so registered secrets and well-known token formats are
   * masked too.
   */
  readonly display: string;
}

/** Hex digits of the SHA-256 kept in the key. */
const FINGERPRINT_HEX_DIGITS = 16;

/**
 * The identity of the server configured as `name` with this transport. Throws `INVALID_ARGUMENT`
 * for an empty name, an unknown transport type, or a definition that is not JSON data.
 */
export async function serverIdentity(
  name: string,
  transport: TransportDefinition,
): Promise<ServerIdentity> {
  if (typeof name !== 'string' || name === '')
    throw new McpHostError(
      'INVALID_ARGUMENT',
      'serverIdentity: the name must be a non-empty string',
    );
  const display = describeTransport(name, transport);
  const fingerprint = (await sha256Hex(canonicalJson(transport))).slice(0, FINGERPRINT_HEX_DIGITS);
  return { name, key: `${name}:${fingerprint}`, display };
}

function describeTransport(name: string, transport: TransportDefinition): string {
  const type = (transport as { type?: unknown } | null)?.type;
  switch (type) {
    case 'stdio': {
      const { command, args = [] } = transport as StdioDefinition;
      const parts = ['stdio', basename(String(command))];
      const first = args.find((arg) => typeof arg === 'string' && !arg.startsWith('-'));
      if (first !== undefined) parts.push(basename(first));
      return redact(parts.join(':'));
    }
    case 'http':
    case 'sse':
    case 'websocket':
      return redact(`${type}:${String((transport as { url: unknown }).url)}`);
    default:
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `serverIdentity: unknown transport type ${JSON.stringify(type) ?? 'undefined'}`,
        { serverName: name },
      );
  }
}

/** The last segment of a POSIX or Windows path (a trailing separator ignored). */
function basename(path: string): string {
  const segments = path.split(/[\\/]+/).filter((segment) => segment !== '');
  return segments.at(-1) ?? path;
}

/** True for a plain transport description (as opposed to a transport or a function making one). */
export function isTransportDefinition(value: unknown): value is TransportDefinition {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { type?: unknown }).type === 'string' &&
    typeof (value as { send?: unknown }).send !== 'function'
  );
}
