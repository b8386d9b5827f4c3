/**
 * A server's transport as plain data (what a config file says): the transport it describes is
 * built on demand by `createTransport` (create-transport.ts), and the definition gives the server
 * a stable identity (server-identity.ts). Platform-neutral: the Node-only transports are loaded
 * only when one is built.
 */
import { inspectSymbol, type InspectFn } from '../errors/error-json.js';
import { MASK, redact } from '../errors/redact.js';

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

/** True for a plain transport description (as opposed to a transport or a function making one). */
export function isTransportDefinition(value: unknown): value is TransportDefinition {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { type?: unknown }).type === 'string' &&
    typeof (value as { send?: unknown }).send !== 'function'
  );
}
