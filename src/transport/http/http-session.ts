import { addSecret } from '../../errors/redact.js';
import type { Disposable } from '../../internal/disposable.js';
import type { HttpResponse } from './http-response.js';

type Headers = Readonly<Record<string, string>>;

/** Visible ASCII (0x21..0x7E), as the spec requires of a session id. */
const SESSION_ID_PATTERN = /^[\x21-\x7e]+$/;

/**
 * What makes `id` unusable as a session id (empty, or a character outside visible ASCII, named by
 * code point and position: never the id itself, a credential), or undefined when it is usable.
 */
export function sessionIdFault(id: string): string | undefined {
  if (SESSION_ID_PATTERN.test(id)) return undefined;
  if (id === '') return 'is empty';
  const chars = [...id];
  const at = chars.findIndex((char) => !SESSION_ID_PATTERN.test(char));
  const code = chars[at]?.codePointAt(0) ?? 0;
  const name = code === 0x20 ? ' (a space)' : code === 0x09 ? ' (a tab)' : '';
  const hex = code.toString(16).toUpperCase().padStart(4, '0');
  return `has U+${hex}${name} at character ${at + 1} of ${chars.length}`;
}

/**
 * The Streamable HTTP session as every request carries it: the session id the server handed out
 * (kept as a secret, out of logs, until dropped), the protocol version, and the request headers
 * built from them.
 *
 * A POST's headers, lowest precedence first: `Accept-Encoding` (as fetch sent it), the configured
 * `headers`, the message's extra headers, the auth provider's, then the transport's own (content
 * type, accept, session id, protocol version). With neither extra nor auth headers, one cached
 * object serves every POST until the session or the version changes.
 */
export class HttpSession {
  readonly #acceptEncoding: string;
  readonly #configured: Headers | undefined;
  #id: string | undefined;
  #secret: Disposable | undefined;
  #protocolVersion: string | undefined;
  /**
   * The headers of a POST without per-message or auth headers (sent as this very object), and the
   * part of them that comes after the auth provider's; undefined when out of date.
   */
  #post: Headers | undefined;
  #postTail: Headers | undefined;

  constructor(
    acceptEncoding: string,
    configured: Headers | undefined,
    protocolVersion: string | undefined,
  ) {
    this.#acceptEncoding = acceptEncoding;
    this.#configured = configured;
    this.#protocolVersion = protocolVersion;
  }

  /** The session id the server handed out, if any. */
  get id(): string | undefined {
    return this.#id;
  }

  /** The `MCP-Protocol-Version` header sent, if any. */
  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  set protocolVersion(version: string | undefined) {
    this.#protocolVersion = version;
    this.#post = undefined;
  }

  /**
   * Takes the session id of a response if it is the first one (`'adopted'`); `{ fault }` when the
   * server sent one that a session id may not be (it is ignored; `fault` says why, without the
   * id); `'kept'` otherwise.
   */
  adopt(response: HttpResponse): 'adopted' | 'kept' | { fault: string } {
    const id = response.header('mcp-session-id');
    if (id === null || id === this.#id) return 'kept';
    const fault = sessionIdFault(id);
    if (fault !== undefined) return { fault };
    if (this.#id !== undefined) return 'kept';
    this.#secret = addSecret(id);
    this.#id = id;
    this.#post = undefined;
    return 'adopted';
  }

  /** Forgets the session (the server no longer knows it, or the transport closed). */
  drop(): void {
    this.#id = undefined;
    this.#secret?.[Symbol.dispose]();
    this.#secret = undefined;
    this.#post = undefined;
  }

  postHeaders(extra: Headers | undefined, auth: Headers | undefined): Headers {
    if (this.#post === undefined) {
      const tail: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      };
      if (this.#id !== undefined) tail['mcp-session-id'] = this.#id;
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
  otherHeaders(
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
    if (this.#id !== undefined) headers['mcp-session-id'] = this.#id;
    if (this.#protocolVersion !== undefined)
      headers['mcp-protocol-version'] = this.#protocolVersion;
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    return headers;
  }
}
