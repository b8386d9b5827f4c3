import * as oauth from 'oauth4webapi';
import { McpHostError } from '../errors/mcp-host-error.js';
import { deadlineSignal, linkSignals } from '../internal/signals.js';
import { isLoopbackHost } from './egress-policy.js';

/** The `fetch` every OAuth request goes through (discovery, registration, token requests). */
export type OAuthFetch = (url: string, init: RequestInit) => Promise<Response>;

/** How OAuth requests are made: the fetch to use, a deadline per request, the caller's signal. */
export interface OAuthHttpOptions {
  /** Default: the global `fetch` (a guarded fetch plugs in here). */
  fetch?: OAuthFetch;
  /** Deadline of each request, from sending it until its response headers (default 30 s). */
  requestTimeoutMs?: number;
  signal?: AbortSignal;
}

export const DEFAULT_OAUTH_REQUEST_TIMEOUT_MS = 30_000;

/** True for https, and for plain http on a loopback host only. */
export function isOAuthSafeUrl(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

/**
 * Refuses a URL that is neither https nor http on a loopback host (credentials and codes never
 * travel in clear text over a network); `what` names the URL in the error.
 */
export function checkOAuthUrl(url: URL, what: string): void {
  if (isOAuthSafeUrl(url)) return;
  throw new McpHostError(
    'AUTH_FAILED',
    `${what} ${url.origin} is not https (nor http on loopback)`,
    {
      details: { step: what },
    },
  );
}

/**
 * A fetch with a deadline per request and the caller's signal linked in, never following a
 * redirect (oauth4webapi asks for `redirect: 'manual'` itself; plain GETs get it too). An
 * `McpHostError` the underlying fetch throws passes through unchanged; anything else becomes
 * `CONNECT_FAILED` (or `ABORTED`).
 */
export function boundedFetch(options: OAuthHttpOptions): OAuthFetch {
  const base: OAuthFetch = options.fetch ?? ((url, init) => fetch(url, init));
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_OAUTH_REQUEST_TIMEOUT_MS;
  return async (url, init) => {
    const deadline = deadlineSignal(
      timeoutMs,
      () =>
        new McpHostError('REQUEST_TIMEOUT', `OAuth request to ${new URL(url).origin} timed out`, {
          details: { kind: 'total', timeoutMs },
        }),
    );
    const linked = linkSignals(init.signal ?? undefined, options.signal, deadline.signal);
    try {
      return await base(url, { ...init, redirect: 'manual', signal: linked.signal });
    } catch (error) {
      if (linked.signal.aborted && linked.signal.reason instanceof McpHostError) {
        throw linked.signal.reason;
      }
      // The guarded fetch's own refusals (EGRESS_REFUSED, MESSAGE_TOO_LARGE, ...) say more.
      if (error instanceof McpHostError) throw error;
      throw new McpHostError(
        options.signal?.aborted === true ? 'ABORTED' : 'CONNECT_FAILED',
        `OAuth request to ${new URL(url).origin} failed`,
        { cause: options.signal?.aborted === true ? options.signal.reason : error },
      );
    } finally {
      linked.cleanup();
      deadline.cleanup();
    }
  };
}

/** The options bag oauth4webapi's request functions take, for a request to `url`. */
export function requestOptions(
  url: string | URL,
  fetchFn: OAuthFetch,
): { [oauth.customFetch]: OAuthFetch; [oauth.allowInsecureRequests]?: boolean } {
  const target = new URL(url);
  checkOAuthUrl(target, 'OAuth endpoint');
  return {
    [oauth.customFetch]: fetchFn,
    ...(target.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {}),
  };
}
