/** The WebSocket transport: MCP servers reached over `ws:`/`wss:` (Node only, uses `ws`). */
export { WebSocketTransport } from './transport/websocket/websocket-transport.js';
export {
  DEFAULT_WEBSOCKET_OPTIONS,
  MCP_SUBPROTOCOL,
  type WebSocketStats,
  type WebSocketTransportOptions,
} from './transport/websocket/websocket-options.js';
