/**
 * What went wrong with an HTTP request, as the HTTP transports say it: typed `McpHostError`s that
 * name the server, the one classification of a request that failed (closed, body too large, total
 * deadline, a failed fetch and its errno), and what a refused response says (status, body preview,
 * `WWW-Authenticate`, `Retry-After`). It makes errors and returns them; the transport reports them.
 */
import type { ErrorCode } from '../../errors/codes.js';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { preview } from '../../errors/redact.js';
import type { JsonRpcMessage, RequestId } from '../../jsonrpc/message.js';
import { recoverBrokenResponseId } from '../../jsonrpc/recover-id.js';
import type { TransportState } from '../../jsonrpc/transport.js';
import type { HttpResponse } from './http-response.js';
import { BodyTooLargeError, readBodyCapped, utf8 } from './read-body.js';

/** Bodies of refused requests (and of accepted POSTs nobody needs) are read up to this size. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** An error message shows at most this much of a refused response's body. */
const MAX_ERROR_PREVIEW_CHARS = 1024;

export interface HttpProblemsOptions {
  serverName: string | undefined;
  url: URL;
  maxMessageBytes: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  /** What ran out when a POST's total deadline passed ("… within N ms"). */
  totalTimeoutWhat: string;
  /** Whether a connection that broke after a request went out marks it `maybeExecuted`. */
  maybeExecutedOnBreak: boolean;
}

/** The rest of an error: the request it is about, further facts, the underlying failure. */
export interface ProblemOptions {
  requestId?: RequestId | undefined;
  details?: Record<string, unknown> | undefined;
  cause?: unknown;
}

/** The errors of one HTTP transport, each naming its server. */
export class HttpProblems {
  readonly #options: HttpProblemsOptions;

  constructor(options: HttpProblemsOptions) {
    this.#options = options;
  }

  /** A local failure of this transport. */
  error(code: ErrorCode, message: string, options: ProblemOptions = {}): McpHostError {
    return new McpHostError(code, message, {
      serverName: this.#options.serverName,
      requestId: options.requestId,
      details: options.details,
      cause: options.cause,
    });
  }

  /**
   * A body or SSE event (`what`) whose `text` is not JSON, as an INVALID_MESSAGE error with a
   * redacted preview: tied to `requestId` when it answers that request for sure (a JSON body), else
   * to the request whose id the text shows beyond doubt (see `recoverBrokenResponseId`), so that
   * request fails at once instead of at its timeout.
   */
  notJson(what: string, text: string, requestId?: RequestId): McpHostError {
    const recovered = requestId === undefined ? recoverBrokenResponseId(text) : undefined;
    const about =
      recovered === undefined ? '' : ` (a response to request ${JSON.stringify(recovered)})`;
    return this.error('INVALID_MESSAGE', `${what}${about} is not JSON: ${preview(text, 80)}`, {
      requestId: requestId ?? recovered,
    });
  }

  /**
   * What a request that threw `error` means, as one typed error: an `McpHostError` as it is, a
   * body over `maxMessageBytes`, the transport closing (`closed`), the total deadline passing
   * (`timedOutAfterMs`), else the fetch failure (see `classifyFetchFailure`).
   */
  failureOf(
    error: unknown,
    requestId: RequestId | undefined,
    timedOutAfterMs: number | undefined,
    closed: boolean,
  ): McpHostError {
    const options = this.#options;
    if (error instanceof McpHostError) return error;
    if (error instanceof BodyTooLargeError) {
      return this.error(
        'MESSAGE_TOO_LARGE',
        `discarded a ${error.bytes}-byte response body, over the ${options.maxMessageBytes}-byte limit (maxMessageBytes)`,
        { requestId, details: { bytes: error.bytes, maxMessageBytes: options.maxMessageBytes } },
      );
    }
    if (closed)
      return this.error(
        'CONNECTION_CLOSED',
        'the transport closed while the request was in flight',
        { requestId },
      );
    if (timedOutAfterMs !== undefined) {
      return this.error(
        'REQUEST_TIMEOUT',
        `${options.totalTimeoutWhat} within ${timedOutAfterMs} ms`,
        { requestId, details: { kind: 'total' } },
      );
    }
    const failure = classifyFetchFailure(error, options);
    // The connection broke after the request went out: the server may have run it.
    const details =
      options.maybeExecutedOnBreak &&
      failure.code === 'HTTP_REQUEST_FAILED' &&
      requestId !== undefined
        ? { ...failure.details, maybeExecuted: true }
        : failure.details;
    return this.error(failure.code, failure.message, { requestId, details, cause: error });
  }

