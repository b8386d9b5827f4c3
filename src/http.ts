/** The Streamable HTTP transport: MCP servers at an HTTP endpoint (Node only: uses undici). */
export { StreamableHttpTransport } from './transport/http/streamable-http-transport.js';
export {
  DEFAULT_CLOSE_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_HTTP_REQUEST_TIMEOUT_MS,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_RECONNECTS,
  DEFAULT_RETRY_MS,
  MAX_RETRY_MS,
  MIN_RETRY_MS,
  type StreamableHttpTransportOptions,
} from './transport/http/http-options.js';
export {
  bearerToken,
  type AuthChallenge,
  type AuthProvider,
} from './transport/http/auth-provider.js';
