import { endpointUrl } from './endpoint-url.js';
import type { Dispatcher } from 'undici';
import { addSecret, McpHostError, preview } from '../../errors/index.js';
import { debugLogger } from '../../internal/debug-logger.js';
import type { Disposable } from '../../internal/disposable.js';
import { TransportEvents } from '../transport-events.js';
import type { Logger } from '../../internal/logger.js';
import { settlesWithin } from '../../internal/wait.js';
import type { JsonRpcMessage } from '../../jsonrpc/message.js';
import type { RequestHeaders, Transport, TransportState } from '../../jsonrpc/transport.js';
import {
  DEFAULT_CLOSE_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_HTTP_REQUEST_TIMEOUT_MS,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_RECONNECTS,
  MAX_ERROR_BODY_BYTES,
  MAX_ERROR_PREVIEW_CHARS,
  type StreamableHttpTransportOptions,
} from './http-options.js';
import { registerCredentialValues } from './credential-values.js';
import { createDispatcher } from './dispatcher.js';
import { classifyFetchFailure } from './fetch-errors.js';
import type { HttpResponse } from './http-response.js';
import { PostDeadlines, RequestCancel } from './request-cancel.js';
import { fetchSameOrigin } from './same-origin-fetch.js';
import {
  isJsonRpcErrorResponse,
  parseJson,
  requestIdOf,
  type RequestId,
} from './message-shapes.js';
import { LegacySseTransport } from './legacy-sse-transport.js';
import { BodyTooLargeError, readBodyCapped, utf8 } from './read-body.js';
import { parseRetryAfter } from './retry-after.js';
import {
  consumeSse,
  contentType,
  freshOutcome,
  listenSse,
  type SseHost,
  type StreamOutcome,
} from './sse-stream.js';

