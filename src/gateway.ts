/**
 * `mcp-host/gateway`: a host's servers as one MCP server. `createGateway({ host, view? })` gives a
 * `Gateway`; `serve(transport)` serves one client on it (over stdio: a `StdioServerTransport`
 * from `mcp-host/stdio`), in both protocol eras (legacy and 2026-07-28); `listen({ port? })`
 * serves every client over Streamable HTTP at `/mcp`. A `ServerInputBridge` carries what legacy
 * servers ask to the client whose call it is. See docs/gateway.md.
 */
export {
  createGateway,
  DEFAULT_GATEWAY_OPTIONS,
  Gateway,
  type GatewayOptions,
} from './gateway/gateway.js';
export {
  DEFAULT_GATEWAY_LISTEN_OPTIONS,
  GatewayListener,
  type GatewayAuth,
  type GatewayClientOptions,
  type GatewayListenOptions,
} from './gateway/http/gateway-listener.js';
export {
  DEFAULT_PENDING_INPUT_OPTIONS,
  type PendingInputOptions,
} from './gateway/pending-input.js';
export { type PerClientOptions } from './gateway/per-client-hosts.js';
export {
  createServerInputBridge,
  ServerInputBridge,
  type ServerInputBridgeOptions,
} from './gateway/server-input-bridge.js';
