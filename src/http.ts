/**
 * The HTTP transports (Node only: they use undici): Streamable HTTP, and the legacy HTTP+SSE
 * transport of protocol 2024-11-05 that the client falls back to for servers that only speak it.
 */
export { StreamableHttpTransport } from './transport/http/streamable-http-transport.js';
export { LegacySseTransport } from './transport/http/legacy-sse-transport.js';
export { type LegacySseTransportOptions } from './transport/http/legacy-sse-options.js';
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
