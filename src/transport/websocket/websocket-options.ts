import type WebSocket from 'ws';
import { McpHostError } from '../../errors/mcp-host-error.js';
import type { Logger } from '../../internal/logger.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../jsonrpc/peer-options.js';

/** The WebSocket subprotocol offered and required: the server must select it. */
export const MCP_SUBPROTOCOL = 'mcp';

/** The defaults of `WebSocketTransportOptions`. */
export const DEFAULT_WEBSOCKET_OPTIONS = Object.freeze({
  /** Bound on opening the connection and its handshake: 10 s. */
  connectTimeoutMs: 10_000,
  /** Interval between keep-alive pings (a ping unanswered by the next one closes): 30 s. */
  keepAliveIntervalMs: 30_000,
  /** Largest incoming frame (one frame is one message): 16 MiB. */
  maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
  /** What the socket may hold unsent before `send` refuses: 64 MiB. */
  maxOutboundBytes: 64 * 1024 * 1024,
  /** Wait for the server's closing handshake before the socket is destroyed: 2 s. */
  closeGraceMs: 2_000,
});

export interface WebSocketTransportOptions {
  /** `ws:` or `wss:` URL of the server. Credentials and query tokens in it are redacted in errors. */
  url: string | URL;
  /**
   * Headers of the upgrade request (for example `Authorization`). Their values are treated as
   * secrets (registered with `addSecret` for the transport's life), except those of headers that
   * describe the request (`NON_SECRET_HEADERS`: Accept, User-Agent, …), trivial values and the
   * headers named in `publicHeaders`.
   */
  headers?: Readonly<Record<string, string>>;
  /**
   * Names of `headers` whose values are not secret and stay readable in errors and logs;
   * compared case-insensitively. Default: none.
   */
  publicHeaders?: readonly string[];
  /** Bound on connecting plus the WebSocket handshake (default 10 s); `CONNECT_TIMEOUT` after. */
  connectTimeoutMs?: number;
  /**
   * Ping the server this often (default 30 s); a ping still unanswered when the next one is due
   * closes the transport with `KEEPALIVE_TIMEOUT`. `0` turns keep-alive off.
   */
  keepAliveIntervalMs?: number;
  /**
   * Largest frame accepted (default 16 MiB), passed to `ws` as `maxPayload`. A larger frame cannot
   * be skipped: the connection is closed with 1009 and the transport with `MESSAGE_TOO_LARGE`.
   */
  maxMessageBytes?: number;
  /** `send` throws `OUTBOUND_BUFFER_FULL` while the socket holds more than this unsent (64 MiB). */
  maxOutboundBytes?: number;
  /** `close()`: wait this long for the server's closing handshake, then destroy (default 2 s). */
  closeGraceMs?: number;
  /** The server's configured name, used in errors and logs. */
  serverName?: string;
  logger?: Logger;
}

/** Counters of one WebSocket connection. */
export interface WebSocketStats {
  messagesReceived: number;
  messagesSent: number;
  /** Text frames that were not JSON, skipped. */
  junkFrames: number;
  /** Binary frames, skipped. */
  binaryFrames: number;
  /** Frames over `maxMessageBytes` (at most one: it ends the connection). */
  oversizedMessages: number;
}

/** The `ws` client options of a transport's socket. */
export function wsClientOptions(
  headers: Readonly<Record<string, string>> | undefined,
  maxMessageBytes: number,
  closeGraceMs: number,
): WebSocket.ClientOptions & { closeTimeout: number } {
  return {
    headers: { ...headers },
    maxPayload: maxMessageBytes,
    // No compression: a small frame cannot inflate into a large one, and no zlib per socket.
    perMessageDeflate: false,
    skipUTF8Validation: true,
    followRedirects: false,
    autoPong: true,
    // ws's own wait for the closing handshake (since 8.19; not yet in @types/ws).
    closeTimeout: closeGraceMs,
  };
}

/** A byte limit from the options: the default when absent, refused unless a positive number. */
export function byteLimit(
  value: number | undefined,
  fallback: number,
  serverName: string | undefined,
): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `expected a positive number of bytes, got ${value}`,
      {
        serverName,
      },
    );
  return value;
}
