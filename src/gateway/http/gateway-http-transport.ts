import type { ServerResponse } from 'node:http';
import { McpHostError } from '../../errors/mcp-host-error.js';
import type { Logger } from '../../internal/logger.js';
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from '../../jsonrpc/message.js';
import type { Transport, TransportState } from '../../jsonrpc/transport.js';
import { isObject } from '../../protocol/guards.js';
import { McpMethod } from '../../protocol/methods.js';
import { SSE_RESPONSE_HEADERS, SseWriter, type SseEvent } from '../../transport/http/sse-writer.js';
import { TransportEvents } from '../../transport/transport-events.js';
import { HttpJsonRpcCode, replyEmpty, replyError } from './http-replies.js';
import { modernErrorStatus } from './modern-post-rules.js';
import { ReplayBuffer, type ReplayBufferOptions, type ReplayedEvent } from './replay-buffer.js';

/** The header that carries a legacy session's id, both ways. */
export const SESSION_ID_HEADER = 'mcp-session-id';

/** The reconnection delay a priming event tells the client (the SSE `retry` field). */
const SSE_RETRY_MS = 1000;

/** The first protocol version whose SSE streams start with a priming event (SEP-1699). */
const PRIMING_VERSION = '2025-11-25';

/**
 * How long a primed session's POST waits before its answer becomes a resumable SSE stream. A
 * call answered sooner (most are) gets plain JSON: no stream, no replay buffer. Nothing waits on
 * this: a progress notification or a server request starts the stream at once, the response goes
 * out as soon as it comes; only the priming event is later.
 */
const PRIME_AFTER_MS = 25;

/** Options of a `GatewayHttpTransport`. */
export interface GatewayHttpTransportOptions {
  /** A legacy session's id (sent back on every response); undefined for a one-shot exchange. */
  sessionId?: string;
  /**
   * A one-shot exchange of a 2026-07-28 request: an error answered as JSON gets the era's HTTP
   * status (404 for -32601, 400 for -32020, -32021, -32022; see `modernErrorStatus`).
   */
  modern?: boolean;
  /** A session with no open exchange or stream for this long closes (`SESSION_EXPIRED`). */
  idleMs: number;
  /** Open GET streams per session; one more is refused with 409. */
  maxStreams: number;
  /** An SSE response with more than this waiting unread is dropped (the client stopped reading). */
  maxBufferedBytes: number;
  /** A session's events held for resumption (`Last-Event-ID`); default: 256 events, 4 MiB. */
  replay?: ReplayBufferOptions;
  logger: Logger;
}

/** The defaults of `GatewayHttpTransportOptions.replay`. */
const DEFAULT_REPLAY: ReplayBufferOptions = { maxEvents: 256, maxBytes: 4 * 1024 * 1024 };

/**
 * An SSE stream to the client: its number in the session's replay buffer (none on a one-shot
 * connection, whose streams cannot be resumed) and the response it goes out on now (none while
 * the client is away: what is sent meanwhile is held for its resumption).
 */
interface OutStream {
  readonly number: number | undefined;
  writer: SseWriter | undefined;
}

/** What a stream of the replay buffer is: a POST's answer, or a GET stream. */
type StreamTag = PostStream | 'get';

/**
 * A POST's stream as the replay buffer knows it: its exchange while that is open, nothing once it
 * is settled (a settled exchange's request and response must not live on in the buffer).
 */
interface PostStream {
  live: Exchange | undefined;
}

/** How a POST may be answered, from its `Accept` header. */
export interface PostAccepts {
  json: boolean;
  sse: boolean;
}

/** One POST whose requests wait for their responses. */
interface Exchange {
  readonly res: ServerResponse;
  readonly batch: boolean;
  readonly accepts: PostAccepts;
  /** Its requests not answered yet. */
  readonly pending: Set<RequestId>;
  /** The progress tokens its requests carry. */
  readonly progressTokens: Array<string | number>;
  /** Responses held for a JSON answer (a batch is answered with all of them at once). */
  readonly held: JsonRpcMessage[];
  /** Its answer as an SSE stream, once that began. */
  sse: OutStream | undefined;
  /** What the replay buffer keeps for that stream. */
  tag: PostStream | undefined;
  /** Starts the primed stream of a call not answered within `PRIME_AFTER_MS`. */
  primeTimer: NodeJS.Timeout | undefined;
  /** The POST's response closed before all was answered (the client went away). */
  gone: boolean;
  done: boolean;
}