/** Visible ASCII (0x21..0x7E), as the spec requires of a session id. */
const SESSION_ID_PATTERN = /^[\x21-\x7e]+$/;

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
  readonly #tasks = new Set<Promise<void>>();
  readonly #events: TransportEvents;
  /** What the SSE readers (sse-stream.ts) use of this transport. */
  readonly #sse: SseHost;
  #state: TransportState = 'new';
  #sessionId: string | undefined;
  #sessionSecret: Disposable | undefined;
  /** Credentials given in `headers` or the URL's query, registered as secrets until close. */
  readonly #configuredSecrets: Disposable[];
  #protocolVersion: string | undefined;
  #requestHeaders: RequestHeaders | undefined;
  /**
   * The headers of a POST without per-message or auth headers, built once per change of session
   * or protocol version (and sent as this very object), and the part of them that comes after
   * the auth provider's; undefined when out of date.
   */
  #postHeaders: Readonly<Record<string, string>> | undefined;
  #postTail: Readonly<Record<string, string>> | undefined;
  readonly #acceptEncoding: string;
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
    this.url = endpointUrl(options.url, this.#where());
    this.#configuredSecrets = registerCredentialValues(this.url, options.headers);
    this.#logger = options.logger ?? debugLogger;
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#protocolVersion = options.protocolVersion;
    this.#agent = createDispatcher(options);
    this.#deadlines = new PostDeadlines(
      options.requestTimeoutMs ?? DEFAULT_HTTP_REQUEST_TIMEOUT_MS,
    );
    // What undici's fetch used to ask for.
    this.#acceptEncoding = this.url.protocol === 'https:' ? 'br, gzip, deflate' : 'gzip, deflate';
    this.#events = new TransportEvents(this.#logger, this.#where());
    this.#sse = {
      maxMessageBytes: this.#maxMessageBytes,
      maxReconnects: options.maxReconnects ?? DEFAULT_MAX_RECONNECTS,
      logger: this.#logger,
      where: this.#where(),
      isOpen: () => this.#state === 'open',
      deliver: (value) => this.#events.message.fire(value),
      problem: (code, message, requestId, details) =>
        this.#problem(code, message, requestId, details),
      get: (request) => this.#request('GET', request),
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
    return this.#sessionId !== undefined;
  }

  /** The `MCP-Protocol-Version` header sent now, if any. */
  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  /** Sets the `MCP-Protocol-Version` header for every later request (`undefined` leaves it out). */
  setProtocolVersion(version: string | undefined): void {
    this.#protocolVersion = version;
    this.#postHeaders = undefined;
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
        new McpHostError('INVALID_ARGUMENT', `${this.#where()}start() called twice`),
      );
    if (options.signal?.aborted) {
      const error = new McpHostError(
        'ABORTED',
        `${this.#where()}start was cancelled by the caller`,
        {
          cause: options.signal.reason,
        },
      );
      this.#finish(error);
      return Promise.reject(error);
    }
    this.#state = 'open';
    return Promise.resolve();
  }

  send(message: JsonRpcMessage): void {
    if (this.#state !== 'open') {
      const code =
        this.#state === 'new' || this.#state === 'starting' ? 'NOT_CONNECTED' : 'CONNECTION_CLOSED';
      throw new McpHostError(
        code,
        `${this.#where()}cannot send: the connection is ${this.#state}`,
        {
          serverName: this.serverName,
        },
      );
    }
    let body: string;
    try {
      body = JSON.stringify(message);
    } catch (error) {
      throw new McpHostError('INVALID_ARGUMENT', `${this.#where()}message is not serialisable`, {
        serverName: this.serverName,
        cause: error,
      });
    }
    const requestId = requestIdOf(message);
    this.#track(this.#post(body, requestId, this.#requestHeaders?.(message)));
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #track(task: Promise<void>): void {
    const tracked = task.catch((error: unknown) =>
      this.#logger.error(`${this.#where()}internal error`, { error: String(error) }),
    );
    this.#tasks.add(tracked);
    void tracked.finally(() => this.#tasks.delete(tracked));
  }

  async #post(
    body: string,
    requestId: RequestId | undefined,
    extraHeaders: Readonly<Record<string, string>> | undefined,
  ): Promise<void> {
    const cancel = new RequestCancel();
    this.#deadlines.add(cancel);
    const sentSession = this.#sessionId;
    if (requestId !== undefined) this.#inFlight.set(requestId, cancel);
    try {
      const response = await this.#request('POST', { body, cancel, extraHeaders });
      if (response === undefined) return;
      if (!response.ok) {
        await this.#onFailedPost(response, requestId, sentSession);
        return;
      }
      this.#adoptSession(response);
      if (sentSession !== undefined || response.status === 202) this.#maybeOpenGetStream();
      const type = contentType(response);
      if (type === 'text/event-stream') {
        const outcome = await consumeSse(this.#sse, response, cancel, requestId);
        if (requestId !== undefined && !outcome.answered && this.#state === 'open')
          await this.#resume(requestId, outcome, cancel);
      } else if (type === 'application/json') {
        const bytes = await readBodyCapped(response.body, this.#maxMessageBytes);
        // A JSON body answering a notification or response is tolerated and dropped.
        if (requestId !== undefined) this.#deliverJson(bytes, requestId);
      } else {
        response.discard();
        if (requestId !== undefined || (type !== '' && response.status !== 202)) {
          this.#problem(
            'INVALID_MESSAGE',
            `unexpected response content type '${type}' (status ${response.status})`,
            requestId,
          );
        }
      }
    } catch (error) {
      // An abandoned request has been settled by the peer already: nobody waits for a report.
      if (!cancel.abandoned)
        this.#problemFrom(
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
          ? this.#postHeadersWith(request.extraHeaders, authHeaders)
          : this.#otherHeaders(method, authHeaders, request.lastEventId);
      const response = await fetchSameOrigin({
        url: this.url,
        method,
        headers,
        body: request.body,
        cancel: request.cancel,
        dispatcher: this.#agent,
        where: this.#where(),
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

  /**
   * A POST's headers, lowest precedence first: `Accept-Encoding` (as fetch sent it), the
   * configured `headers`, this message's extra headers, the auth provider's, then the transport's
   * own (content type, accept, session id, protocol version). With neither extra nor auth
   * headers, one cached object serves every POST until the session or version changes.
   */
  #postHeadersWith(
    extra: Readonly<Record<string, string>> | undefined,
    auth: Readonly<Record<string, string>> | undefined,
  ): Readonly<Record<string, string>> {
    if (this.#postHeaders === undefined) {
      const tail: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      };
      if (this.#sessionId !== undefined) tail['mcp-session-id'] = this.#sessionId;
      if (this.#protocolVersion !== undefined) tail['mcp-protocol-version'] = this.#protocolVersion;
      this.#postTail = tail;
      this.#postHeaders = {
        'accept-encoding': this.#acceptEncoding,
        ...this.#options.headers,
        ...tail,
      };
    }
    if (extra === undefined && auth === undefined) return this.#postHeaders;
    return {
      'accept-encoding': this.#acceptEncoding,
      ...this.#options.headers,
      ...extra,
      ...auth,
      ...this.#postTail,
    };
  }

  /** The headers of a GET or DELETE (rare: built each time). */
  #otherHeaders(
    method: 'GET' | 'DELETE',
    auth: Readonly<Record<string, string>> | undefined,
    lastEventId: string | undefined,
  ): Record<string, string> {
    const headers: Record<string, string> = {
      'accept-encoding': this.#acceptEncoding,
      ...this.#options.headers,
      ...auth,
    };
    if (method === 'GET') headers.accept = 'text/event-stream';
    if (this.#sessionId !== undefined) headers['mcp-session-id'] = this.#sessionId;
    if (this.#protocolVersion !== undefined)
      headers['mcp-protocol-version'] = this.#protocolVersion;
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    return headers;
  }

  async #onFailedPost(
    response: HttpResponse,
    requestId: RequestId | undefined,
    sentSession: string | undefined,
  ): Promise<void> {
    const bytes = await readBodyCapped(response.body, MAX_ERROR_BODY_BYTES, { truncate: true });
    const text = utf8(bytes);
    if (response.status === 404 && sentSession !== undefined) {
      if (this.#sessionId === sentSession) this.#dropSession();
      this.#problem(
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
        this.#events.message.fire({ ...value, id: requestId });
        return;
      }
    }
    const wwwAuthenticate = response.header('www-authenticate') ?? undefined;
    const retryAfterMs = parseRetryAfter(response.header('retry-after'));
    this.#problem(
      'HTTP_STATUS',
      `HTTP ${response.status}${text === '' ? '' : `: ${preview(text, MAX_ERROR_PREVIEW_CHARS)}`}`,
      requestId,
      {
        status: response.status,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        ...(wwwAuthenticate === undefined
          ? {}
          : { wwwAuthenticate: preview(wwwAuthenticate, 512) }),
      },
    );
  }

  #deliverJson(bytes: Buffer, requestId: RequestId): void {
    const text = utf8(bytes);
    if (text.trim() === '') {
      this.#problem('INVALID_MESSAGE', 'empty JSON response to a request', requestId);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#problem(
        'INVALID_MESSAGE',
        `response body is not JSON: ${preview(text, 80)}`,
        requestId,
      );
      return;
    }
    this.#events.message.fire(value);
  }

  /** A POST's stream ended before its response: resume it with GET and `Last-Event-ID`. */
  async #resume(
    requestId: RequestId,
    outcome: StreamOutcome,
    cancel: RequestCancel,
  ): Promise<void> {
    if (outcome.lastEventId === undefined) {
      this.#problem(
        'STREAM_INTERRUPTED',
        'the response stream ended before the response, and carried no event id to resume from',
        requestId,
        { maybeExecuted: true },
      );
      return;
    }
    const answered = await listenSse(this.#sse, outcome, cancel, requestId);
    // The POST's deadline (or close) ended the resumption: #post reports which.
    if (!answered && cancel.aborted) throw new Error('aborted');
    if (!answered && this.#state === 'open') {
      this.#problem(
        'STREAM_INTERRUPTED',
        'the response stream could not be resumed before the reconnect limit',
        requestId,
        { maybeExecuted: true },
      );
    }
  }

  #maybeOpenGetStream(): void {
    if (this.#getStreamOpened || this.#options.openGetStream === false || this.#state !== 'open')
      return;
    this.#getStreamOpened = true;
    this.#track(listenSse(this.#sse, freshOutcome(), this.#closeCancel).then(() => {}));
  }

  #adoptSession(response: HttpResponse): void {
    const id = response.header('mcp-session-id');
    if (id === null || id === this.#sessionId) return;
    if (!SESSION_ID_PATTERN.test(id)) {
      this.#problem('PROTOCOL_VIOLATION', 'the server sent a session id with invalid characters');
      return;
    }
    if (this.#sessionId !== undefined) return;
    this.#sessionSecret = addSecret(id);
    this.#sessionId = id;
    this.#postHeaders = undefined;
  }

  #dropSession(): void {
    this.#sessionId = undefined;
    this.#postHeaders = undefined;
    // The new session (if the client opens one) gets its own GET stream.
    this.#getStreamOpened = false;
    this.#sessionSecret?.[Symbol.dispose]();
    this.#sessionSecret = undefined;
  }

  async #close(): Promise<void> {
    if (this.#state === 'closed') return;
    const wasOpen = this.#state === 'open';
    this.#state = 'closing';
    this.#closeCancel.abort();
    this.#deadlines.abortAll();
    await Promise.allSettled([...this.#tasks]);
    if (wasOpen && this.#sessionId !== undefined) {
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

  #problemFrom(
    error: unknown,
    requestId: RequestId | undefined,
    timedOutAfterMs: number | undefined,
  ): void {
    if (error instanceof McpHostError) {
      this.#events.reportProblem(error, requestId);
      return;
    }
    if (error instanceof BodyTooLargeError) {
      this.#problem(
        'MESSAGE_TOO_LARGE',
        `discarded a ${error.bytes}-byte response body, over the ${this.#maxMessageBytes}-byte limit (maxMessageBytes)`,
        requestId,
        { bytes: error.bytes, maxMessageBytes: this.#maxMessageBytes },
      );
      return;
    }
    if (this.#closeCancel.aborted) {
      this.#problem(
        'CONNECTION_CLOSED',
        'the transport closed while the request was in flight',
        requestId,
      );
      return;
    }
    if (timedOutAfterMs !== undefined) {
      this.#problem(
        'REQUEST_TIMEOUT',
        `no complete HTTP response within ${timedOutAfterMs} ms`,
        requestId,
        {
          kind: 'total',
        },
      );
      return;
    }
    const failure = classifyFetchFailure(error, this.url, {
      connectTimeoutMs: this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      headersTimeoutMs: this.#options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
    });
    // The connection broke after the request went out: the server may have run it.
    const details =
      failure.code === 'HTTP_REQUEST_FAILED' && requestId !== undefined
        ? { ...failure.details, maybeExecuted: true }
        : failure.details;
    this.#problem(failure.code, failure.message, requestId, details, error);
  }

  #problem(
    code: McpHostError['code'],
    message: string,
    requestId?: RequestId,
    details?: Record<string, unknown>,
    cause?: unknown,
  ): void {
    const error = new McpHostError(code, `${this.#where()}${message}`, {
      serverName: this.serverName,
      requestId,
      details,
      cause,
    });
    this.#logger.debug(error.message);
    this.#events.reportProblem(error, requestId);
  }

  #where(): string {
    return this.serverName === undefined ? '' : `server '${this.serverName}': `;
  }
}
