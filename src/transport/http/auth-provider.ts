import { addSecret } from '../../errors/redact.js';
import type { Disposable } from '../../internal/disposable.js';
import type { HttpResponse } from './http-response.js';
import type { RequestCancel } from './request-cancel.js';

/** What a server said when it refused a request: the status and its `WWW-Authenticate` header. */
export interface AuthChallenge {
  status: 401 | 403;
  /** The raw `WWW-Authenticate` header, if the server sent one (scope, resource metadata). */
  wwwAuthenticate: string | undefined;
  /** The URL that refused the request. */
  url: URL;
  /** The `DPoP-Nonce` header (RFC 9449 section 9): the nonce the server wants in the next proof. */
  dpopNonce?: string;
  signal: AbortSignal;
}

/**
 * Supplies credentials to an HTTP transport. `headers` is asked before every request (so a token
 * can change between requests); `onUnauthorized` is called on a 401 or 403 and returns true when
 * new credentials are ready, in which case the request is retried once (never more per request).
 * Implementations register every credential they hand out with `addSecret`.
 */
export interface AuthProvider {
  headers(request: {
    url: URL;
    method: string;
  }): Record<string, string> | Promise<Record<string, string>>;
  onUnauthorized?(challenge: AuthChallenge): boolean | Promise<boolean>;
}

/**
 * A bearer token as an `AuthProvider`. Given a string, the token is fixed and a 401 is final; given
 * a function, it is asked for the token before each request and once more after a 401/403 (a
 * refreshing token source). Every token value seen is registered as a secret.
 */
export function bearerToken(token: string | (() => string | Promise<string>)): AuthProvider {
  let registered: { value: string; secret: Disposable } | undefined;
  const remember = (value: string): string => {
    if (registered?.value !== value) {
      registered = { value, secret: addSecret(value) };
    }
    return value;
  };
  if (typeof token === 'string') remember(token);
  return {
    async headers() {
      const value = remember(typeof token === 'string' ? token : await token());
      return { authorization: `Bearer ${value}` };
    },
    onUnauthorized() {
      return typeof token === 'function';
    },
  };
}

/**
 * Whether the provider may be asked about a refused try: after the first, and once more after a
 * 401 carrying a `DPoP-Nonce` (a DPoP server asks for its nonce only once a token is presented,
 * so the first request of a session may need a token, then the nonce).
 */
export function mayReauthorize(attempt: number, response: HttpResponse): boolean {
  if (attempt === 0) return true;
  return attempt === 1 && response.status === 401 && response.header('dpop-nonce') !== null;
}

/**
 * The provider's say on a refused first try: for a 401 or 403, a promise of whether it has new
 * credentials (the caller then sends the request once more, asking `headers` afresh); `false` at
 * once for any other status, or without an `onUnauthorized` to ask, so the usual path awaits
 * nothing. Retry once at most per request: callers ask only after the first try.
 */
export function reauthorize(
  auth: AuthProvider | undefined,
  response: HttpResponse,
  url: URL,
  cancel: RequestCancel,
): false | Promise<boolean> {
  const { status } = response;
  if ((status !== 401 && status !== 403) || auth?.onUnauthorized === undefined) return false;
  const dpopNonce = response.header('dpop-nonce');
  const challenge: AuthChallenge = {
    status,
    wwwAuthenticate: response.header('www-authenticate') ?? undefined,
    url,
    ...(dpopNonce === null ? {} : { dpopNonce }),
    signal: cancel.signal,
  };
  return Promise.resolve(auth.onUnauthorized(challenge));
}
