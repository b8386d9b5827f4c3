/** From a transport definition to the transport it describes. */
import { McpHostError } from '../errors/mcp-host-error.js';
import type { Logger } from '../internal/logger.js';
import type { Transport } from '../jsonrpc/transport.js';
import type {
  RemoteDefinition,
  StdioDefinition,
  TransportDefinition,
} from './transport-definition.js';

/** What `createTransport` gives every transport it builds. */
export interface CreateTransportOptions {
  /** The server's configured name, for errors and logs. */
  serverName?: string;
  logger?: Logger;
  /** Authorization for the HTTP transports (`http`, `sse`), such as an `OAuthProvider`. */
  auth?: TransportAuth;
}

/**
 * The HTTP transports' `AuthProvider`, by shape: named here so that describing transports imports
 * nothing of the HTTP stack (not even a type-only import, see src/barrel.test.ts).
 */
export interface TransportAuth {
  headers(request: {
    url: URL;
    method: string;
  }): Record<string, string> | Promise<Record<string, string>>;
  onUnauthorized?(challenge: {
    status: 401 | 403;
    wwwAuthenticate: string | undefined;
    url: URL;
    signal: AbortSignal;
  }): boolean | Promise<boolean>;
}

/**
 * Builds the transport a definition describes. The transport's module is loaded on first use
 * (`import()`), so describing servers loads neither `node:child_process` nor undici nor ws, and a
 * program that only reaches stdio servers never loads the HTTP stack. Throws `INVALID_ARGUMENT`
 * for a definition of an unknown type.
 */
export async function createTransport(
  definition: TransportDefinition,
  options: CreateTransportOptions = {},
): Promise<Transport> {
  const common = {
    ...(options.serverName === undefined ? {} : { serverName: options.serverName }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  };
  const auth = options.auth === undefined ? {} : { auth: options.auth };
  const type = (definition as { type?: unknown } | null)?.type;
  switch (type) {
    case 'stdio': {
      const { command, args, env, publicEnv, cwd } = definition as StdioDefinition;
      const { StdioTransport } = await import('./stdio/stdio-transport.js');
      return new StdioTransport({
        ...common,
        command,
        ...(args === undefined ? {} : { args }),
        ...(env === undefined ? {} : { env }),
        ...(publicEnv === undefined ? {} : { publicEnv }),
        ...(cwd === undefined ? {} : { cwd }),
      });
    }
    case 'http': {
      const { url, headers, publicHeaders } = definition as RemoteDefinition;
      const { StreamableHttpTransport } = await import('./http/streamable-http-transport.js');
      return new StreamableHttpTransport({
        ...common,
        ...auth,
        url,
        headers: headers ?? {},
        publicHeaders,
      });
    }
    case 'sse': {
      const { url, headers, publicHeaders } = definition as RemoteDefinition;
      const { LegacySseTransport } = await import('./http/legacy-sse-transport.js');
      return new LegacySseTransport({
        ...common,
        ...auth,
        url,
        headers: headers ?? {},
        publicHeaders,
      });
    }
    case 'websocket': {
      const { url, headers, publicHeaders } = definition as RemoteDefinition;
      const { WebSocketTransport } = await import('./websocket/websocket-transport.js');
      return new WebSocketTransport({ ...common, url, headers: headers ?? {}, publicHeaders });
    }
    default:
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `unknown transport type ${JSON.stringify(type) ?? 'undefined'} (expected stdio, http, sse or websocket)`,
        common.serverName === undefined ? {} : { serverName: common.serverName },
      );
  }
}
