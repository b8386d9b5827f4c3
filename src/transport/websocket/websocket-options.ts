import type { Logger } from '../../internal/logger.js';

/** The WebSocket subprotocol offered and required: the server must select it. */
export const MCP_SUBPROTOCOL = 'mcp';
/** Default bound on opening the connection and its handshake. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Default interval between keep-alive pings; a ping unanswered by the next tick closes. */
export const DEFAULT_KEEP_ALIVE_INTERVAL_MS = 30_000;
/** Default largest incoming frame (one frame is one message). */
export const DEFAULT_WS_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** Default bound on what the socket may hold unsent before `send` refuses. */
export const DEFAULT_WS_MAX_OUTBOUND_BYTES = 64 * 1024 * 1024;
/** Default wait for the server's closing handshake before the socket is destroyed. */
export const DEFAULT_WS_CLOSE_GRACE_MS = 2000;

export interface WebSocketTransportOptions {
  /** `ws:` or `wss:` URL of the server. Credentials and query tokens in it are redacted in errors. */
  url: string | URL;
  /**
   * Headers of the upgrade request (for example `Authorization`). Values of credential-looking
   * headers are registered as secrets (`addSecret`) for the transport's life.
   */
  headers?: Readonly<Record<string, string>>;
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
