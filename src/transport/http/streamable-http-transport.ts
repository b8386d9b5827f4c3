import { endpointUrl } from './endpoint-url.js';
import type { Dispatcher } from 'undici';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { debugLogger } from '../../internal/debug-logger.js';
import type { Disposable } from '../../internal/disposable.js';
import { TransportEvents } from '../transport-events.js';
import type { Logger } from '../../internal/logger.js';
import { settlesWithin } from '../../internal/wait.js';
import type { JsonRpcMessage } from '../../jsonrpc/message.js';
import type { RequestHeaders, Transport, TransportState } from '../../jsonrpc/transport.js';
import {
  DEFAULT_CLOSE_TIMEOUT_MS,
  DEFAULT_HTTP_REQUEST_TIMEOUT_MS,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_RECONNECTS,
  type StreamableHttpTransportOptions,
} from './http-options.js';
import { registerCredentialValues } from './credential-values.js';
import { createDispatcher } from './dispatcher.js';
import { HttpProblems, whereOf } from './http-problems.js';
import type { HttpResponse } from './http-response.js';
import { PostDeadlines, RequestCancel } from './request-cancel.js';
import { fetchSameOrigin } from './same-origin-fetch.js';
import { requestIdOf, type RequestId } from './message-shapes.js';
import { LegacySseTransport } from './legacy-sse-transport.js';
import {
  deliverJson,
  onFailedPost,
  resumeResponse,
  type PostExchangeHost,
} from './post-exchange.js';
import { readBodyCapped } from './read-body.js';
import { HttpSession } from './session.js';
import { consumeSse, contentType, freshOutcome, listenSse, type SseHost } from './sse-stream.js';
import { StreamableHeaders } from './streamable-headers.js';
import { TaskSet } from '../../internal/task-set.js';

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
 */
