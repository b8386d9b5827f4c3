import { McpHostError } from '../../errors/mcp-host-error.js';
import type { Logger } from '../../internal/logger.js';
import type { JsonRpcMessage } from '../../jsonrpc/message.js';
import type { TransportState } from '../../jsonrpc/transport.js';
import type { TransportEvents } from '../transport-events.js';
import { classifyFetchFailure } from './fetch-errors.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_HEADERS_TIMEOUT_MS } from './http-options.js';
import type { RequestId } from './message-shapes.js';
import { BodyTooLargeError } from './read-body.js';
import type { RequestCancel } from './request-cancel.js';

/** The prefix of every message about a named server. */
export function whereOf(serverName: string | undefined): string {
  return serverName === undefined ? '' : `server '${serverName}': `;
}

export interface HttpProblemsOptions {
  serverName: string | undefined;
  url: URL;
  logger: Logger;
  events: TransportEvents;
  /** Aborted by the transport's `close()`: a failure after it is CONNECTION_CLOSED. */
  closeCancel: RequestCancel;
  maxMessageBytes: number;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  /** What ran out when a POST's total deadline passed ("… within N ms"). */
  totalTimeoutWhat: string;
  /** Whether a connection that broke after a request went out marks it `maybeExecuted`. */
  maybeExecutedOnBreak: boolean;
}

/**
 * How an HTTP transport reports what went wrong: typed McpHostErrors that name the server, and the
 * one classification of a failed request (closed, body too large, total deadline, fetch failure).
 */
export class HttpProblems {
  readonly where: string;
  readonly limits: { readonly connectTimeoutMs: number; readonly headersTimeoutMs: number };
  readonly #options: HttpProblemsOptions;

  constructor(options: HttpProblemsOptions) {
    this.#options = options;
    this.where = whereOf(options.serverName);
    this.limits = {
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      headersTimeoutMs: options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
    };
  }

  /** A local failure naming the server. */
  error(
    code: McpHostError['code'],
    message: string,
    details?: Record<string, unknown>,
    cause?: unknown,
  ): McpHostError {
    return new McpHostError(code, `${this.where}${message}`, {
      serverName: this.#options.serverName,
      details,
      cause,
    });
  }

  /** A failure decided before the server's name was known (see legacy-sse-start.ts), as an error. */
  failure(failure: {
    code: McpHostError['code'];
    message: string;
    details?: Record<string, unknown>;
    cause?: unknown;
  }): McpHostError {
    return this.error(failure.code, failure.message, failure.details, failure.cause);
  }

  /** Reports a problem (of a request, when `requestId` is given) to the transport's listeners. */
  report(
    code: McpHostError['code'],
    message: string,
    requestId?: RequestId,
    details?: Record<string, unknown>,
    cause?: unknown,
  ): void {
    const error = new McpHostError(code, `${this.where}${message}`, {
      serverName: this.#options.serverName,
      requestId,
      details,
      cause,
    });
    this.#options.logger.debug(error.message);
    this.#options.events.reportProblem(error, requestId);
  }

  /** Reports what a failed request (it threw `error`) means, as one typed problem. */
  reportFailure(error: unknown, requestId: RequestId | undefined, timedOutAfterMs?: number): void {
    const options = this.#options;
    if (error instanceof McpHostError) {
      options.events.reportProblem(error, requestId);
      return;
    }
    if (error instanceof BodyTooLargeError) {
      this.report(
        'MESSAGE_TOO_LARGE',
        `discarded a ${error.bytes}-byte response body, over the ${options.maxMessageBytes}-byte limit (maxMessageBytes)`,
        requestId,
        { bytes: error.bytes, maxMessageBytes: options.maxMessageBytes },
      );
      return;
    }
    if (options.closeCancel.aborted) {
      this.report(
        'CONNECTION_CLOSED',
        'the transport closed while the request was in flight',
        requestId,
      );
      return;
    }
    if (timedOutAfterMs !== undefined) {
      this.report(
        'REQUEST_TIMEOUT',
        `${options.totalTimeoutWhat} within ${timedOutAfterMs} ms`,
        requestId,
        { kind: 'total' },
      );
      return;
    }
    const failure = classifyFetchFailure(error, options.url, this.limits);
    // The connection broke after the request went out: the server may have run it.
    const details =
      options.maybeExecutedOnBreak &&
      failure.code === 'HTTP_REQUEST_FAILED' &&
      requestId !== undefined
        ? { ...failure.details, maybeExecuted: true }
        : failure.details;
    this.report(failure.code, failure.message, requestId, details, error);
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
      throw this.error('INVALID_ARGUMENT', 'message is not serialisable', undefined, error);
    }
  }
}
