import type { HttpSession } from './session.js';

type Headers = Readonly<Record<string, string>>;

/** What undici's fetch used to ask for. */
export function acceptEncodingOf(url: URL): string {
  return url.protocol === 'https:' ? 'br, gzip, deflate' : 'gzip, deflate';
}

/**
 * The request headers of the Streamable HTTP transport. A POST's, lowest precedence first:
 * `Accept-Encoding` (as fetch sent it), the configured `headers`, this message's extra headers,
 * the auth provider's, then the transport's own (content type, accept, session id, protocol
 * version). With neither extra nor auth headers, one cached object serves every POST until the
 * session or version changes (`invalidate()`).
 */
export class StreamableHeaders {
  readonly #acceptEncoding: string;
  readonly #configured: Headers | undefined;
  readonly #session: HttpSession;
  #protocolVersion: string | undefined;
  /**
   * The headers of a POST without per-message or auth headers (sent as this very object), and the
   * part of them that comes after the auth provider's; undefined when out of date.
   */
  #post: Headers | undefined;
  #postTail: Headers | undefined;

  constructor(
    url: URL,
    configured: Headers | undefined,
    session: HttpSession,
    protocolVersion: string | undefined,
  ) {
    this.#acceptEncoding = acceptEncodingOf(url);
    this.#configured = configured;
    this.#session = session;
    this.#protocolVersion = protocolVersion;
  }

  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  set protocolVersion(version: string | undefined) {
    this.#protocolVersion = version;
    this.#post = undefined;
  }

  /** The session changed: the cached POST headers are out of date. */
  invalidate(): void {
    this.#post = undefined;
  }

  post(extra: Headers | undefined, auth: Headers | undefined): Headers {
    if (this.#post === undefined) {
      const tail: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      };
      const sessionId = this.#session.id;
      if (sessionId !== undefined) tail['mcp-session-id'] = sessionId;
      if (this.#protocolVersion !== undefined) tail['mcp-protocol-version'] = this.#protocolVersion;
      this.#postTail = tail;
      this.#post = { 'accept-encoding': this.#acceptEncoding, ...this.#configured, ...tail };
    }
    if (extra === undefined && auth === undefined) return this.#post;
    return {
      'accept-encoding': this.#acceptEncoding,
      ...this.#configured,
      ...extra,
      ...auth,
      ...this.#postTail,
    };
  }

  /** The headers of a GET or DELETE (rare: built each time). */
  other(
    method: 'GET' | 'DELETE',
    auth: Headers | undefined,
    lastEventId: string | undefined,
  ): Record<string, string> {
    const headers: Record<string, string> = {
      'accept-encoding': this.#acceptEncoding,
      ...this.#configured,
      ...auth,
    };
    if (method === 'GET') headers.accept = 'text/event-stream';
    const sessionId = this.#session.id;
    if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
    if (this.#protocolVersion !== undefined)
      headers['mcp-protocol-version'] = this.#protocolVersion;
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    return headers;
  }
}
