import type { StreamableHttpTransportOptions } from './http-options.js';

/**
 * Options of the legacy HTTP+SSE transport: those of the Streamable HTTP transport that apply.
 * `url` is the SSE URL (the one the server's GET stream lives at); `connectTimeoutMs` bounds the
 * whole of `start()`, from the TCP connect to the `endpoint` event; `requestTimeoutMs` bounds each
 * POST (the answers arrive on the GET stream, which has no deadline once open).
 */
export type LegacySseTransportOptions = Pick<
  StreamableHttpTransportOptions,
  | 'url'
  | 'serverName'
  | 'headers'
  | 'auth'
  | 'maxMessageBytes'
  | 'connectTimeoutMs'
  | 'headersTimeoutMs'
  | 'requestTimeoutMs'
  | 'proxy'
  | 'ca'
  | 'logger'
>;