/**
 * The messages of one gateway client over Streamable HTTP, as a `Transport` the gateway serves
 * like any other: what the client POSTs arrives as messages; what the gateway sends goes out on
 * the right HTTP response. A response goes to the POST that carried its request (JSON, or SSE
 * once something was streamed before it); a progress notification to the POST whose request
 * carries its token (turning that answer into an SSE stream); a server-to-client request to a POST
 * already streaming, else the session's GET stream, else any POST that accepts SSE; any other
 * notification (`list_changed`) to the GET stream, or nowhere when none is open.
 *
 * Two kinds. A **session** (`sessionId` set; the legacy era): lives across POSTs until DELETE,
 * `close()`, or `idleMs` without an open exchange or stream. Its SSE events carry ids and are held
 * (bounded, `replay`) so that a client that lost a stream resumes it with a GET and
 * `Last-Event-ID`: what it missed is replayed, then the stream goes on there (a POST's answer
 * until its last response). From 2025-11-25 on, a POST that accepts SSE is answered with a stream
 * at once, and every stream starts with a priming event (an id, empty data, `retry`). A POST
 * whose client goes away does not cancel its calls (the spec: a disconnection is not a
 * cancellation; the client sends `notifications/cancelled`): they run on, their answers held for
 * a resumption. A **one-shot** exchange (no id; a session-less POST, the 2026-07-28 era): carries
 * one POST, sends everything on its answer (progress, a listen stream's notifications), and
 * closes once it is answered, or when its client goes away (which aborts the call: how
 * 2026-07-28 HTTP cancels).
 */
export class GatewayHttpTransport implements Transport {
  readonly #options: GatewayHttpTransportOptions;
  readonly #events: TransportEvents;
  readonly #exchanges = new Set<Exchange>();
  readonly #byRequest = new Map<RequestId, Exchange>();
  readonly #byProgressToken = new Map<string | number, Exchange>();
  /** The session's GET streams open now. */
  readonly #streams: OutStream[] = [];
  /** The session's events, for resumption; undefined on a one-shot connection. */
  readonly #replay: ReplayBuffer<StreamTag> | undefined;
  #state: TransportState = 'new';
  /** Messages that arrived before `start()`. */
  #early: unknown[] | undefined = [];
  #idleTimer: NodeJS.Timeout | undefined;
  /** The id of the session's `initialize` request, until it is answered. */
  #initializeId: RequestId | undefined;
  /** Streams start with a priming event (the session speaks 2025-11-25 or later). */
  #priming = false;

  readonly onMessage;
  readonly onProblem;
  readonly onClose;

  constructor(options: GatewayHttpTransportOptions) {
    this.#options = options;
    this.#events = new TransportEvents(options.logger, 'gateway client');
    this.onMessage = this.#events.message.event;
    this.onProblem = this.#events.problem.event;
    this.onClose = this.#events.close.event;
    this.#replay =
      options.sessionId === undefined
        ? undefined
        : new ReplayBuffer(options.replay ?? DEFAULT_REPLAY);
    this.#armIdle();
  }

  get state(): TransportState {
    return this.#state;
  }

  /** The session's id; undefined for a one-shot exchange. */
  get sessionId(): string | undefined {
    return this.#options.sessionId;
  }

  /** Open GET streams and POSTs waiting for their answer (their client there or not). */
  get openExchanges(): number {
    return this.#exchanges.size + this.#streams.length;
  }

