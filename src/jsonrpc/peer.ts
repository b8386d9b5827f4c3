import { JsonRpcErrorCode } from '../errors/json-rpc-error.js';
import { preview } from '../errors/redact.js';
import { toMcpHostError } from '../errors/to-mcp-host-error.js';
import { type McpHostError } from '../errors/mcp-host-error.js';
import { toDisposable, type Disposable } from '../internal/disposable.js';
import { Emitter } from '../internal/emitter.js';
import { silentLogger, type Logger } from '../internal/logger.js';
import { RateLimiter } from '../internal/rate-limiter.js';
import type { Transport, TransportProblem } from './transport.js';
import {
  isJsonRpcErrorObject,
  isRequestId,
  type JsonObject,
  type JsonRpcErrorObject,
  type JsonRpcMessage,
  type RequestId,
} from './message.js';
import { InboundRequests } from './inbound-requests.js';
import { OutgoingRequests, type OutgoingRequest } from './outgoing-requests.js';
import { PeerErrors } from './peer-errors.js';
import {
  DEFAULT_MAX_INBOUND_REQUESTS,
  DEFAULT_MAX_TOTAL_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type DiscardEvent,
  type JsonRpcPeerOptions,
  type NotificationHandler,
  type PeerConventions,
  type PeerStats,
  zeroPeerStats,
  type RequestHandler,
  type RequestOptions,
} from './peer-options.js';

export type PeerState = 'new' | 'open' | 'closing' | 'closed';

/**
 * One end of a JSON-RPC 2.0 connection over a transport. It correlates our requests with their
 * responses (numeric ids, idle timeout and hard cap, AbortSignal, progress), answers the other
 * side's requests through registered handlers (-32601 for unknown methods), and settles every
 * pending call exactly once when the connection closes. It knows no protocol: the names of the
 * cancel and progress notifications come from `conventions`.
 */
export class JsonRpcPeer implements AsyncDisposable {
  readonly serverName: string | undefined;

  readonly #transport: Transport;
  readonly #conventions: PeerConventions;
  readonly #requestTimeoutMs: number;
  readonly #maxTotalTimeoutMs: number;
  readonly #logger: Logger;
  readonly #errors: PeerErrors;
  readonly #outgoing: OutgoingRequests;
  readonly #inbound: InboundRequests;
  readonly #notificationHandlers = new Map<string, NotificationHandler>();
  readonly #subscriptions: Disposable[];
  readonly #closeEmitter = new Emitter<McpHostError | undefined>();
  readonly #problemEmitter = new Emitter<TransportProblem>();
  readonly #discardEmitter = new Emitter<DiscardEvent>();
  /** Reports of dropped responses: a burst of 5, then 1 a second (every one is counted). */
  readonly #droppedLimiter = new RateLimiter(1, 5);
  /** The peer's own counters (junk and oversized messages are the transport's). */
  readonly #stats: PeerStats = zeroPeerStats();
  #state: PeerState = 'new';
  #closeReason: McpHostError | undefined;
  #closed: Promise<void> | undefined;

  /** Fires once when the connection is gone, with the reason (undefined after a local close). */
  readonly onClose = this.#closeEmitter.event;
  /** Fires for non-fatal problems: junk lines, invalid messages, oversized messages. */
  readonly onProblem = this.#problemEmitter.event;
  /**
   * Fires when something the other side sent is thrown away: a response nobody waits for, a
   * message that is not JSON-RPC, or (from the transport) junk and oversized messages. Reports of
   * junk and dropped responses are rate-limited; `stats` counts every one.
   */
  readonly onDiscarded = this.#discardEmitter.event;