  /**
   * What a fetch that failed before anything was connected means (the legacy transport's start):
   * a timeout is CONNECT_TIMEOUT and anything else that broke is CONNECT_FAILED.
   */
  connectFailureOf(error: unknown): McpHostError {
    const failure = classifyFetchFailure(error, this.#options);
    const code =
      failure.code === 'CONNECT_TIMEOUT' || failure.code === 'REQUEST_TIMEOUT'
        ? 'CONNECT_TIMEOUT'
        : 'CONNECT_FAILED';
    return this.error(code, failure.message, { details: failure.details, cause: error });
  }

  /** The HTTP_STATUS error for a refused `method` request: `GET got HTTP 404: <body preview>`. */
  statusError(method: string, refusal: Refusal, requestId?: RequestId): McpHostError {
    const { status, wwwAuthenticate } = refusal;
    return this.error('HTTP_STATUS', `${method} got HTTP ${status}${refusal.bodyPreview}`, {
      requestId,
      details: { status, ...(wwwAuthenticate === undefined ? {} : { wwwAuthenticate }) },
    });
  }

  /** The body of a message to send, or the error `send()` throws (not open, not serialisable). */
  bodyOf(message: JsonRpcMessage, state: TransportState): string {
    if (state !== 'open') {
      const code = state === 'new' || state === 'starting' ? 'NOT_CONNECTED' : 'CONNECTION_CLOSED';
      throw this.error(code, `cannot send: the connection is ${state}`);
    }
    try {
      return JSON.stringify(message);
    } catch (error) {
      throw this.error('INVALID_ARGUMENT', 'message is not serialisable', { cause: error });
    }
  }
}

/** What a refused response (a status outside 2xx) says. */
export interface Refusal {
  status: number;
  /** The body's text, read up to `MAX_ERROR_BODY_BYTES`. */
  text: string;
  /** `: ` and a redacted preview of the body (at most 1 KiB), or '' for an empty body. */
  bodyPreview: string;
  /** The `WWW-Authenticate` header (a preview of at most 512 characters), if sent. */
  wwwAuthenticate: string | undefined;
  /** The `Retry-After` header in milliseconds from now, if sent and readable. */
  retryAfterMs: number | undefined;
}

/** Reads a refused response: its body (at most `MAX_ERROR_BODY_BYTES`) and headers. */
export async function readRefusal(response: HttpResponse): Promise<Refusal> {
  const bytes = await readBodyCapped(response.body, MAX_ERROR_BODY_BYTES, { truncate: true });
  const text = utf8(bytes);
  const wwwAuthenticate = response.header('www-authenticate') ?? undefined;
  return {
    status: response.status,
    text,
    bodyPreview: text === '' ? '' : `: ${preview(text, MAX_ERROR_PREVIEW_CHARS)}`,
    wwwAuthenticate: wwwAuthenticate === undefined ? undefined : preview(wwwAuthenticate, 512),
    retryAfterMs: parseRetryAfter(response.header('retry-after')),
  };
}

/**
 * A `Retry-After` header value (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) in milliseconds
 * from `now`, or undefined when absent or unreadable. A date in the past means 0.
 */
function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** The errno code of a failed fetch (`ECONNREFUSED`, `UND_ERR_…`), found along its causes. */
export function fetchErrno(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

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

/** Whether a failed request's errno (see `fetchErrno`) means no connection was made at all. */
export function isConnectErrno(code: string): boolean {
  return (
    CONNECT_ERRNOS.has(code) ||
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_') ||
    code.includes('CERT') ||
    code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'
  );
}

interface FetchFailure {
  code: ErrorCode;
  message: string;
  details: Record<string, unknown> | undefined;
}

/**
 * What a fetch that threw (not our abort, not a status) means: a connect timeout, a headers
 * timeout, no connection at all (refused, DNS, TLS), or a failure after connecting.
 */
function classifyFetchFailure(
  error: unknown,
  options: { url: URL; connectTimeoutMs: number; headersTimeoutMs: number },
): FetchFailure {
  const code = fetchErrno(error);
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return {
      code: 'CONNECT_TIMEOUT',
      message: `no connection to ${options.url.origin} within ${options.connectTimeoutMs} ms`,
      details: undefined,
    };
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT') {
    return {
      code: 'REQUEST_TIMEOUT',
      message: `no response headers within ${options.headersTimeoutMs} ms`,
      details: { kind: 'headers' },
    };
  }
  return {
    code: code !== undefined && isConnectErrno(code) ? 'CONNECT_FAILED' : 'HTTP_REQUEST_FAILED',
    message: `HTTP request to ${options.url.origin} failed${code === undefined ? '' : ` (${code})`}`,
    details: code === undefined ? undefined : { errno: code },
  };
}