  /** Events held for resumption now, and their bytes (zero on a one-shot connection). */
  get replayHeld(): { events: number; bytes: number } {
    return { events: this.#replay?.eventCount ?? 0, bytes: this.#replay?.byteCount ?? 0 };
  }

  start(): Promise<void> {
    if (this.#state === 'new') {
      this.#state = 'open';
      // What came before goes out once whoever awaits `start()` has seen it resolve (a peer
      // answers only once open); what comes meanwhile queues behind it, in order.
      if (this.#early?.length === 0) this.#early = undefined;
      else setImmediate(() => this.#deliverEarly());
    }
    return Promise.resolve();
  }

  #deliverEarly(): void {
    const early = this.#early ?? [];
    this.#early = undefined;
    if (this.#state === 'open') for (const message of early) this.#events.message.fire(message);
  }

  /**
   * A POST's messages (checked JSON-RPC messages; `batch` when the body was an array). Without a
   * request among them it is answered 202 at once; else `res` answers its requests.
   */
  post(
    messages: JsonRpcMessage[],
    batch: boolean,
    accepts: PostAccepts,
    res: ServerResponse,
  ): void {
    if (this.#state === 'closing' || this.#state === 'closed')
      return replyError(res, 404, 'the session ended');
    const requests = messages.filter(
      (message): message is JsonRpcRequest => 'method' in message && 'id' in message,
    );
    if (requests.length === 0) {
      replyEmpty(res, 202, this.#headers());
      this.#deliver(messages);
      for (const message of messages) this.#cancelledByClient(message);
      if (this.#options.sessionId === undefined) this.#finish(undefined);
      return;
    }
    const ids = requests.map((request) => request.id);
    if (new Set(ids).size < ids.length || ids.some((id) => this.#byRequest.has(id)))
      return replyError(res, 400, 'Invalid Request: a request id that is in use already', {
        code: HttpJsonRpcCode.InvalidRequest,
      });
    const exchange: Exchange = {
      res,
      batch,
      accepts,
      pending: new Set(),
      progressTokens: [],
      held: [],
      sse: undefined,
      tag: undefined,
      primeTimer: undefined,
      gone: false,
      done: false,
    };
    for (const request of requests) {
      exchange.pending.add(request.id);
      this.#byRequest.set(request.id, exchange);
      const token = progressTokenOf(request);
      if (token !== undefined) {
        exchange.progressTokens.push(token);
        this.#byProgressToken.set(token, exchange);
      }
      if (request.method === McpMethod.Initialize && this.#replay !== undefined)
        this.#initializeId = request.id;
    }
    this.#exchanges.add(exchange);
    this.#disarmIdle();
    res.once('close', () => {
      if (!exchange.done) this.#abandoned(exchange);
    });
    // From 2025-11-25 on, an answer that takes time is a stream primed for resumption.
    if (this.#priming && accepts.sse)
      if (accepts.json) {
        exchange.primeTimer = setTimeout(() => {
          exchange.primeTimer = undefined;
          if (!exchange.done && !exchange.gone && exchange.sse === undefined)
            this.#startSse(exchange);
        }, PRIME_AFTER_MS);
        exchange.primeTimer.unref();
      } else this.#startSse(exchange);
    this.#deliver(messages);
  }

  /**
   * A GET: the session's stream for messages not tied to a request; with `lastEventId`, the
   * resumption of the stream that event was sent on (what was missed, then the rest of it).
   */
  openStream(res: ServerResponse, lastEventId?: string): void {
    if (this.#state === 'closing' || this.#state === 'closed' || this.#replay === undefined)
      return replyError(res, 404, 'the session ended');
    if (lastEventId !== undefined) return this.#resume(res, lastEventId, this.#replay);
    this.#openGetStream(res, []);
  }

  send(message: JsonRpcMessage): void {
    if (this.#state !== 'open')
      throw new McpHostError(
        this.#state === 'new' ? 'NOT_CONNECTED' : 'CONNECTION_CLOSED',
        `cannot send: the connection is ${this.#state}`,
        { serverName: 'gateway client' },
      );
    if (!('method' in message)) return this.#sendResponse(message);
    if (this.#options.sessionId === undefined) return this.#sendOneShot(message);
    if ('id' in message) return this.#sendRequest(message);
    if (message.method === McpMethod.Progress) {
      const token = isObject(message.params) ? message.params.progressToken : undefined;
      const exchange =
        typeof token === 'string' || typeof token === 'number'
          ? this.#byProgressToken.get(token)
          : undefined;
      if (exchange !== undefined && exchange.accepts.sse) this.#stream(exchange, message);
      return;
    }
    const stream = this.#streams.at(-1);
    if (stream !== undefined) this.#emit(stream, message);
  }

  /** Ends every exchange and stream; the gateway's session then ends. Idempotent. */
  close(): Promise<void> {
    this.#finish(undefined);
    return Promise.resolve();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  // ---- outgoing ---------------------------------------------------------------------------------

  #sendResponse(message: JsonRpcMessage & { id: RequestId | null }): void {
    const exchange = message.id === null ? undefined : this.#byRequest.get(message.id);
    if (exchange === undefined || message.id === null) return;
    if (message.id === this.#initializeId) this.#initialized(message);
    this.#byRequest.delete(message.id);
    exchange.pending.delete(message.id);
    if (exchange.sse !== undefined) this.#emit(exchange.sse, message);
    else exchange.held.push(message);
    if (exchange.pending.size === 0) this.#answered(exchange);
  }

  /** The session's `initialize` is answered: its version says whether streams are primed. */
  #initialized(message: JsonRpcMessage): void {
    this.#initializeId = undefined;
    const result = 'result' in message && isObject(message.result) ? message.result : undefined;
    const version = result?.protocolVersion;
    this.#priming = typeof version === 'string' && version >= PRIMING_VERSION;
  }

  /**
   * A one-shot connection has one exchange, and everything it sends relates to its request (a
   * 2026-07-28 `subscriptions/listen` stream's notifications, say): it goes there, as SSE.
   */
  #sendOneShot(message: JsonRpcMessage & { method: string }): void {
    const [exchange] = this.#exchanges;
    if (exchange !== undefined && exchange.accepts.sse) return this.#stream(exchange, message);
    if ('id' in message)
      throw new McpHostError(
        'NOT_CONNECTED',
        `no stream to the client is open to send '${message.method}' on`,
        { serverName: 'gateway client', method: message.method },
      );
  }

  #sendRequest(message: JsonRpcRequest): void {
    const exchanges = [...this.#exchanges].reverse();
    const attached = exchanges.find((exchange) => exchange.sse?.writer !== undefined);
    if (attached !== undefined) return this.#stream(attached, message);
    const stream = this.#streams.at(-1);
    if (stream !== undefined) return void this.#emit(stream, message);
    const open = exchanges.find(
      (exchange) => exchange.accepts.sse && (exchange.sse !== undefined || !exchange.gone),
    );
    // A stream whose client is away holds it for the resumption.
    if (open !== undefined) return this.#stream(open, message);
    throw new McpHostError(
      'NOT_CONNECTED',
      `no stream to the client is open to send '${message.method}' on`,
      { serverName: 'gateway client', method: message.method },
    );
  }

  /** Sends `message` on the exchange's answer, turning it into an SSE stream first. */
  #stream(exchange: Exchange, message: JsonRpcMessage): void {
    // The client went away before anything was streamed: it has no event id to resume from.
    if (exchange.sse === undefined && exchange.gone) return;
    this.#emit(exchange.sse ?? this.#startSse(exchange), message);
  }

  /** Turns the exchange's answer into an SSE stream (primed, from 2025-11-25 on). */
  #startSse(exchange: Exchange): OutStream {
    clearTimeout(exchange.primeTimer);
    exchange.primeTimer = undefined;
    exchange.res.writeHead(200, { ...SSE_RESPONSE_HEADERS, ...this.#headers() });
    exchange.tag = { live: exchange };
    const stream: OutStream = {
      number: this.#replay?.openStream(exchange.tag),
      writer: undefined,
    };
    exchange.sse = stream;
    this.#attach(stream, exchange.res);
    if (this.#priming) this.#prime(stream);
    else exchange.res.flushHeaders();
    for (const held of exchange.held.splice(0)) this.#emit(stream, held);
    return stream;
  }

  /** A GET stream, after the events it replays (of the stream a resumption named). */
  #openGetStream(res: ServerResponse, replayed: readonly ReplayedEvent[]): void {
    if (this.#streams.length >= this.#options.maxStreams)
      return replyError(
        res,
        409,
        `this session has ${this.#streams.length} stream(s) open already (maxStreamsPerSession)`,
      );
    res.writeHead(200, { ...SSE_RESPONSE_HEADERS, ...this.#headers() });
    res.flushHeaders();
    const stream: OutStream = { number: this.#replay?.openStream('get'), writer: undefined };
    const writer = this.#attach(stream, res);
    for (const event of replayed) this.#writeEvent(writer, { event: 'message', ...event });
    if (this.#priming) this.#prime(stream);
    this.#streams.push(stream);
    this.#disarmIdle();
    res.once('close', () => {
      const at = this.#streams.indexOf(stream);
      if (at !== -1) this.#streams.splice(at, 1);
      // A GET stream that lost its client takes nothing more; what it missed stays held.
      if (stream.number !== undefined) this.#replay?.finish(stream.number);
      this.#armIdle();
    });
  }

  /**
   * A GET with `Last-Event-ID`: replays the events of that event's stream sent after it, then
   * carries the rest of the stream (a POST's answer, until its last response; a GET stream, as
   * the session's GET stream). An id the session never gave, or forgot, is 400; one whose later
   * events are no longer held (past the replay bounds) is 410.
   */
  #resume(res: ServerResponse, lastEventId: string, replay: ReplayBuffer<StreamTag>): void {
    const found = replay.after(lastEventId);
    if ('problem' in found)
      return found.problem === 'expired'
        ? replyError(
            res,
            410,
            'Gone: the events after Last-Event-ID are no longer held (the replay bounds); open a new stream',
          )
        : replyError(res, 400, 'Bad Request: Last-Event-ID names no event of this session');
    if (found.tag === 'get') return this.#openGetStream(res, found.events);
    const exchange = found.tag.live;
    res.writeHead(200, { ...SSE_RESPONSE_HEADERS, ...this.#headers() });
    res.flushHeaders();
    if (exchange === undefined || exchange.done || exchange.sse === undefined) {
      // Answered already: what was missed, and the stream ends.
      const writer = new SseWriter(res, this.#options.maxBufferedBytes);
      for (const event of found.events) this.#writeEvent(writer, { event: 'message', ...event });
      return writer.end();
    }
    const previous = exchange.sse.writer;
    const writer = this.#attach(exchange.sse, res);
    // The client moved to this response: the one before (if it still seems open) is done.
    previous?.destroy();
    for (const event of found.events) this.#writeEvent(writer, { event: 'message', ...event });
  }

  /** Makes `res` the response `stream` goes out on, until it closes. */
  #attach(stream: OutStream, res: ServerResponse): SseWriter {
    const writer = new SseWriter(res, this.#options.maxBufferedBytes);
    stream.writer = writer;
    res.once('close', () => {
      if (stream.writer === writer) stream.writer = undefined;
    });
    return writer;
  }

  /** The priming event: an id to resume from, empty data, and the reconnection delay. */
  #prime(stream: OutStream): void {
    if (stream.number === undefined || stream.writer === undefined) return;
    const id = this.#replay!.mark(stream.number);
    this.#writeEvent(stream.writer, { id, retryMs: SSE_RETRY_MS, data: '' });
  }

  /** Sends `message` on `stream`: held for a resumption (in a session), written if its client is there. */
  #emit(stream: OutStream, message: JsonRpcMessage): void {
    const data = JSON.stringify(message);
    const id = stream.number === undefined ? undefined : this.#replay?.record(stream.number, data);
    if (stream.writer !== undefined)
      this.#writeEvent(stream.writer, {
        event: 'message',
        data,
        ...(id === undefined ? {} : { id }),
      });
  }

  #writeEvent(writer: SseWriter, event: SseEvent): void {
    if (writer.write(event)) return;
    // Gone, or over its bound: the client does not read. The response is dropped (a session's
    // stream can still be resumed).
    this.#options.logger.debug('gateway: dropped an HTTP stream the client did not read');
    writer.destroy();
  }

  /** Every request of the exchange is answered: its answer ends. */
  #answered(exchange: Exchange): void {
    this.#settle(exchange);
    if (exchange.sse !== undefined) {
      exchange.sse.writer?.end();
    } else if (exchange.gone) {
      // Its client went away before anything was streamed: nowhere to answer.
    } else if (exchange.accepts.json || !exchange.accepts.sse) {
      const body = JSON.stringify(exchange.batch ? exchange.held : exchange.held[0]);
      const status =
        this.#options.modern === true && !exchange.batch
          ? modernErrorStatus(exchange.held[0])
          : 200;
      exchange.res.writeHead(status, {
        ...this.#headers(),
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      });
      exchange.res.end(body);
    } else {
      this.#startSse(exchange).writer?.end();
    }
    if (exchange.sse?.number !== undefined) this.#replay?.finish(exchange.sse.number);
    if (this.#options.sessionId === undefined) this.#finish(undefined);
  }

  /**
   * The client cancelled one of its requests (`notifications/cancelled`): the gateway sends no
   * response to it, so its POST stops waiting for one (and ends when nothing else is pending).
   */
  #cancelledByClient(message: JsonRpcMessage): void {
    if (!('method' in message) || message.method !== McpMethod.Cancelled || 'id' in message) return;
    const id = isObject(message.params) ? message.params.requestId : undefined;
    const exchange =
      typeof id === 'string' || typeof id === 'number' ? this.#byRequest.get(id) : undefined;
    if (exchange === undefined || (typeof id !== 'string' && typeof id !== 'number')) return;
    this.#byRequest.delete(id);
    exchange.pending.delete(id);
    if (exchange.pending.size > 0) return;
    if (exchange.sse !== undefined || exchange.held.length > 0) return this.#answered(exchange);
    this.#settle(exchange);
    if (!exchange.gone) replyEmpty(exchange.res, 202, this.#headers());
    if (this.#options.sessionId === undefined) this.#finish(undefined);
  }

  /**
   * The client went away before the answer. One-shot: the connection ends, and its call is
   * aborted. Session: the calls go on (a disconnection is not a cancellation); a streamed answer
   * is held for a resumption, one not streamed yet has nowhere to go.
   */
  #abandoned(exchange: Exchange): void {
    exchange.gone = true;
    clearTimeout(exchange.primeTimer);
    exchange.primeTimer = undefined;
    if (this.#options.sessionId !== undefined) return;
    this.#settle(exchange);
    this.#finish(
      new McpHostError('CONNECTION_CLOSED', 'the client closed its HTTP request', {
        serverName: 'gateway client',
      }),
    );
  }

  #settle(exchange: Exchange): void {
    exchange.done = true;
    if (exchange.tag !== undefined) exchange.tag.live = undefined;
    clearTimeout(exchange.primeTimer);
    exchange.primeTimer = undefined;
    this.#exchanges.delete(exchange);
    for (const id of exchange.pending) this.#byRequest.delete(id);
    exchange.pending.clear();
    for (const token of exchange.progressTokens)
      if (this.#byProgressToken.get(token) === exchange) this.#byProgressToken.delete(token);
    if (exchange.sse?.number !== undefined) this.#replay?.finish(exchange.sse.number);
    this.#armIdle();
  }

  // ---- incoming, idleness, closing ---------------------------------------------------------------

  #deliver(messages: unknown[]): void {
    if (this.#early !== undefined) this.#early.push(...messages);
    else if (this.#state === 'open')
      for (const message of messages) this.#events.message.fire(message);
  }

  #headers(): Record<string, string> {
    const id = this.#options.sessionId;
    return id === undefined ? {} : { [SESSION_ID_HEADER]: id };
  }

  #armIdle(): void {
    if (this.#options.sessionId === undefined || this.openExchanges > 0) return;
    if (this.#state === 'closing' || this.#state === 'closed') return;
    if (this.#idleTimer !== undefined) return void this.#idleTimer.refresh();
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      this.#finish(
        new McpHostError(
          'SESSION_EXPIRED',
          `the session was idle for ${this.#options.idleMs} ms (sessionIdleMs)`,
          { serverName: 'gateway client' },
        ),
      );
    }, this.#options.idleMs);
    this.#idleTimer.unref();
  }

  #disarmIdle(): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }

  #finish(reason: McpHostError | undefined): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#early = undefined;
    this.#disarmIdle();
    for (const exchange of [...this.#exchanges]) {
      this.#settle(exchange);
      if (exchange.sse !== undefined) exchange.sse.writer?.end();
      else if (!exchange.gone) replyError(exchange.res, 404, 'the session ended');
    }
    for (const stream of this.#streams.splice(0)) stream.writer?.end();
    this.#replay?.clear();
    this.#disarmIdle();
    this.#events.closed(reason);
  }
}

function progressTokenOf(request: JsonRpcRequest): string | number | undefined {
  const meta = isObject(request.params) ? request.params._meta : undefined;
  const token = isObject(meta) ? meta.progressToken : undefined;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}
