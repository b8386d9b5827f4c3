import { McpHostError } from '../../errors/mcp-host-error.js';
import { redact } from '../../errors/redact.js';

/** How an opening attempt ended, when it did not open. */
export type ConnectFailure =
  | { kind: 'error'; error: Error }
  | { kind: 'status'; status: number }
  | { kind: 'timeout' }
  | { kind: 'aborted'; reason: unknown }
  | { kind: 'closed' };

export interface ConnectContext {
  url: string;
  serverName: string | undefined;
  connectTimeoutMs: number;
}

/** The typed error `start()` throws for a failed attempt (the URL redacted). */
export function toConnectError(failure: ConnectFailure, context: ConnectContext): McpHostError {
  const url = redact(context.url);
  const { serverName } = context;
  const where = serverName === undefined ? '' : `server '${serverName}': `;
  switch (failure.kind) {
    case 'timeout':
      return new McpHostError(
        'CONNECT_TIMEOUT',
        `${where}could not connect to ${url} within ${context.connectTimeoutMs} ms (connectTimeoutMs)`,
        { serverName, details: { url, connectTimeoutMs: context.connectTimeoutMs } },
      );
    case 'aborted':
      return new McpHostError('ABORTED', `${where}start was cancelled by the caller`, {
        serverName,
        details: { url },
        cause: failure.reason,
      });
    case 'status':
      return new McpHostError(
        'CONNECT_FAILED',
        `${where}${url} refused the WebSocket upgrade with HTTP status ${failure.status}`,
        { serverName, details: { url, status: failure.status } },
      );
    case 'error': {
      const errno = (failure.error as { code?: unknown }).code;
      return new McpHostError(
        'CONNECT_FAILED',
        `${where}could not connect to ${url}: ${failure.error.message}`,
        {
          serverName,
          cause: failure.error,
          details: typeof errno === 'string' ? { url, errno } : { url },
        },
      );
    }
    case 'closed':
      return new McpHostError(
        'CONNECTION_CLOSED',
        `${where}the transport was closed while connecting to ${url}`,
        { serverName, details: { url } },
      );
  }
}
