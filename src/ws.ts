/** The WebSocket transport: MCP servers reached over `ws:`/`wss:` (Node only, uses `ws`). */
export { WebSocketTransport } from './transport/websocket/websocket-transport.js';
export {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_INTERVAL_MS,
  DEFAULT_WS_CLOSE_GRACE_MS,
  DEFAULT_WS_MAX_MESSAGE_BYTES,
  DEFAULT_WS_MAX_OUTBOUND_BYTES,
  MCP_SUBPROTOCOL,
  type WebSocketStats,
  type WebSocketTransportOptions,
} from './transport/websocket/websocket-options.js';
