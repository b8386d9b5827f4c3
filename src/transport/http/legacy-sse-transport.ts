import type { EventSourceMessage } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import { aboutServer, McpHostError } from '../../errors/mcp-host-error.js';
import { addSecret, preview } from '../../errors/redact.js';
import { debugLogger } from '../../internal/debug-logger.js';
import type { Disposable } from '../../internal/disposable.js';
import type { Logger } from '../../internal/logger.js';
import { onAbort } from '../../internal/signals.js';
import { TaskSet } from '../../internal/task-set.js';
import type { JsonRpcMessage, RequestId } from '../../jsonrpc/message.js';
import type {
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
import { fetchErrno, HttpProblems, MAX_ERROR_BODY_BYTES, readRefusal } from './http-problems.js';
import type { HttpResponse } from './http-response.js';
import { errorAnswerIn, parseJson, requestIdOf } from './message-shapes.js';
import { readBodyCapped } from './read-body.js';
import { PostDeadlines, RequestCancel } from './request-cancel.js';
import { fetchSameOrigin } from './same-origin-fetch.js';
import { readSseEvents } from './sse-event-reader.js';

/**
 * Options of the legacy HTTP+SSE transport: those of the Streamable HTTP transport that apply.
 * `url` is the SSE URL (the one the server's GET stream lives at); `connectTimeoutMs` bounds the
 * whole of `start()`, from the TCP connect to the `endpoint` event; `requestTimeoutMs` bounds each
 * POST (the answers arrive on the GET stream, which has no deadline once open).
 */
export type LegacySseTransportOptions = Pick<
  StreamableHttpTransportOptions,
  | 'url'
  | 'serverName'
  | 'headers'
  | 'publicHeaders'
  | 'auth'
  | 'maxMessageBytes'
  | 'connectTimeoutMs'
  | 'headersTimeoutMs'
  | 'requestTimeoutMs'
  | 'proxy'
  | 'ca'
  | 'logger'
>;

interface Deferred {
  resolve(): void;
  reject(error: McpHostError): void;
}

/**
 * The HTTP+SSE transport of protocol 2024-11-05, client side (deprecated by the spec, still served
 * by many servers). `start()` GETs the SSE URL and waits for the `endpoint` event, which names the
 * URL to POST every message to; it must be on the SSE URL's origin (another origin is refused, so
 * headers and credentials never leave it). Server messages arrive as `message` events on the GET
 * stream, the only channel back: when it ends or breaks, the transport closes with the reason and
 * the peer fails every request in flight. Oversized events are skipped, reported as problems.
 * Requests go through a private undici pool (direct, or through the configured or environment
 * proxy, see createDispatcher) that `close()` destroys: no socket outlives it.
 */
export class LegacySseTransport implements Transport {
  readonly serverName: string | undefined;
  /** The SSE URL. */
  readonly url: URL;
  readonly #options: LegacySseTransportOptions;
  readonly #logger: Logger;
  readonly #maxMessageBytes: number;
  readonly #connectTimeoutMs: number;
  readonly #agent: Dispatcher;
  /** Aborted by `close()`: ends the GET stream (each POST has its own, aborted too). */
  readonly #closeCancel = new RequestCancel();
  /** The total deadlines of the POSTs, on one timer. */
  readonly #deadlines: PostDeadlines;
  readonly #tasks: TaskSet;
  readonly #events: TransportEvents;
  /** Every body or event discarded (each is reported too). */
  readonly #discards = { junkMessages: 0, oversizedMessages: 0 };
  readonly #problems: HttpProblems;
  /** Credentials from `headers` and the URL's query, and the endpoint's session id, until close. */
  readonly #secrets: Disposable[];
  #state: TransportState = 'new';
  #endpoint: URL | undefined;
  #endpointWaiter: Deferred | undefined;
  #reader: Promise<void> | undefined;
  /**
   * Settles when the last POST's response headers arrived (or it failed): each POST waits for the
   * one before it, so the server receives messages in the order they were sent.
   */
  #lastPost: Promise<void> = Promise.resolve();
  /** What undici's fetch used to ask for. */
  readonly #acceptEncoding: string;
  /** The headers of each kind of request, built once. */
  #postHeaders: Readonly<Record<string, string>> | undefined;
  #getHeaders: Readonly<Record<string, string>> | undefined;
  #closing: Promise<void> | undefined;

  readonly onMessage;
  readonly onProblem;
  readonly onClose;

  constructor(options: LegacySseTransportOptions) {
    this.#options = options;
    this.serverName = options.serverName;
    const endpoint = configureEndpoint(options);
    this.url = endpoint.url;
    this.#acceptEncoding = endpoint.acceptEncoding;
    this.#secrets = endpoint.secrets;
    this.#logger = options.logger ?? debugLogger;
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_HTTP_OPTIONS.maxMessageBytes;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_HTTP_OPTIONS.connectTimeoutMs;
    // The GET stream may idle for long (no body timeout); each POST has its own total deadline.
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
      connectTimeoutMs: this.#connectTimeoutMs,
      headersTimeoutMs: options.headersTimeoutMs ?? DEFAULT_HTTP_OPTIONS.headersTimeoutMs,
      totalTimeoutWhat: 'the POST got no answer',
      maybeExecutedOnBreak: false,
    });
    this.onMessage = this.#events.message.event;
    this.onProblem = this.#events.problem.event;
    this.onClose = this.#events.close.event;
  }

  /** What this transport discarded so far: SSE events that were not JSON, or too large. */
  get discards(): TransportDiscards {
    return { ...this.#discards };
  }

  get state(): TransportState {
    return this.#state;
  }

  /** The URL messages are POSTed to, once the server has named it in its `endpoint` event. */
  get endpoint(): URL | undefined {
    return this.#endpoint;
  }

  /**
   * Opens the GET stream and waits for the `endpoint` event, within `connectTimeoutMs`. Fails with
   * CONNECT_FAILED, CONNECT_TIMEOUT, HTTP_STATUS (the GET was refused), PROTOCOL_VIOLATION (no
   * event stream, or an endpoint on another origin) or ABORTED; the transport is closed then.
   */
  async start(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.#state !== 'new')
      throw this.#problems.error('INVALID_ARGUMENT', 'start() called twice');
    this.#state = 'starting';
    const timeoutMs = this.#connectTimeoutMs;
    // Ends the wait for the endpoint event: the deadline, the caller's signal or close().
    const stop = new RequestCancel();
    const timer = setTimeout(() => {
      stop.timedOut = true;
      stop.abort();
    }, timeoutMs);
    timer.unref();
    const stopNow = (): void => stop.abort();
    const offClose = this.#closeCancel.onAbort(stopNow);
    const offCaller = onAbort(options.signal, stopNow);
    const aborted = new Promise<never>((_resolve, reject) => {
      stop.onAbort(() => reject(new Error('aborted')));
    });
    aborted.catch(() => {});
    try {
      // The stream outlives start(), so only close() aborts the GET itself.
      const response = await Promise.race([
        this.#request('GET', this.url, { cancel: this.#closeCancel }),
        aborted,
      ]);
      if (!response.ok) throw this.#problems.statusError('GET', await readRefusal(response));
      const type = response.mediaType;
      if (type !== 'text/event-stream') {
        response.discard();
        throw this.#problems.error(
          'PROTOCOL_VIOLATION',
          `the SSE URL answered with content type '${type}', not text/event-stream`,
        );
      }
      const endpoint = new Promise<void>((resolve, reject) => {
        this.#endpointWaiter = { resolve, reject };
      });
      this.#reader = this.#read(response);
      await Promise.race([endpoint, aborted]);
      if (this.#state !== 'starting') throw new Error('closed while starting');
      this.#state = 'open';
    } catch (error) {
      const reason = this.#startError(error, options.signal, stop.timedOut ? timeoutMs : undefined);
      this.#endpointWaiter = undefined;
      this.#closing ??= this.#close(reason);
      await this.#closing;
      throw reason;
    } finally {
      clearTimeout(timer);
      offClose();
      offCaller();
    }
  }

  send(message: JsonRpcMessage): void {
    const body = this.#problems.bodyOf(message, this.#state);
    const previous = this.#lastPost;
    let accepted!: () => void;
    this.#lastPost = new Promise<void>((resolve) => (accepted = resolve));
    this.#tasks.track(this.#post(body, requestIdOf(message), previous, accepted));
  }

  close(): Promise<void> {
    this.#closing ??= this.#close(undefined);
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * What a failed start means, as one typed error: the caller's signal, the deadline, close(),
   * an error already typed, else the failed fetch (before the endpoint event nothing is connected
   * yet, so see `connectFailureOf`).
   */
  #startError(
    error: unknown,
    signal: AbortSignal | undefined,
    timedOutAfterMs: number | undefined,
  ): McpHostError {
    if (signal?.aborted)
      return this.#problems.error('ABORTED', 'start was cancelled by the caller', {
        cause: signal.reason,
      });
    if (timedOutAfterMs !== undefined)
      return this.#problems.error(
        'CONNECT_TIMEOUT',
        `no endpoint event from ${this.url.origin} within ${timedOutAfterMs} ms (connectTimeoutMs)`,
      );
    if (this.#closeCancel.aborted)
      return this.#problems.error('CONNECTION_CLOSED', 'the transport was closed while starting');
    if (error instanceof McpHostError) return error;
    return this.#problems.connectFailureOf(error);
  }

  /** Reads the GET stream until it ends, breaks or the transport closes. */
  async #read(response: HttpResponse): Promise<void> {
    let reason: McpHostError;
    try {
      await readSseEvents(response.body, this.#maxMessageBytes, {
        onEvent: (event) => this.#onEvent(event),
        onOversized: (bytes) =>
          this.#report(
            this.#problems.error(
              'MESSAGE_TOO_LARGE',
              `discarded an SSE event over the ${this.#maxMessageBytes}-byte limit (maxMessageBytes)`,
              { details: { bytes, maxMessageBytes: this.#maxMessageBytes } },
            ),
            undefined,
            'oversized',
          ),
      });
      reason = this.#problems.error('CONNECTION_CLOSED', 'the server ended the SSE stream');
    } catch (error) {
      if (this.#closeCancel.aborted) return;
      const errno = fetchErrno(error);
      reason = this.#problems.error(
        'STREAM_INTERRUPTED',
        `the SSE stream broke${errno === undefined ? '' : ` (${errno})`}`,
        {
          details: { maybeExecuted: true, ...(errno === undefined ? {} : { errno }) },
          cause: error,
        },
      );
    }
    if (this.#endpointWaiter !== undefined) {
      this.#endpointWaiter.reject(
        this.#problems.error(
          'CONNECT_FAILED',
          `the SSE stream ended before the endpoint event (${reason.message})`,
          { cause: reason },
        ),
      );
      return;
    }
    if (this.#state !== 'open' && this.#state !== 'starting') return;
    this.#logger.debug(reason.message);
    // Not awaited: close() waits for this reader, which is ending now.
    this.#closing ??= this.#close(reason);
  }

  #onEvent(event: EventSourceMessage): void {
    if (event.event === 'endpoint') {
      this.#onEndpoint(event.data);
      return;
    }
    if (event.event !== undefined && event.event !== 'message') {
      this.#logger.debug(
        aboutServer(this.serverName, `ignored an SSE event of type '${event.event}'`),
      );
      return;
    }
    if (event.data === '') return;
    const value = parseJson(event.data);
    if (value === undefined) {
      // A broken response that shows its id fails that request now.
      const broken = this.#problems.notJson('SSE event data', event.data);
      this.#report(broken, broken.requestId, 'junk');
      return;
    }
    if (this.#state === 'open' || this.#state === 'starting') this.#events.message.fire(value);
  }

  #onEndpoint(data: string): void {
    const waiter = this.#endpointWaiter;
    if (waiter === undefined) {
      this.#logger.debug(aboutServer(this.serverName, 'ignored a second endpoint event'));
      return;
    }
    this.#endpointWaiter = undefined;
    const endpoint = this.#resolveEndpoint(data);
    if (endpoint instanceof McpHostError) {
      waiter.reject(endpoint);
      return;
    }
    // The query usually carries the session id: a capability for the session, kept out of logs.
    for (const value of endpoint.searchParams.values())
      if (value.length >= 8) this.#secrets.push(addSecret(value));
    this.#endpoint = endpoint;
    waiter.resolve();
  }

  /**
   * The URL an `endpoint` event names, resolved against the SSE URL; a PROTOCOL_VIOLATION unless
   * it is a URL on the SSE URL's own origin (so headers and credentials never go anywhere else).
   */
  #resolveEndpoint(data: string): URL | McpHostError {
    let endpoint: URL;
    try {
      if (data.trim() === '') throw new Error('empty');
      endpoint = new URL(data.trim(), this.url);
    } catch (error) {
      return this.#problems.error(
        'PROTOCOL_VIOLATION',
        `the endpoint event is not a URL: ${preview(data, 80)}`,
        { cause: error },
      );
    }
    if (endpoint.origin !== this.url.origin) {
      return this.#problems.error(
        'PROTOCOL_VIOLATION',
        `the endpoint event names another origin (${endpoint.origin}); messages go to ${this.url.origin} only`,
        { details: { endpointOrigin: endpoint.origin } },
      );
    }
    return endpoint;
  }

  async #post(
    body: string,
    requestId: RequestId | undefined,
    previous: Promise<void>,
    accepted: () => void,
  ): Promise<void> {
    const cancel = new RequestCancel();
    this.#deadlines.add(cancel);
    try {
      await previous;
      if (cancel.aborted) throw new Error('aborted');
      const response = await this.#request('POST', this.#endpoint!, { body, cancel });
      // The server has the message: the next POST may go (its body is read meanwhile).
      accepted();
      if (!response.ok) {
        await this.#onRefusedPost(response, requestId);
        return;
      }
      // 202 Accepted is usual, 200 too; whatever the body says, the answer comes on the stream.
      await readBodyCapped(response.body, MAX_ERROR_BODY_BYTES, { truncate: true });
    } catch (error) {
      const timedOutAfterMs = cancel.timedOut ? this.#deadlines.timeoutMs : undefined;
      const closed = this.#closeCancel.aborted;
      const failure = this.#problems.failureOf(error, requestId, timedOutAfterMs, closed);
      const oversized = failure.code === 'MESSAGE_TOO_LARGE' ? 'oversized' : undefined;
      this.#report(failure, requestId, oversized);
    } finally {
      this.#deadlines.delete(cancel);
      accepted();
    }
  }

  /** A POST answered with an error status: a JSON-RPC error in the body answers the request. */
  async #onRefusedPost(response: HttpResponse, requestId: RequestId | undefined): Promise<void> {
    const refusal = await readRefusal(response);
    const answer = requestId === undefined ? undefined : errorAnswerIn(refusal.text, requestId);
    if (answer !== undefined) this.#events.message.fire(answer);
    else this.#report(this.#problems.statusError('POST', refusal, requestId), requestId);
  }

  /**
   * One request to the server's origin, with the configured headers and the auth provider's (asked
   * afresh for each try; one more try after a 401/403 when it has new credentials), following
   * redirects only within the origin.
   */
  async #request(
    method: 'GET' | 'POST',
    url: URL,
    request: { body?: string; cancel: RequestCancel },
  ): Promise<HttpResponse> {
    const auth = this.#options.auth;
    const headers = method === 'POST' ? this.#headersOf('post') : this.#headersOf('get');
    for (let attempt = 0; ; attempt++) {
      const response = await fetchSameOrigin({
        url,
        method,
        headers:
          auth === undefined ? headers : { ...headers, ...(await auth.headers({ url, method })) },
        body: request.body,
        cancel: request.cancel,
        dispatcher: this.#agent,
        serverName: this.serverName,
      });
      const retry =
        mayReauthorize(attempt, response) && reauthorize(auth, response, url, request.cancel);
      if (retry !== false && (await retry)) {
        response.discard();
        continue;
      }
      return response;
    }
  }

  /** The configured headers with the transport's own, built once per kind of request. */
  #headersOf(kind: 'post' | 'get'): Readonly<Record<string, string>> {
    if (kind === 'post')
      return (this.#postHeaders ??= {
        'accept-encoding': this.#acceptEncoding,
        ...this.#options.headers,
        'content-type': 'application/json',
      });
    return (this.#getHeaders ??= {
      'accept-encoding': this.#acceptEncoding,
      ...this.#options.headers,
      accept: 'text/event-stream',
    });
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

  async #close(reason: McpHostError | undefined): Promise<void> {
    if (this.#state === 'closed') return;
    this.#state = 'closing';
    this.#closeCancel.abort();
    this.#deadlines.abortAll();
    await this.#tasks.settled(this.#reader);
    for (const secret of this.#secrets.splice(0)) secret[Symbol.dispose]();
    await this.#agent.destroy().catch(() => {});
    this.#state = 'closed';
    this.#events.closed(reason);
  }
}
