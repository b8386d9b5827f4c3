/** Reading the cause of a failed fetch. */
import type { ErrorCode } from '../../errors/codes.js';

/** Errors that mean no connection was made (as opposed to one that broke). */
const CONNECT_ERRNOS = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_SOCKET_CONNECT',
]);

export function isConnectErrno(code: string): boolean {
  return (
    CONNECT_ERRNOS.has(code) ||
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_') ||
    code.includes('CERT') ||
    code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'
  );
}

export function errnoOf(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export interface FetchFailure {
  code: ErrorCode;
  message: string;
  details: Record<string, unknown> | undefined;
}

/**
 * What a fetch that threw (not our abort, not a status) means: a connect timeout, a headers
 * timeout, no connection at all (refused, DNS, TLS), or a failure after connecting.
 */
export function classifyFetchFailure(
  error: unknown,
  url: URL,
  limits: { connectTimeoutMs: number; headersTimeoutMs: number },
): FetchFailure {
  const code = errnoOf(error);
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return {
      code: 'CONNECT_TIMEOUT',
      message: `no connection to ${url.origin} within ${limits.connectTimeoutMs} ms`,
      details: undefined,
    };
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT') {
    return {
      code: 'REQUEST_TIMEOUT',
      message: `no response headers within ${limits.headersTimeoutMs} ms`,
      details: { kind: 'headers' },
    };
  }
  return {
    code: code !== undefined && isConnectErrno(code) ? 'CONNECT_FAILED' : 'HTTP_REQUEST_FAILED',
    message: `HTTP request to ${url.origin} failed${code === undefined ? '' : ` (${code})`}`,
    details: code === undefined ? undefined : { errno: code },
  };
}