  constructor(transport: Transport, options: JsonRpcPeerOptions = {}) {
    this.#transport = transport;
    this.serverName = options.serverName;
    this.#conventions = options.conventions ?? {};
    this.#requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#maxTotalTimeoutMs = options.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_TIMEOUT_MS;
    this.#errors = new PeerErrors(options.serverName);
    this.#inbound = new InboundRequests(
      options.maxInboundRequests ?? DEFAULT_MAX_INBOUND_REQUESTS,
      (id, result, error) => this.#reply(id, result, error),
    );
    this.#logger = options.logger ?? silentLogger;
    this.#outgoing = new OutgoingRequests(this.#errors, (request, reason) =>
      this.#sendCancel(request, reason),
    );
    this.#subscriptions = [
      transport.onMessage(this.#onMessage),
      transport.onProblem(this.#onTransportProblem),
      transport.onClose((reason) => this.#onTransportClose(reason)),
    ];
    if (transport.state === 'open') this.#state = 'open';
  }

  get state(): PeerState {
    return this.#state;
  }

  /** What this peer sent, received and discarded (with the transport's `discards`), as a copy. */
  get stats(): PeerStats {
    const discards = this.#transport.discards;
    return {
      ...this.#stats,
      junkMessages: discards?.junkMessages ?? 0,
      oversizedMessages: discards?.oversizedMessages ?? 0,
    };
  }

  /** Requests waiting for a response. */
  get pendingCount(): number {
    return this.#outgoing.size;
  }

  /** Incoming requests being handled. */
  get inboundCount(): number {
    return this.#inbound.size;
  }

  /** True while a timeout timer is armed (for leak checks). */
  get hasTimers(): boolean {
    return this.#outgoing.hasTimers;
  }

  /** Starts the transport (if not already started) and opens the peer. */
  async start(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.#state !== 'new') return;
    if (this.#transport.state === 'new') await this.#transport.start(options);
    if (this.#state === 'new') this.#state = 'open';
  }

  request<T = unknown>(
    method: string,
    params?: JsonObject,
    options: RequestOptions = {},
  ): Promise<T> {
    if (this.#state !== 'open') return Promise.reject(this.#notOpenError(method));
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(this.#errors.aborted(method, undefined, signal));
    const id = this.#outgoing.nextId();
    const progress = this.#conventions.progress;
    if (options.onProgress !== undefined && progress !== undefined)
      params = progress.withToken(params, id);
    const message: JsonRpcMessage =
      params === undefined
        ? { jsonrpc: '2.0', id, method }
        : { jsonrpc: '2.0', id, method, params };
    return new Promise<T>((resolve, reject) => {
      const request: OutgoingRequest = {
        id,
        method,
        resolve: resolve as (value: unknown) => void,
        reject,
        timeoutMs: options.timeoutMs ?? this.#requestTimeoutMs,
        totalMs: options.maxTotalTimeoutMs ?? this.#maxTotalTimeoutMs,
        sendCancel: options.sendCancel ?? true,
        resetOnProgress: options.resetTimeoutOnProgress ?? true,
        onProgress: options.onProgress,
        signal,
        idleAt: Infinity,
        totalAt: Infinity,
        deadline: undefined,
      };
      // Tracked before sending: a transport may deliver the response before send() returns.
      this.#outgoing.track(request);
      try {
        this.#transport.send(message);
        this.#stats.requestsSent++;
      } catch (error) {
        if (this.#outgoing.settle(request)) {
          reject(toMcpHostError(error, { serverName: this.serverName, method, requestId: id }));
        }
      }
    });
  }

  /** Sends a notification; throws a typed error if it cannot be queued. */
  notify(method: string, params?: JsonObject): void {
    if (this.#state !== 'open') throw this.#notOpenError(method);
    this.#transport.send(
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params },
    );
    this.#stats.notificationsSent++;
  }

  /** Handles incoming requests for `method` (one handler per method; `*` handles the rest). */
  setRequestHandler(method: string, handler: RequestHandler): Disposable {
    return this.#inbound.setHandler(method, handler);
  }

  /** Handles incoming notifications for `method` (one handler per method; `*` handles the rest). */
  setNotificationHandler(method: string, handler: NotificationHandler): Disposable {
    const handlers = this.#notificationHandlers;
    handlers.set(method, handler);
    return toDisposable(() => {
      if (handlers.get(method) === handler) handlers.delete(method);
    });
  }

  /** Closes the transport; every pending request fails with `CONNECTION_CLOSED`. Idempotent. */
  close(): Promise<void> {
    if (this.#closed !== undefined) return this.#closed;
    if (this.#state === 'open' || this.#state === 'new') this.#state = 'closing';
    this.#closed = (async () => {
      try {
        await this.#transport.close();
      } finally {
        // A transport keeps its promise to fire onClose; this covers one that did not.
        this.#onTransportClose(undefined);
      }
    })();
    return this.#closed;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  readonly #onMessage = (message: unknown): void => {
    if (Array.isArray(message)) {
      if (message.length === 0) this.#invalid('an empty batch');
      for (const item of message) this.#dispatch(item);
    } else {
      this.#dispatch(message);
    }
  };

  #dispatch(message: unknown): void {
    if (typeof message !== 'object' || message === null)
      return this.#invalid('a non-object message');
    const m = message as Record<string, unknown>;
    if (m.jsonrpc !== '2.0') return this.#invalid('a message without "jsonrpc": "2.0"');
    if (typeof m.method === 'string') {
      if (m.id === undefined) return this.#handleNotification(m.method, m.params);
      if (isRequestId(m.id)) {
        this.#stats.requestsReceived++;
        return this.#inbound.handle(m.id, m.method, m.params);
      }
      this.#reply(null, undefined, {
        code: JsonRpcErrorCode.InvalidRequest,
        message: 'Invalid request id',
      });
      return this.#invalid('a request with an invalid id');
    }
    if ('id' in m) return this.#handleResponse(m);
    this.#invalid('a message that is neither request, notification nor response');
  }

  #handleResponse(m: Record<string, unknown>): void {
    const id = m.id;
    const pending = this.#outgoing.get(id);
    if (pending === undefined) {
      if (id === null && isJsonRpcErrorObject(m.error)) {
        this.#invalid(`an error response without an id (${preview(m.error.message, 200)})`);
        return;
      }
      const late = typeof id === 'number' && this.#outgoing.wasIssued(id);
      if (late) this.#stats.lateResponses++;
      else this.#stats.unknownResponses++;
      this.#droppedResponse(id, late);
      return;
    }
    this.#stats.responsesReceived++;
    const hasResult = Object.hasOwn(m, 'result');
    const hasError = Object.hasOwn(m, 'error');
    this.#outgoing.settle(pending);
    if (hasResult && !hasError) {
      pending.resolve(m.result);
    } else if (hasError && !hasResult && isJsonRpcErrorObject(m.error)) {
      pending.reject(this.#errors.fromResponse(pending.method, m.error));
    } else {
      this.#stats.invalidMessages++;
      const what =
        hasResult && hasError
          ? 'both result and error'
          : hasError
            ? 'an invalid error object'
            : 'neither result nor error';
      pending.reject(this.#errors.malformedResponse(pending.method, pending.id, what));
    }
  }

  #handleNotification(method: string, params: unknown): void {
    this.#stats.notificationsReceived++;
    const { cancel, progress } = this.#conventions;
    if (progress !== undefined && method === progress.method) {
      const token = progress.tokenOf(params);
      const pending = this.#outgoing.get(token);
      if (pending?.onProgress !== undefined) {
        if (pending.resetOnProgress) this.#outgoing.restartIdleTimeout(pending);
        this.#callSafely(() => pending.onProgress!(params), method);
        return;
      }
    }
    if (cancel !== undefined && method === cancel.method) {
      const id = cancel.requestIdOf(params);
      if (id !== undefined) this.#inbound.cancel(id, this.#errors.cancelledByPeer(id));
    }
    const handler = this.#notificationHandlers.get(method) ?? this.#notificationHandlers.get('*');
    if (handler !== undefined) this.#callSafely(() => handler(params, method), method);
  }

  #callSafely(fn: () => unknown, method: string): void {
    try {
      const result = fn();
      if (result instanceof Promise)
        result.catch((error: unknown) => this.#handlerFailed(error, method));
    } catch (error) {
      this.#handlerFailed(error, method);
    }
  }

  #handlerFailed(error: unknown, method: string): void {
    this.#logger.warn(this.#errors.prefix(`a handler for '${method}' threw`), {
      server: this.serverName,
      error: toMcpHostError(error).message,
    });
  }

  #reply(id: RequestId | null, result: unknown, error: JsonRpcErrorObject | undefined): void {
    if (this.#state !== 'open') return;
    try {
      this.#transport.send(
        error === undefined ? { jsonrpc: '2.0', id: id!, result } : { jsonrpc: '2.0', id, error },
      );
    } catch (sendError) {
      this.#logger.debug(this.#errors.prefix('could not send a response'), {
        error: toMcpHostError(sendError).message,
      });
    }
  }

  #invalid(what: string): void {
    this.#stats.invalidMessages++;
    const error = this.#errors.invalidMessage(what);
    this.#problemEmitter.fire({ error });
    this.#discardEmitter.fire({ kind: 'invalid', error });
  }

  /** A response nobody waits for: counted by the caller, reported here at a bounded rate. */
  #droppedResponse(id: unknown, late: boolean): void {
    const suppressed = this.#droppedLimiter.take();
    if (suppressed < 0) return;
    const error = this.#errors.droppedResponse(id, late, suppressed);
    this.#logger.debug(error.message, { server: this.serverName });
    this.#discardEmitter.fire({ kind: late ? 'late_response' : 'unknown_response', error });
  }

  readonly #onTransportProblem = (problem: TransportProblem): void => {
    const id = problem.requestId;
    const pending = this.#outgoing.get(id);
    if (pending !== undefined) {
      // The transport stopped waiting (an HTTP deadline): the request is abandoned like one of
      // ours that timed out, so the other side is told (the era's cancellation).
      if (problem.error.code === 'REQUEST_TIMEOUT')
        this.#outgoing.abandon(pending, problem.error, 'timed out');
      else if (this.#outgoing.settle(pending)) pending.reject(problem.error);
    }
    this.#problemEmitter.fire(problem);
    if (problem.discarded !== undefined)
      this.#discardEmitter.fire({ kind: problem.discarded, error: problem.error });
  };

  #onTransportClose(reason: McpHostError | undefined): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#closeReason = reason;
    for (const subscription of this.#subscriptions) subscription.dispose();
    this.#outgoing.rejectAll(
      (request) => reason ?? this.#errors.closed(request.method, request.id),
    );
    this.#inbound.abortAll(reason ?? this.#errors.closed());
    this.#closeEmitter.fire(reason);
    this.#closeEmitter.clear();
    this.#problemEmitter.clear();
    this.#discardEmitter.clear();
  }

  /** A request we stopped waiting for: tell the other side, when the protocol and request allow. */
  #sendCancel(request: OutgoingRequest, reason: string): void {
    this.#transport.abandon?.(request.id);
    const cancel = this.#conventions.cancel;
    if (cancel === undefined || !request.sendCancel || this.#state !== 'open') return;
    try {
      this.#transport.send({
        jsonrpc: '2.0',
        method: cancel.method,
        params: cancel.toParams(request.id, reason),
      });
    } catch {
      // The connection is going away; there is nobody left to tell.
    }
  }

  #notOpenError(method: string): McpHostError {
    if (this.#state === 'new') return this.#errors.notStarted(method);
    return this.#closeReason ?? this.#errors.closed(method);
  }
}
