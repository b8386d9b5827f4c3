import type { Dispatcher } from 'undici';
import { aboutServer, type McpHostError } from '../../errors/mcp-host-error.js';
import { debugLogger } from '../../internal/debug-logger.js';
import type { Disposable } from '../../internal/disposable.js';
import type { Logger } from '../../internal/logger.js';
import { TaskSet } from '../../internal/task-set.js';
import { settlesWithin } from '../../internal/wait.js';
import type { JsonRpcMessage, RequestId } from '../../jsonrpc/message.js';
import type {
  RequestHeaders,
  Transport,
  TransportDiscards,
  TransportProblem,
  TransportState,
} from '../../jsonrpc/transport.js';
import { TransportEvents } from '../transport-events.js';
import { mayReauthorize, reauthorize } from './auth-provider.js';
import { configureEndpoint } from './configured-endpoint.js';
import { createDispatcher } from './dispatcher.js';
import { DEFAULT_HTTP_OPTIONS, type StreamableHttpTransportOptions } from './http-options.js';
import { HttpProblems, readRefusal } from './http-problems.js';
import type { HttpResponse } from './http-response.js';
import { HttpSession } from './http-session.js';
import { LegacySseTransport } from './legacy-sse-transport.js';
import { errorAnswerIn, isResponseTo, requestIdOf } from './message-shapes.js';
import { BodyTooLargeError, readBodyCapped, readSse, utf8 } from './read-body.js';
import { PostDeadlines, RequestCancel } from './request-cancel.js';
import { fetchSameOrigin } from './same-origin-fetch.js';

/** The wait before reconnecting a dropped SSE stream until the server says (`retry:`). */
const DEFAULT_RETRY_MS = 1_000;
/** A server's `retry:` is held within these bounds. */
const MIN_RETRY_MS = 100;
const MAX_RETRY_MS = 30_000;

/** Where an SSE stream left off: whether it answered the request, and how to resume it. */
interface StreamOutcome {
  answered: boolean;
  lastEventId: string | undefined;
  retryMs: number;
  events: number;
}

/**
 * The Streamable HTTP transport, client side (protocol 2025-03-26 to 2025-11-25): each message is
 * POSTed to the endpoint; the answer is a JSON body, an SSE stream (server messages first, then the
 * response) or 202. The session id the server hands out is kept as a secret, sent on every later
 * request and DELETEd on close. An optional GET stream carries server-initiated messages; dropped
 * streams are resumed with `Last-Event-ID`. Requests go through a private undici pool that
 * `close()` destroys, so no socket outlives the transport.
 *
 * Deadlines: connect (`connectTimeoutMs`), response headers (`headersTimeoutMs`) and the total
 * POST exchange (`requestTimeoutMs`); the GET stream has connect and headers deadlines only.
 * Requests go through undici's `Dispatcher.request()`, not `fetch`; the total deadlines of all
 * POSTs share one timer (see PostDeadlines), and each POST's `RequestCancel` is what `abandon()`,
 * its deadline and `close()` abort.
 *
 * The transport reads its SSE streams itself (`#readStream`, `#listen`): what they deliver, report
 * and reconnect to is the transport's own state, so they live here rather than behind callbacks.
 */
export class StreamableHttpTransport implements Transport {
  readonly serverName: string | undefined;
  readonly url: URL;
  readonly #options: StreamableHttpTransportOptions;
  readonly #logger: Logger;
  readonly #maxMessageBytes: number;
  readonly #maxReconnects: number;
  readonly #agent: Dispatcher;
  /** Aborted by `close()`: ends the GET stream (each POST has its own, aborted too). */
  readonly #closeCancel = new RequestCancel();
  readonly #deadlines: PostDeadlines;
  readonly #tasks: TaskSet;
  readonly #events: TransportEvents;
  /** Every body or event discarded (each is reported too). */
  readonly #discards = { junkMessages: 0, oversizedMessages: 0 };
  readonly #problems: HttpProblems;
  #state: TransportState = 'new';
  /** The session id, the protocol version and the request headers made of them. */
  readonly #session: HttpSession;
  /** Credentials given in `headers` or the URL's query, registered as secrets until close. */
  readonly #configuredSecrets: Disposable[];
  #requestHeaders: RequestHeaders | undefined;
  /** The cancel of each POST awaiting a response, by request id. */
  readonly #inFlight = new Map<RequestId, RequestCancel>();
  #getStreamOpened = false;
  #closing: Promise<void> | undefined;

