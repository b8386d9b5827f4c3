/**
 * What a failed token refresh means, from whatever the refresh function threw: oauth4webapi's
 * errors (`ResponseBodyError` with `error` and `status`; `OperationProcessingError` whose `cause`
 * is the `Response`), a `fetch` failure (`TypeError`, errno codes), an abort or timeout
 * (`AbortError`, `TimeoutError`), mcp-host's own errors (`CONNECT_FAILED`, `HTTP_STATUS` with
 * `details.status`, ...), or any object with `error` (an OAuth error code) and/or `status`.
 *
 * - `invalid_grant`: the refresh token is dead (revoked, expired, already spent). Clear, log in.
 * - `invalid_client`: the client is refused. Reported as such (a dynamic client is re-registered).
 * - `transient`: network, timeout, 5xx, 429, 408, `temporarily_unavailable`, `server_error`. Keep
 *   the tokens, retry with backoff.
 * - `rejected`: any other refusal or malformed answer. Keep the tokens, do not retry now.
 */
export interface RefreshFailure {
  kind: 'invalid_grant' | 'invalid_client' | 'transient' | 'rejected';
  /** What went wrong, for `details.reason`. */
  reason: 'oauth' | 'network' | 'timeout' | 'status' | 'rejected';
  status?: number;
  /** The OAuth `error` code the server sent. */
  oauthError?: string;
  /** The server's `Retry-After`, in ms, when it sent one. */
  retryAfterMs?: number;
}

const NETWORK_ERRNOS: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

const TRANSIENT_OAUTH_ERRORS: ReadonlySet<string> = new Set([
  'temporarily_unavailable',
  'server_error',
  'slow_down',
]);

const NETWORK_CODES: ReadonlySet<string> = new Set([
  'CONNECT_FAILED',
  'CONNECT_TIMEOUT',
  'HTTP_REQUEST_FAILED',
  'CONNECTION_CLOSED',
]);

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

/** The HTTP response an error carries (oauth4webapi keeps it as `response` or `cause`). */
function responseOf(error: unknown): { status?: unknown; headers?: unknown } | undefined {
  for (const candidate of [field(error, 'response'), field(error, 'cause')])
    if (
      typeof field(candidate, 'status') === 'number' &&
      typeof field(candidate, 'headers') === 'object'
    )
      return candidate as { status?: unknown; headers?: unknown };
  return undefined;
}

function statusOf(error: unknown): number | undefined {
  const candidates = [
    field(error, 'status'),
    field(responseOf(error), 'status'),
    field(field(error, 'details'), 'status'),
  ];
  for (const status of candidates)
    if (typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599)
      return status;
  return undefined;
}

/** `Retry-After` as ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(
  value: string | null | undefined,
  now = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function retryAfterOf(error: unknown): number | undefined {
  const headers = field(responseOf(error), 'headers') as { get?: unknown } | undefined;
  if (typeof headers?.get !== 'function') return undefined;
  const value = (headers.get as (name: string) => unknown).call(headers, 'retry-after');
  return typeof value === 'string' ? retryAfterMs(value) : undefined;
}

function isNetworkFailure(error: unknown, depth = 0): boolean {
  if (depth > 4 || typeof error !== 'object' || error === null) return false;
  const code = field(error, 'code');
  if (typeof code === 'string' && (NETWORK_ERRNOS.has(code) || NETWORK_CODES.has(code)))
    return true;
  // fetch() rejects with TypeError('fetch failed') whose cause names the socket error.
  if (error instanceof TypeError && /fetch failed|network/i.test(error.message)) return true;
  return isNetworkFailure(field(error, 'cause'), depth + 1);
}

function isTimeout(error: unknown): boolean {
  const name = field(error, 'name');
  const code = field(error, 'code');
  return (
    name === 'TimeoutError' ||
    name === 'AbortError' ||
    code === 'REQUEST_TIMEOUT' ||
    code === 'ABORTED' ||
    code === 23 // DOMException TIMEOUT_ERR
  );
}

/** Classifies what a refresh function threw (see the module comment). */
export function classifyRefreshFailure(error: unknown): RefreshFailure {
  const oauthError = field(error, 'error');
  const status = statusOf(error);
  const retryAfter = retryAfterOf(error);
  const extra = {
    ...(status === undefined ? {} : { status }),
    ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
  };
  if (typeof oauthError === 'string' && oauthError !== '') {
    if (oauthError === 'invalid_grant')
      return { kind: 'invalid_grant', reason: 'oauth', oauthError, ...extra };
    if (oauthError === 'invalid_client')
      return { kind: 'invalid_client', reason: 'oauth', oauthError, ...extra };
    const transient =
      TRANSIENT_OAUTH_ERRORS.has(oauthError) ||
      (status !== undefined && (status >= 500 || status === 429 || status === 408));
    return { kind: transient ? 'transient' : 'rejected', reason: 'oauth', oauthError, ...extra };
  }
  if (status !== undefined) {
    const transient = status >= 500 || status === 429 || status === 408;
    return { kind: transient ? 'transient' : 'rejected', reason: 'status', ...extra };
  }
  if (isTimeout(error)) return { kind: 'transient', reason: 'timeout' };
  if (isNetworkFailure(error)) return { kind: 'transient', reason: 'network' };
  return { kind: 'rejected', reason: 'rejected' };
}
