import { addSecret } from '../../errors/redact.js';
import type { Disposable } from '../../internal/disposable.js';
import type { HttpProblems } from './http-problems.js';
import type { HttpResponse } from './http-response.js';

/** Visible ASCII (0x21..0x7E), as the spec requires of a session id. */
const SESSION_ID_PATTERN = /^[\x21-\x7e]+$/;

/**
 * The Streamable HTTP session: the id the server handed out, kept as a secret (out of logs) until
 * dropped.
 */
export class HttpSession {
  #id: string | undefined;
  #secret: Disposable | undefined;

  get id(): string | undefined {
    return this.#id;
  }

  /**
   * Takes the session id of a response, if it is the first one; reports an invalid one. True when
   * the session changed.
   */
  adopt(response: HttpResponse, problems: HttpProblems): boolean {
    const id = response.header('mcp-session-id');
    if (id === null || id === this.#id) return false;
    if (!SESSION_ID_PATTERN.test(id)) {
      problems.report('PROTOCOL_VIOLATION', 'the server sent a session id with invalid characters');
      return false;
    }
    if (this.#id !== undefined) return false;
    this.#secret = addSecret(id);
    this.#id = id;
    return true;
  }

  drop(): void {
    this.#id = undefined;
    this.#secret?.[Symbol.dispose]();
    this.#secret = undefined;
  }
}
