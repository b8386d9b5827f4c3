import type { Logger } from '../../internal/logger.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../jsonrpc/peer-options.js';
import type { AuthProvider } from './auth-provider.js';

/**
 * The defaults of `StreamableHttpTransportOptions`; the legacy HTTP+SSE transport uses the same
 * for the options it shares. Without `proxy`, the `HTTPS_PROXY` / `HTTP_PROXY` environment
 * variables are honoured (with `NO_PROXY`).
 */
export const DEFAULT_HTTP_OPTIONS = Object.freeze({
  /** Largest JSON body or SSE event accepted, in decompressed bytes: 16 MiB. */
  maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
  /** TCP/TLS connect deadline: 10 s. */
  connectTimeoutMs: 10_000,
  /** Deadline for the response headers of each request: 10 s. */
  headersTimeoutMs: 10_000,
  /** Total deadline of one POST exchange, its streamed body included: 5 min. */
  requestTimeoutMs: 300_000,
  /** Bound on the session `DELETE` sent by `close()`: 2 s. */
  closeTimeoutMs: 2_000,
  /** The optional GET stream for server-initiated messages is opened. */
  openGetStream: true,
  /** Reconnects in a row that bring no event before a dropped SSE stream is given up: 5. */
  maxReconnects: 5,
});

export interface StreamableHttpTransportOptions {
  /** The server's MCP endpoint. */
  url: string | URL;
  serverName?: string;
  /**
   * Extra headers on every request. Credentials belong in `auth`; values here are sent to the
   * endpoint's origin only, like everything else. Their values are treated as secrets (masked in
   * every error and log line while the transport is open), except those of headers that describe
   * the request (`NON_SECRET_HEADERS`: Accept, Content-Type, User-Agent, …), trivial values and
   * the headers named in `publicHeaders`.
   */
  headers?: Readonly<Record<string, string>>;
  /**
   * Names of `headers` whose values are not secret and stay readable in errors and logs (for
   * example `['X-Client-Name']`); compared case-insensitively. Default: none.
   */
  publicHeaders?: readonly string[];
  auth?: AuthProvider;
  /**
   * The `MCP-Protocol-Version` header value. The transport knows no MCP methods, so the layer
   * above sets it (here, or later with `setProtocolVersion`) once `initialize` has settled it;
   * until then the header is left out.
   */
  protocolVersion?: string;
  /** Largest JSON body or SSE event accepted, counted in decompressed bytes (default 16 MiB). */
  maxMessageBytes?: number;
  /** TCP/TLS connect deadline (default 10 s). */
  connectTimeoutMs?: number;
  /** Deadline for the response headers of each request (default 10 s). */
  headersTimeoutMs?: number;
  /** Total deadline of one POST exchange, its streamed body included (default 5 min). */
  requestTimeoutMs?: number;
  /** Bound on the session `DELETE` sent by `close()` (default 2 s). */
  closeTimeoutMs?: number;
  /**
   * Open the optional GET stream for server-initiated messages (default true). It is opened once
   * the session is in use: after the first POST carrying the session id is accepted.
   */
  openGetStream?: boolean;
  /**
   * The HTTP(S) proxy for this server's requests (`http://user:pass@host:port`). By default the
   * `HTTPS_PROXY` / `HTTP_PROXY` environment variables are honoured, with `NO_PROXY`; `false`
   * ignores them and connects directly.
   */
  proxy?: string | false;
  /**
   * Extra trusted certificates (PEM) for the server and the proxy, added to Node's own store
   * (which already includes `NODE_EXTRA_CA_CERTS`).
   */
  ca?: string | Buffer | readonly (string | Buffer)[];
  /** Reconnects in a row that bring no event before a dropped SSE stream is given up (default 5). */
  maxReconnects?: number;
  logger?: Logger;
}