export class StreamableHttpTransport implements Transport {
  readonly serverName: string | undefined;
  readonly url: URL;
  readonly #options: StreamableHttpTransportOptions;
  readonly #logger: Logger;
  readonly #maxMessageBytes: number;
  readonly #agent: Dispatcher;
  /** Aborted by `close()`: ends the GET stream (each POST has its own, aborted too). */
  readonly #closeCancel = new RequestCancel();
  readonly #deadlines: PostDeadlines;
  readonly #tasks: TaskSet;
  readonly #events: TransportEvents;
  readonly #problems: HttpProblems;
  /** What the SSE readers (sse-stream.ts) use of this transport. */
  readonly #sse: SseHost;
  /** What the answer handling (post-exchange.ts) uses of this transport. */
  readonly #exchange: PostExchangeHost;
  #state: TransportState = 'new';
  readonly #session = new HttpSession();
  /** Credentials given in `headers` or the URL's query, registered as secrets until close. */
  readonly #configuredSecrets: Disposable[];
  #requestHeaders: RequestHeaders | undefined;
  readonly #headers: StreamableHeaders;
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
    const where = whereOf(options.serverName);
    this.url = endpointUrl(options.url, where);
    this.#configuredSecrets = registerCredentialValues(this.url, options.headers);
    this.#logger = options.logger ?? debugLogger;
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#headers = new StreamableHeaders(
      this.url,
      options.headers,
      this.#session,
      options.protocolVersion,
    );
    this.#agent = createDispatcher(options);
    this.#deadlines = new PostDeadlines(
      options.requestTimeoutMs ?? DEFAULT_HTTP_REQUEST_TIMEOUT_MS,
    );
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
      totalTimeoutWhat: 'no complete HTTP response',
      maybeExecutedOnBreak: true,
    });
    this.#sse = {
      maxMessageBytes: this.#maxMessageBytes,
      maxReconnects: options.maxReconnects ?? DEFAULT_MAX_RECONNECTS,
      logger: this.#logger,
      where,
      isOpen: () => this.#state === 'open',
      deliver: (value) => this.#events.message.fire(value),
      problem: (code, message, requestId, details) =>
        this.#problems.report(code, message, requestId, details),
      get: (request) => this.#request('GET', request),
    };
    this.#exchange = {
      problems: this.#problems,
      events: this.#events,
      sse: this.#sse,
      sessionId: () => this.#session.id,
      dropSession: () => this.#dropSession(),
    };
    this.onMessage = this.#events.message.event;
    this.onProblem = this.#events.problem.event;
    this.onClose = this.#events.close.event;
  }

  get state(): TransportState {
    return this.#state;
  }

  /** True while the server has given this transport a session id (the value itself stays private). */
  get hasSession(): boolean {
    return this.#session.id !== undefined;
  }

  /** The `MCP-Protocol-Version` header sent now, if any. */
  get protocolVersion(): string | undefined {
    return this.#headers.protocolVersion;
  }

  /** Sets the `MCP-Protocol-Version` header for every later request (`undefined` leaves it out). */
  setProtocolVersion(version: string | undefined): void {
    this.#headers.protocolVersion = version;
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
      return Promise.reject(
        new McpHostError('INVALID_ARGUMENT', `${this.#problems.where}start() called twice`),
      );
    if (options.signal?.aborted) {
      const error = new McpHostError(
        'ABORTED',
        `${this.#problems.where}start was cancelled by the caller`,
        { cause: options.signal.reason },
      );
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
      if (response === undefined) return;
      if (!response.ok) {
        await onFailedPost(this.#exchange, response, requestId, sentSession);
        return;
      }
      if (this.#session.adopt(response, this.#problems)) this.#headers.invalidate();
      if (sentSession !== undefined || response.status === 202) this.#maybeOpenGetStream();
      const type = contentType(response);
      if (type === 'text/event-stream') {
        const outcome = await consumeSse(this.#sse, response, cancel, requestId);
        if (requestId !== undefined && !outcome.answered && this.#state === 'open')
          await resumeResponse(this.#exchange, requestId, outcome, cancel);
      } else if (type === 'application/json') {
        const bytes = await readBodyCapped(response.body, this.#maxMessageBytes);
        // A JSON body answering a notification or response is tolerated and dropped.
        if (requestId !== undefined) deliverJson(this.#exchange, bytes, requestId);
      } else {
        response.discard();
        if (requestId !== undefined || (type !== '' && response.status !== 202)) {
          this.#problems.report(
            'INVALID_MESSAGE',
            `unexpected response content type '${type}' (status ${response.status})`,
            requestId,
          );
        }
      }
    } catch (error) {
      // An abandoned request has been settled by the peer already: nobody waits for a report.
      if (!cancel.abandoned)
        this.#problems.reportFailure(
          error,
          requestId,
          cancel.timedOut ? this.#deadlines.timeoutMs : undefined,
        );
    } finally {
      this.#deadlines.delete(cancel);
      if (requestId !== undefined && this.#inFlight.get(requestId) === cancel)
        this.#inFlight.delete(requestId);
    }
  }

  /**
   * One HTTP request with headers, auth (one retry after a 401/403 if the provider has new
   * credentials) and redirects followed only within the endpoint's origin (and, for POST, only
   * the method-preserving 307/308). Returns undefined when the transport closed meanwhile.
   */
  async #request(
    method: 'POST' | 'GET' | 'DELETE',
    request: {
      body?: string;
      cancel: RequestCancel;
      lastEventId?: string;
      extraHeaders?: Readonly<Record<string, string>>;
    },
  ): Promise<HttpResponse | undefined> {
    const auth = this.#options.auth;
    for (let attempt = 0; ; attempt++) {
      const authHeaders =
        auth === undefined ? undefined : await auth.headers({ url: this.url, method });
      const headers =
        method === 'POST'
          ? this.#headers.post(request.extraHeaders, authHeaders)
          : this.#headers.other(method, authHeaders, request.lastEventId);
      const response = await fetchSameOrigin({
        url: this.url,
        method,
        headers,
        body: request.body,
        cancel: request.cancel,
        dispatcher: this.#agent,
        where: this.#problems.where,
        serverName: this.serverName,
      });
      if (
        (response.status === 401 || response.status === 403) &&
        attempt === 0 &&
        auth?.onUnauthorized !== undefined
      ) {
        const retry = await auth.onUnauthorized({
          status: response.status,
          wwwAuthenticate: response.header('www-authenticate') ?? undefined,
          url: this.url,
          signal: request.cancel.signal,
        });
        if (retry) {
          response.discard();
          continue;
        }
      }
      return response;
    }
  }

  #maybeOpenGetStream(): void {
    if (this.#getStreamOpened || this.#options.openGetStream === false || this.#state !== 'open')
      return;
    this.#getStreamOpened = true;
    this.#tasks.track(listenSse(this.#sse, freshOutcome(), this.#closeCancel).then(() => {}));
  }

  #dropSession(): void {
    this.#session.drop();
    this.#headers.invalidate();
    // The new session (if the client opens one) gets its own GET stream.
    this.#getStreamOpened = false;
  }

  async #close(): Promise<void> {
    if (this.#state === 'closed') return;
    const wasOpen = this.#state === 'open';
    this.#state = 'closing';
    this.#closeCancel.abort();
    this.#deadlines.abortAll();
    await this.#tasks.settled();
    if (wasOpen && this.#session.id !== undefined) {
      const timeoutMs = this.#options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
      const cancel = new RequestCancel();
      const timer = setTimeout(() => cancel.abort(), timeoutMs);
      const remove = this.#request('DELETE', { cancel })
        .then((response) => response?.discard())
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
