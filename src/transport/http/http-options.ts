import type { Logger } from '../../internal/logger.js';
import type { AuthProvider } from './auth-provider.js';

export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_HTTP_REQUEST_TIMEOUT_MS = 300_000;
export const DEFAULT_CLOSE_TIMEOUT_MS = 2_000;
export const DEFAULT_MAX_RECONNECTS = 5;
export const DEFAULT_RETRY_MS = 1_000;
export const MIN_RETRY_MS = 100;
export const MAX_RETRY_MS = 30_000;
/** Error bodies are read up to this many bytes; the error message shows at most 1 KiB of it. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
export const MAX_ERROR_PREVIEW_CHARS = 1024;
export const MAX_REDIRECTS = 5;

export interface StreamableHttpTransportOptions {
  /** The server's MCP endpoint. */
  url: string | URL;
  serverName?: string;
  /**
   * Extra headers on every request. Credentials belong in `auth`; values here are sent to the
   * endpoint's origin only, like everything else.
   */
  headers?: Readonly<Record<string, string>>;
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
