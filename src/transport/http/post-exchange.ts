import { preview } from '../../errors/redact.js';
import type { TransportEvents } from '../transport-events.js';
import { MAX_ERROR_BODY_BYTES, MAX_ERROR_PREVIEW_CHARS } from './http-options.js';
import type { HttpProblems } from './http-problems.js';
import type { HttpResponse } from './http-response.js';
import { isJsonRpcErrorResponse, parseJson, type RequestId } from './message-shapes.js';
import { readBodyCapped, utf8 } from './read-body.js';
import type { RequestCancel } from './request-cancel.js';
import { parseRetryAfter } from './retry-after.js';
import { listenSse, type SseHost, type StreamOutcome } from './sse-stream.js';

/** What the answer handling of a Streamable HTTP POST uses of its transport. */
export interface PostExchangeHost {
  readonly problems: HttpProblems;
  readonly events: TransportEvents;
  readonly sse: SseHost;
  /** The session id the transport sends now. */
  sessionId(): string | undefined;
  /** Forgets the session (the server no longer knows it). */
  dropSession(): void;
}

/**
 * A POST answered with an error status: a 404 on a session is SESSION_EXPIRED, a JSON-RPC error
 * in the body answers the request, anything else is an HTTP_STATUS problem.
 */
export async function onFailedPost(
  host: PostExchangeHost,
  response: HttpResponse,
  requestId: RequestId | undefined,
  sentSession: string | undefined,
): Promise<void> {
  const bytes = await readBodyCapped(response.body, MAX_ERROR_BODY_BYTES, { truncate: true });
  const text = utf8(bytes);
  if (response.status === 404 && sentSession !== undefined) {
    if (host.sessionId() === sentSession) host.dropSession();
    host.problems.report(
      'SESSION_EXPIRED',
      'the server no longer knows the session (404); the client must initialise again',
      requestId,
      { status: 404 },
    );
    return;
  }
  // A JSON-RPC error in the body answers the request (the HTTP status only frames it).
  if (requestId !== undefined && response.status !== 401 && response.status !== 403) {
    const value = parseJson(text);
    if (isJsonRpcErrorResponse(value) && (value.id === requestId || value.id == null)) {
      host.events.message.fire({ ...value, id: requestId });
      return;
    }
  }
  const wwwAuthenticate = response.header('www-authenticate') ?? undefined;
  const retryAfterMs = parseRetryAfter(response.header('retry-after'));
  host.problems.report(
    'HTTP_STATUS',
    `HTTP ${response.status}${text === '' ? '' : `: ${preview(text, MAX_ERROR_PREVIEW_CHARS)}`}`,
    requestId,
    {
      status: response.status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...(wwwAuthenticate === undefined ? {} : { wwwAuthenticate: preview(wwwAuthenticate, 512) }),
    },
  );
}

/** A JSON body answering a request: delivered as the response, or reported when not JSON. */
export function deliverJson(host: PostExchangeHost, bytes: Buffer, requestId: RequestId): void {
  const text = utf8(bytes);
  if (text.trim() === '') {
    host.problems.report('INVALID_MESSAGE', 'empty JSON response to a request', requestId);
    return;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    host.problems.report(
      'INVALID_MESSAGE',
      `response body is not JSON: ${preview(text, 80)}`,
      requestId,
    );
    return;
  }
  host.events.message.fire(value);
}

/** A POST's stream ended before its response: resume it with GET and `Last-Event-ID`. */
export async function resumeResponse(
  host: PostExchangeHost,
  requestId: RequestId,
  outcome: StreamOutcome,
  cancel: RequestCancel,
): Promise<void> {
  if (outcome.lastEventId === undefined) {
    host.problems.report(
      'STREAM_INTERRUPTED',
      'the response stream ended before the response, and carried no event id to resume from',
      requestId,
      { maybeExecuted: true },
    );
    return;
  }
  const answered = await listenSse(host.sse, outcome, cancel, requestId);
  // The POST's deadline (or close) ended the resumption: the POST reports which.
  if (!answered && cancel.aborted) throw new Error('aborted');
  if (!answered && host.sse.isOpen()) {
    host.problems.report(
      'STREAM_INTERRUPTED',
      'the response stream could not be resumed before the reconnect limit',
      requestId,
      { maybeExecuted: true },
    );
  }
}
