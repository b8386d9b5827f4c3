/**
 * The HTTP transports (Node only: they use undici): Streamable HTTP, and the legacy HTTP+SSE
 * transport of protocol 2024-11-05 that the client falls back to for servers that only speak it.
 */
export { StreamableHttpTransport } from './transport/http/streamable-http-transport.js';
export {
  DEFAULT_HTTP_OPTIONS,
  type StreamableHttpTransportOptions,
} from './transport/http/http-options.js';
export {
  LegacySseTransport,
  type LegacySseTransportOptions,
} from './transport/http/legacy-sse-transport.js';
export {
  bearerToken,
  type AuthChallenge,
  type AuthProvider,
} from './transport/http/auth-provider.js';
