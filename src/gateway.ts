/**
 * `mcp-host/gateway`: a host's servers as one MCP server. `createGateway({ host, view? })` gives a
 * `Gateway`; `serve(transport)` serves one client on it (over stdio: a `StdioServerTransport`
 * from `mcp-host/stdio`), `listen({ port? })` serves every client over Streamable HTTP at `/mcp`.
 * See docs/gateway.md.
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
  type GatewayListenOptions,
} from './gateway/http/gateway-listener.js';