  readonly onMessage;
  readonly onProblem;
  readonly onClose;

  constructor(options: StreamableHttpTransportOptions) {
    this.#options = options;
    this.serverName = options.serverName;
    const endpoint = configureEndpoint(options);
    this.url = endpoint.url;
    this.#configuredSecrets = endpoint.secrets;
    this.#logger = options.logger ?? debugLogger;
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_HTTP_OPTIONS.maxMessageBytes;
    this.#maxReconnects = options.maxReconnects ?? DEFAULT_HTTP_OPTIONS.maxReconnects;
    this.#session = new HttpSession(
      endpoint.acceptEncoding,
      options.headers,
      options.protocolVersion,
    );
    this.#agent = createDispatcher(options);
    this.#deadlines = new PostDeadlines(
      options.requestTimeoutMs ?? DEFAULT_HTTP_OPTIONS.requestTimeoutMs,
    );
    this.#events = new TransportEvents(this.#logger, options.serverName);
    const internalError = aboutServer(options.serverName, 'internal error');
    this.#tasks = new TaskSet((error) =>
      this.#logger.error(internalError, { error: String(error) }),
    );
    this.#problems = new HttpProblems({
      serverName: options.serverName,
      url: this.url,
      maxMessageBytes: this.#maxMessageBytes,
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_HTTP_OPTIONS.connectTimeoutMs,
      headersTimeoutMs: options.headersTimeoutMs ?? DEFAULT_HTTP_OPTIONS.headersTimeoutMs,
      totalTimeoutWhat: 'no complete HTTP response',
      maybeExecutedOnBreak: true,
    });
    this.onMessage = this.#events.message.event;
    this.onProblem = this.#events.problem.event;
    this.onClose = this.#events.close.event;
  }

  get state(): TransportState {
    return this.#state;
  }

  /** What this transport discarded so far: bodies and events that were not JSON, or too large. */
  get discards(): TransportDiscards {
    return { ...this.#discards };
  }

  /** True while the server has given this transport a session id (the value itself stays private). */
  get hasSession(): boolean {
    return this.#session.id !== undefined;
  }

  /** The `MCP-Protocol-Version` header sent now, if any. */
  get protocolVersion(): string | undefined {
    return this.#session.protocolVersion;
  }

  /** Sets the `MCP-Protocol-Version` header for every later request (`undefined` leaves it out). */
  setProtocolVersion(version: string | undefined): void {
    this.#session.protocolVersion = version;
  }

  /** Sets the function that gives each message's extra headers (`undefined` removes it). */
  setRequestHeaders(compute: RequestHeaders | undefined): void {
    this.#requestHeaders = compute;
  }

  /**
   * The transport to try when the server rejects this one's requests at the HTTP level: the
   * legacy HTTP+SSE transport (protocol 2024-11-05) on the same URL, with the same options.
   */
  fallback(): Transport {
    return new LegacySseTransport(this.#options);
  }

  /** Ends the POST exchange of a request the caller gave up on (its response stream closes). */
  abandon(requestId: RequestId): void {
    const cancel = this.#inFlight.get(requestId);
    if (cancel === undefined) return;
    cancel.abandoned = true;
    cancel.abort();
  }

  /** HTTP needs no connection up front: the first POST connects, and its failure fails that request. */
  start(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.#state !== 'new')
      return Promise.reject(this.#problems.error('INVALID_ARGUMENT', 'start() called twice'));
    if (options.signal?.aborted) {
      const error = this.#problems.error('ABORTED', 'start was cancelled by the caller', {
        cause: options.signal.reason,
      });
      this.#finish(error);
      return Promise.reject(error);
    }
    this.#state = 'open';
    return Promise.resolve();
  }

  send(message: JsonRpcMessage): void {
    const body = this.#problems.bodyOf(message, this.#state);
    const requestId = requestIdOf(message);
    this.#tasks.track(this.#post(body, requestId, this.#requestHeaders?.(message)));
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #post(
    body: string,
    requestId: RequestId | undefined,
    extraHeaders: Readonly<Record<string, string>> | undefined,
  ): Promise<void> {
    const cancel = new RequestCancel();
    this.#deadlines.add(cancel);
    const sentSession = this.#session.id;
    if (requestId !== undefined) this.#inFlight.set(requestId, cancel);
    try {
      const response = await this.#request('POST', { body, cancel, extraHeaders });
      if (!response.ok) {
        await this.#onRefusedPost(response, requestId, sentSession);
        return;
      }
      const adoption = this.#session.adopt(response);
      if (
        typeof adoption === 'object' &&
        this.#failedOnSessionId(adoption.fault, requestId, response)
      )
        return;
      if (sentSession !== undefined || response.status === 202) this.#maybeOpenGetStream();
      const type = response.mediaType;
      if (type === 'text/event-stream') {
        const outcome = await this.#readStream(response, cancel, requestId);
        if (requestId !== undefined && !outcome.answered && this.#state === 'open')
          await this.#resume(requestId, outcome, cancel);
      } else if (type === 'application/json') {
        const bytes = await readBodyCapped(response.body, this.#maxMessageBytes);
        // A JSON body answering a notification or response is tolerated and dropped.
        if (requestId !== undefined) this.#deliverJson(bytes, requestId);
      } else {
        response.discard();
        if (requestId !== undefined || (type !== '' && response.status !== 202)) {
          this.#report(
            this.#problems.error(
              'INVALID_MESSAGE',
              `unexpected response content type '${type}' (status ${response.status})`,
              { requestId },
            ),
            requestId,
          );
        }
      }
    } catch (error) {
      // An abandoned request has been settled by the peer already: nobody waits for a report.
      if (!cancel.abandoned) {
        const timedOutAfterMs = cancel.timedOut ? this.#deadlines.timeoutMs : undefined;
        const closed = this.#closeCancel.aborted;
        const failure = this.#problems.failureOf(error, requestId, timedOutAfterMs, closed);
        const oversized = failure.code === 'MESSAGE_TOO_LARGE' ? 'oversized' : undefined;
        this.#report(failure, requestId, oversized);
      }
    } finally {
      this.#deadlines.delete(cancel);
      if (requestId !== undefined && this.#inFlight.get(requestId) === cancel)
        this.#inFlight.delete(requestId);
    }
  }

  /**
   * A POST answered with an error status: a 404 on a session is SESSION_EXPIRED, a JSON-RPC error
   * in the body answers the request, anything else is an HTTP_STATUS problem.
   */
  async #onRefusedPost(
    response: HttpResponse,
    requestId: RequestId | undefined,
    sentSession: string | undefined,
  ): Promise<void> {
    const refusal = await readRefusal(response);
    const { status } = refusal;
    if (status === 404 && sentSession !== undefined) {
      if (this.#session.id === sentSession) this.#dropSession();
      this.#report(
        this.#problems.error(
          'SESSION_EXPIRED',
          'the server no longer knows the session (404); the client must initialise again',
          { requestId, details: { status: 404 } },
        ),
        requestId,
      );
      return;
    }
    if (requestId !== undefined && status !== 401 && status !== 403) {
      const answer = errorAnswerIn(refusal.text, requestId);
      if (answer !== undefined) {
        this.#events.message.fire(answer);
        return;
      }
    }
    const { retryAfterMs, wwwAuthenticate } = refusal;
    this.#report(
      this.#problems.error('HTTP_STATUS', `HTTP ${status}${refusal.bodyPreview}`, {
        requestId,
        details: {
          status,
          ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
          ...(wwwAuthenticate === undefined ? {} : { wwwAuthenticate }),
        },
      }),
      requestId,
    );
  }

  /**
   * A response carried a session id that cannot be sent back. When it would have opened the
   * session (the transport has none, and the response answers a request: `initialize`), that
   * request fails with PROTOCOL_VIOLATION and the response is dropped, so `connect()` fails
   * naming the header, rather than every later request failing with the server's "not
   * initialized"; returns true then. Otherwise the id is ignored and the problem reported.
   */
  #failedOnSessionId(
    fault: string,
    requestId: RequestId | undefined,
    response: HttpResponse,
  ): boolean {
    const opening = requestId !== undefined && this.#session.id === undefined;
    const error = this.#problems.error(
      'PROTOCOL_VIOLATION',
      `the server's Mcp-Session-Id header ${fault}; a session id must be visible ASCII (0x21-0x7E), so it cannot be sent back${opening ? '' : ' (ignored)'}`,
      { requestId: opening ? requestId : undefined, details: { header: 'Mcp-Session-Id' } },
    );
    if (!opening) {
      this.#report(error);
      return false;
    }
    response.discard();
    this.#report(error, requestId);
    return true;
  }

  /** A JSON body answering a request: delivered as the response, or reported when not JSON. */
  #deliverJson(bytes: Buffer, requestId: RequestId): void {
    const text = utf8(bytes);
    if (text.trim() === '') {
      this.#report(
        this.#problems.error('INVALID_MESSAGE', 'empty JSON response to a request', { requestId }),
        requestId,
      );
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#report(this.#problems.notJson('response body', text, requestId), requestId, 'junk');
      return;
    }
    this.#events.message.fire(value);
  }

  /** Reads one SSE stream, delivering its messages; says whether `requestId` was answered. */
  async #readStream(
    response: HttpResponse,
    cancel: RequestCancel,
    requestId: RequestId | undefined,
    previous?: StreamOutcome,
  ): Promise<StreamOutcome> {
    const outcome: StreamOutcome = {
      answered: false,
      lastEventId: previous?.lastEventId,
      retryMs: previous?.retryMs ?? DEFAULT_RETRY_MS,
      events: 0,
    };
    try {
      await readSse(response.body, this.#maxMessageBytes, {
        onEvent: (event) => {
          if (event.id !== undefined) outcome.lastEventId = event.id;
          outcome.events++;
          // Priming events carry an id and empty data; other event types are not ours.
          if (event.data === '' || (event.event !== undefined && event.event !== 'message')) return;
          let value: unknown;
          try {
            value = JSON.parse(event.data);
          } catch {
            // A broken response that shows its id fails that request now.
            const broken = this.#problems.notJson('SSE event data', event.data);
            if (broken.requestId === requestId && requestId !== undefined) outcome.answered = true;
            this.#report(broken, broken.requestId, 'junk');
            return;
          }
          if (requestId !== undefined && isResponseTo(value, requestId)) outcome.answered = true;
          if (this.#state === 'open') this.#events.message.fire(value);
        },
        onRetry: (ms) => {
          outcome.retryMs = Math.min(MAX_RETRY_MS, Math.max(MIN_RETRY_MS, ms));
        },
      });
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        this.#report(
          this.#problems.error(
            'MESSAGE_TOO_LARGE',
            `discarded an SSE event over the ${this.#maxMessageBytes}-byte limit (maxMessageBytes)`,
            { requestId, details: { bytes: error.bytes, maxMessageBytes: this.#maxMessageBytes } },
          ),
          requestId,
          'oversized',
        );
        outcome.answered = true;
        return outcome;
      }
      // Our own deadline or close: not a dropped stream, the caller reports it.
      if (cancel.aborted) throw error;
      // A dropped stream: the caller decides whether to resume it.
      this.#debug('SSE stream broke', { error: String(error) });
    }
    return outcome;
  }

  /** A POST's stream ended before its response: resume it with GET and `Last-Event-ID`. */
  async #resume(
    requestId: RequestId,
    outcome: StreamOutcome,
    cancel: RequestCancel,
  ): Promise<void> {
    if (outcome.lastEventId === undefined) {
      this.#report(
        this.#problems.error(
          'STREAM_INTERRUPTED',
          'the response stream ended before the response, and carried no event id to resume from',
          { requestId, details: { maybeExecuted: true } },
        ),
        requestId,
      );
      return;
    }
    const answered = await this.#listen(outcome, cancel, requestId);
    // The POST's deadline (or close) ended the resumption: the POST reports which.
    if (!answered && cancel.aborted) throw new Error('aborted');
    if (!answered && this.#state === 'open') {
      this.#report(
        this.#problems.error(
          'STREAM_INTERRUPTED',
          'the response stream could not be resumed before the reconnect limit',
          { requestId, details: { maybeExecuted: true } },
        ),
        requestId,
      );
    }
  }

  /**
   * Holds a GET stream open, reconnecting after drops (waiting the server's `retry:` and sending
   * `Last-Event-ID`); gives up after `maxReconnects` reconnects in a row that brought no event,
   * or when `cancel` aborts. With `requestId`, stops once that request is answered (or failed:
   * a 404 says the session is gone) and returns true. The first GET answered 400/404/405 means the server offers no such stream: not an error.
   * The session's own stream (no `requestId`) ends with its session: a new session opens its own.
   */
  async #listen(
    start: StreamOutcome,
    cancel: RequestCancel,
    requestId?: RequestId,
  ): Promise<boolean> {
    let outcome = start;
    let failures = 0;
    const session = this.#session.id;
    for (let first = true; this.#state === 'open'; first = false) {
      if (!first || requestId !== undefined) {
        if (failures >= this.#maxReconnects) {
          this.#debug(`SSE stream given up: ${failures} reconnects brought no event`);
          return false;
        }
        if (!(await this.#waitOpen(outcome.retryMs, cancel))) return false;
      }
      if (requestId === undefined && this.#session.id !== session) {
        this.#debug('GET stream ended with its session');
        return false;
      }
      let response: HttpResponse;
      try {
        response = await this.#request('GET', { cancel, lastEventId: outcome.lastEventId });
      } catch (error) {
        if (cancel.aborted) return false;
        this.#debug('GET stream failed', { error: String(error) });
        failures++;
        continue;
      }
      if (!response.ok || response.mediaType !== 'text/event-stream') {
        response.discard();
        if (response.status === 404 && requestId !== undefined && session !== undefined) {
          // The session is gone (its server restarted or died behind a load balancer): the
          // stream can never be resumed. The request is failed at once, not after the retries.
          if (this.#session.id === session) this.#dropSession();
          this.#report(
            this.#problems.error(
              'SESSION_EXPIRED',
              'the server no longer knows the session (404) while the response stream was resumed; the client must initialise again',
              { requestId, details: { status: 404, maybeExecuted: true } },
            ),
            requestId,
          );
          return true;
        }
        if (first && requestId === undefined && [400, 404, 405].includes(response.status)) {
          this.#debug(`no GET stream (HTTP ${response.status})`);
          return false;
        }
        if (response.status === 405) {
          // No GET at all (as in the 2026-07-28 revision): there is nothing to resume.
          this.#debug('the server offers no GET stream to resume (HTTP 405)');
          return false;
        }
        this.#debug(`GET stream refused (HTTP ${response.status})`);
        failures++;
        continue;
      }
      try {
        outcome = await this.#readStream(response, cancel, requestId, outcome);
      } catch {
        return false;
      }
      if (outcome.answered) return true;
      failures = outcome.events > 0 ? 0 : failures + 1;
    }
    return false;
  }

  /** Waits `ms` unless `cancel` aborts first; true if the transport is still open. */
  async #waitOpen(ms: number, cancel: RequestCancel): Promise<boolean> {
    if (cancel.aborted) return false;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      const stop = cancel.onAbort(done);
      function done(): void {
        clearTimeout(timer);
        stop();
        resolve();
      }
    });
    return !cancel.aborted && this.#state === 'open';
  }

  /**
   * One HTTP request with headers, auth (asked afresh for each try; one more try after a 401/403
   * when the provider has new credentials) and redirects followed only within the endpoint's
   * origin (and, for POST, only the method-preserving 307/308).
   */
  async #request(
    method: 'POST' | 'GET' | 'DELETE',
    request: {
      body?: string;
      cancel: RequestCancel;
      lastEventId?: string;
      extraHeaders?: Readonly<Record<string, string>>;
    },
  ): Promise<HttpResponse> {
    const auth = this.#options.auth;
    for (let attempt = 0; ; attempt++) {
      const authHeaders =
        auth === undefined ? undefined : await auth.headers({ url: this.url, method });
      const headers =
        method === 'POST'
          ? this.#session.postHeaders(request.extraHeaders, authHeaders)
          : this.#session.otherHeaders(method, authHeaders, request.lastEventId);
      const response = await fetchSameOrigin({
        url: this.url,
        method,
        headers,
        body: request.body,
        cancel: request.cancel,
        dispatcher: this.#agent,
        serverName: this.serverName,
      });
      const retry =
        mayReauthorize(attempt, response) && reauthorize(auth, response, this.url, request.cancel);
      if (retry !== false && (await retry)) {
        response.discard();
        continue;
      }
      return response;
    }
  }

  #maybeOpenGetStream(): void {
    if (this.#getStreamOpened || this.#options.openGetStream === false || this.#state !== 'open')
      return;
    this.#getStreamOpened = true;
    const start: StreamOutcome = {
      answered: false,
      lastEventId: undefined,
      retryMs: DEFAULT_RETRY_MS,
      events: 0,
    };
    this.#tasks.track(this.#listen(start, this.#closeCancel).then(() => {}));
  }

  #dropSession(): void {
    this.#session.drop();
    // The new session (if the client opens one) gets its own GET stream.
    this.#getStreamOpened = false;
  }

  /**
   * Reports a problem (of a request, when `requestId` is given) to the listeners, and counts what
   * was discarded (`discarded`).
   */
  #report(
    problem: McpHostError,
    requestId?: RequestId,
    discarded?: TransportProblem['discarded'],
  ): void {
    this.#logger.debug(problem.message);
    if (discarded === 'junk') this.#discards.junkMessages++;
    else if (discarded === 'oversized') this.#discards.oversizedMessages++;
    this.#events.reportProblem(problem, requestId, discarded);
  }

  #debug(message: string, fields?: Record<string, unknown>): void {
    this.#logger.debug(aboutServer(this.serverName, message), fields);
  }

  async #close(): Promise<void> {
    if (this.#state === 'closed') return;
    const wasOpen = this.#state === 'open';
    this.#state = 'closing';
    this.#closeCancel.abort();
    this.#deadlines.abortAll();
    await this.#tasks.settled();
    if (wasOpen && this.#session.id !== undefined) {
      const timeoutMs = this.#options.closeTimeoutMs ?? DEFAULT_HTTP_OPTIONS.closeTimeoutMs;
      const cancel = new RequestCancel();
      const timer = setTimeout(() => cancel.abort(), timeoutMs);
      const remove = this.#request('DELETE', { cancel })
        .then((response) => response.discard())
        .catch(() => {});
      await settlesWithin(remove, timeoutMs + 100, { ref: true });
      clearTimeout(timer);
    }
    this.#dropSession();
    await this.#agent.destroy().catch(() => {});
    for (const secret of this.#configuredSecrets.splice(0)) secret[Symbol.dispose]();
    this.#finish(undefined);
  }

  #finish(reason: McpHostError | undefined): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#events.closed(reason);
  }
}
