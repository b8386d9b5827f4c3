import { endpointUrl } from './endpoint-url.js';
import type { Dispatcher } from 'undici';
import type { EventSourceMessage } from 'eventsource-parser';
import { addSecret, preview } from '../../errors/redact.js';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { debugLogger } from '../../internal/debug-logger.js';
import type { Disposable } from '../../internal/disposable.js';
import type { Logger } from '../../internal/logger.js';
import type { JsonRpcMessage } from '../../jsonrpc/message.js';
import type { Transport, TransportState } from '../../jsonrpc/transport.js';
import { TransportEvents } from '../transport-events.js';
import { authorizedFetch } from './authorized-fetch.js';
import { registerCredentialValues } from './credential-values.js';
import { createDispatcher } from './dispatcher.js';
import { errnoOf } from './fetch-errors.js';
import { HttpProblems, whereOf } from './http-problems.js';
import { readStatusError } from './http-status-error.js';
import type { HttpResponse } from './http-response.js';
import type { LegacySseTransportOptions } from './legacy-sse-options.js';
import { resolveEndpoint } from './legacy-sse-start.js';
import { startError } from './legacy-sse-start-error.js';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_HTTP_REQUEST_TIMEOUT_MS,
  DEFAULT_MAX_MESSAGE_BYTES,
  MAX_ERROR_BODY_BYTES,
} from './http-options.js';
import {
  isJsonRpcErrorResponse,
  parseJson,
  requestIdOf,
  type RequestId,
} from './message-shapes.js';
import { readBodyCapped } from './read-body.js';
import { PostDeadlines, RequestCancel } from './request-cancel.js';
import { readSseEvents } from './sse-event-reader.js';
import { contentType } from './sse-stream.js';
import { acceptEncodingOf } from './streamable-headers.js';
import { TaskSet } from '../../internal/task-set.js';

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
  readonly #agent: Dispatcher;
  /** Aborted by `close()`: ends the GET stream (each POST has its own, aborted too). */
  readonly #closeCancel = new RequestCancel();
  /** The total deadlines of the POSTs, on one timer. */
  readonly #deadlines: PostDeadlines;
  readonly #tasks: TaskSet;
  readonly #events: TransportEvents;
  readonly #problems: HttpProblems;
  /** Credentials from `headers` and the URL's query, and the endpoint's session id, until close. */
  readonly #secrets: Disposable[] = [];
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
    const where = whereOf(options.serverName);
    this.url = endpointUrl(options.url, where);
    this.#secrets.push(...registerCredentialValues(this.url, options.headers));
    this.#logger = options.logger ?? debugLogger;
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    // The GET stream may idle for long (no body timeout); each POST has its own total deadline.
    this.#agent = createDispatcher(options);
    this.#deadlines = new PostDeadlines(
      options.requestTimeoutMs ?? DEFAULT_HTTP_REQUEST_TIMEOUT_MS,
    );
    this.#acceptEncoding = acceptEncodingOf(this.url);
    this.#events = new TransportEvents(this.#logger, where);
    this.#tasks = new TaskSet((error) =>
      this.#logger.error(`${where}internal error`, { error: String(error) }),
    );
    this.#problems = new HttpProblems({
      serverName: options.serverName,
      url: this.url,
      logger: this.#logger,
      events: this.#events,
      closeCancel: this.#closeCancel,
      maxMessageBytes: this.#maxMessageBytes,
      connectTimeoutMs: options.connectTimeoutMs,
      headersTimeoutMs: options.headersTimeoutMs,
      totalTimeoutWhat: 'the POST got no answer',
      maybeExecutedOnBreak: false,
    });
    this.onMessage = this.#events.message.event;
    this.onProblem = this.#events.problem.event;
    this.onClose = this.#events.close.event;
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
      throw new McpHostError('INVALID_ARGUMENT', `${this.#problems.where}start() called twice`);
    this.#state = 'starting';
    const timeoutMs = this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    // Ends the wait for the endpoint event: the deadline, the caller's signal or close().
    const stop = new RequestCancel();
    const timer = setTimeout(() => {
      stop.timedOut = true;
      stop.abort();
    }, timeoutMs);
    timer.unref();
    const onAbort = (): void => stop.abort();
    const offClose = this.#closeCancel.onAbort(onAbort);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
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
      if (!response.ok) throw (await readStatusError(response, this.#context('GET'))).error;
      const type = contentType(response);
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
      const reason = startError(error, {
        problems: this.#problems,
        url: this.url,
        serverName: this.serverName,
        callerSignal: options.signal,
        timedOutAfterMs: stop.timedOut ? timeoutMs : undefined,
        closed: this.#closeCancel.aborted,
      });
      this.#endpointWaiter = undefined;
      this.#closing ??= this.#close(reason);
      await this.#closing;
      throw reason;
    } finally {
      clearTimeout(timer);
      offClose();
      options.signal?.removeEventListener('abort', onAbort);
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

  /** Reads the GET stream until it ends, breaks or the transport closes. */
  async #read(response: HttpResponse): Promise<void> {
    let reason: McpHostError;
    try {
      await readSseEvents(response.body, this.#maxMessageBytes, {
        onEvent: (event) => this.#onEvent(event),
        onOversized: (bytes) =>
          this.#problems.report(
            'MESSAGE_TOO_LARGE',
            `discarded an SSE event over the ${this.#maxMessageBytes}-byte limit (maxMessageBytes)`,
            undefined,
            { bytes, maxMessageBytes: this.#maxMessageBytes },
          ),
      });
      reason = this.#problems.error('CONNECTION_CLOSED', 'the server ended the SSE stream');
    } catch (error) {
      if (this.#closeCancel.aborted) return;
      const errno = errnoOf(error);
      reason = this.#problems.error(
        'STREAM_INTERRUPTED',
        `the SSE stream broke${errno === undefined ? '' : ` (${errno})`}`,
        { maybeExecuted: true, ...(errno === undefined ? {} : { errno }) },
        error,
      );
    }
    if (this.#endpointWaiter !== undefined) {
      this.#endpointWaiter.reject(
        this.#problems.error(
          'CONNECT_FAILED',
          `the SSE stream ended before the endpoint event (${reason.message})`,
          undefined,
          reason,
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
      this.#logger.debug(`${this.#problems.where}ignored an SSE event of type '${event.event}'`);
      return;
    }
    if (event.data === '') return;
    const value = parseJson(event.data);
    if (value === undefined) {
      this.#problems.report(
        'INVALID_MESSAGE',
        `SSE event data is not JSON: ${preview(event.data, 80)}`,
      );
      return;
    }
    if (this.#state === 'open' || this.#state === 'starting') this.#events.message.fire(value);
  }

  #onEndpoint(data: string): void {
    const waiter = this.#endpointWaiter;
    if (waiter === undefined) {
      this.#logger.debug(`${this.#problems.where}ignored a second endpoint event`);
      return;
    }
    this.#endpointWaiter = undefined;
    const endpoint = resolveEndpoint(data, this.url);
    if (!(endpoint instanceof URL)) {
      waiter.reject(this.#problems.failure(endpoint));
      return;
    }
    // The query usually carries the session id: a capability for the session, kept out of logs.
    for (const value of endpoint.searchParams.values())
      if (value.length >= 8) this.#secrets.push(addSecret(value));
    this.#endpoint = endpoint;
    waiter.resolve();
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
        await this.#onFailedPost(response, requestId);
        return;
      }
      // 202 Accepted is usual, 200 too; whatever the body says, the answer comes on the stream.
      await readBodyCapped(response.body, MAX_ERROR_BODY_BYTES, { truncate: true });
    } catch (error) {
      this.#problems.reportFailure(
        error,
        requestId,
        cancel.timedOut ? this.#deadlines.timeoutMs : undefined,
      );
    } finally {
      this.#deadlines.delete(cancel);
      accepted();
    }
  }

  async #onFailedPost(response: HttpResponse, requestId: RequestId | undefined): Promise<void> {
    const { error, text } = await readStatusError(response, this.#context('POST', requestId));
    // A JSON-RPC error in the body answers the request (the HTTP status only frames it).
    if (requestId !== undefined) {
      const value = parseJson(text);
      if (isJsonRpcErrorResponse(value) && (value.id === requestId || value.id == null)) {
        this.#events.message.fire({ ...value, id: requestId });
        return;
      }
    }
    this.#logger.debug(error.message);
    this.#events.reportProblem(error, requestId);
  }

  /** One request to the server's origin, with the configured headers and auth. */
  #request(
    method: 'GET' | 'POST',
    url: URL,
    request: { body?: string; cancel: RequestCancel },
  ): Promise<HttpResponse> {
    return authorizedFetch({
      url,
      method,
      headers: method === 'POST' ? this.#headersOf('post') : this.#headersOf('get'),
      auth: this.#options.auth,
      body: request.body,
      cancel: request.cancel,
      dispatcher: this.#agent,
      where: this.#problems.where,
      serverName: this.serverName,
    });
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

  #context(method: string, requestId?: RequestId) {
    return { method, where: this.#problems.where, serverName: this.serverName, requestId };
  }
}
