/**
 * `mcp-host/gateway`: a host's servers as one MCP server. `createGateway({ host, view? })` gives a
 * `Gateway`; `serve(transport)` serves one client on it (over stdio: a `StdioServerTransport`
 * from `mcp-host/stdio`), in the legacy era for now. See docs/gateway.md.
 */
export {
  createGateway,
  DEFAULT_GATEWAY_OPTIONS,
  Gateway,
  type GatewayOptions,
} from './gateway/gateway.js';
