import {
  JsonRpcError,
  JsonRpcErrorCode,
  McpHostError,
  preview,
  toMcpHostError,
} from '../errors/index.js';
import { AbortFanout } from '../internal/abort-fanout.js';
import { DeadlineQueue, type Deadline } from '../internal/deadline-queue.js';
import type { Disposable } from '../internal/disposable.js';
import { Emitter } from '../internal/emitter.js';
import { silentLogger, type Logger } from '../internal/logger.js';
import type { Transport, TransportProblem } from './transport.js';
import {
  isJsonRpcErrorObject,
  isRequestId,
  type JsonObject,
  type JsonRpcMessage,
  type RequestId,
} from './message.js';
import {
  DEFAULT_MAX_INBOUND_REQUESTS,
  DEFAULT_MAX_TOTAL_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type JsonRpcPeerOptions,
  type NotificationHandler,
  type PeerConventions,
  type PeerStats,
  type RequestHandler,
  type RequestOptions,
} from './peer-options.js';

export type PeerState = 'new' | 'open' | 'closing' | 'closed';

interface Pending {
  readonly id: number;
  readonly method: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  readonly timeoutMs: number;
  readonly sendCancel: boolean;
  readonly resetOnProgress: boolean;
  readonly onProgress: ((params: unknown) => void) | undefined;
  readonly signal: AbortSignal | undefined;
  idle: Deadline | undefined;
  total: Deadline | undefined;
}

/**
 * One end of a JSON-RPC 2.0 connection over a transport. It correlates our requests with their
 * responses (numeric ids, idle timeout and hard cap, AbortSignal, progress), answers the other
 * side's requests through registered handlers (-32601 for unknown methods), and settles every
 * pending call exactly once when the connection closes. It knows no protocol: the names of the
 * cancel and progress notifications come from `conventions`.
 */
export class JsonRpcPeer implements AsyncDisposable {
  readonly serverName: string | undefined;
  readonly stats: PeerStats = {
    requestsSent: 0,
    notificationsSent: 0,
    responsesReceived: 0,
    unknownResponses: 0,
    lateResponses: 0,
    invalidMessages: 0,
    requestsReceived: 0,
    notificationsReceived: 0,
  };

  readonly #transport: Transport;
  readonly #conventions: PeerConventions;
  readonly #requestTimeoutMs: number;
  readonly #maxTotalTimeoutMs: number;
  readonly #maxInbound: number;
  readonly #logger: Logger;
  readonly #pending = new Map<number, Pending>();
  readonly #inbound = new Map<RequestId, AbortController>();
  readonly #requestHandlers = new Map<string, RequestHandler>();
  readonly #notificationHandlers = new Map<string, NotificationHandler>();
  readonly #aborts = new AbortFanout<Pending>((pending, signal) =>
    this.#abandon(
      pending,
      this.#abortError(pending.method, pending.id, signal),
      'cancelled by the caller',
    ),
  );
  readonly #idleDeadlines: DeadlineQueue<Pending>;
  readonly #totalDeadlines: DeadlineQueue<Pending>;
  readonly #subscriptions: Disposable[];
  readonly #closeEmitter = new Emitter<McpHostError | undefined>();
  readonly #problemEmitter = new Emitter<TransportProblem>();
  #nextId = 1;
  #state: PeerState = 'new';
  #closeReason: McpHostError | undefined;
  #closed: Promise<void> | undefined;

  /** Fires once when the connection is gone, with the reason (undefined after a local close). */
  readonly onClose = this.#closeEmitter.event;
  /** Fires for non-fatal problems: junk lines, invalid messages, oversized messages. */
  readonly onProblem = this.#problemEmitter.event;

  constructor(transport: Transport, options: JsonRpcPeerOptions = {}) {
    this.#transport = transport;
    this.serverName = options.serverName;
    this.#conventions = options.conventions ?? {};
    this.#requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#maxTotalTimeoutMs = options.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_TIMEOUT_MS;
    this.#maxInbound = options.maxInboundRequests ?? DEFAULT_MAX_INBOUND_REQUESTS;
    this.#logger = options.logger ?? silentLogger;
    this.#idleDeadlines = new DeadlineQueue((pending) => this.#timeOut(pending, 'idle'));
    this.#totalDeadlines = new DeadlineQueue((pending) => this.#timeOut(pending, 'total'));
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

  /** Requests waiting for a response. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Incoming requests being handled. */
  get inboundCount(): number {
    return this.#inbound.size;
  }

  /** True while a timeout timer is armed (for leak checks). */
  get hasTimers(): boolean {
    return this.#idleDeadlines.armed || this.#totalDeadlines.armed;
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
    if (signal?.aborted) return Promise.reject(this.#abortError(method, undefined, signal));
    const id = this.#nextId++;
    const progress = this.#conventions.progress;
    if (options.onProgress !== undefined && progress !== undefined)
      params = progress.withToken(params, id);
    const message: JsonRpcMessage =
      params === undefined
        ? { jsonrpc: '2.0', id, method }
        : { jsonrpc: '2.0', id, method, params };
    return new Promise<T>((resolve, reject) => {
      const pending: Pending = {
        id,
        method,
        resolve: resolve as (value: unknown) => void,
        reject,
        timeoutMs: options.timeoutMs ?? this.#requestTimeoutMs,
        sendCancel: options.sendCancel ?? true,
        resetOnProgress: options.resetTimeoutOnProgress ?? true,
        onProgress: options.onProgress,
        signal,
        idle: undefined,
        total: undefined,
      };
      // Registered before sending: a transport may deliver the response before send() returns.
      this.#pending.set(id, pending);
      if (Number.isFinite(pending.timeoutMs))
        pending.idle = this.#idleDeadlines.add(pending.timeoutMs, pending);
      const totalMs = options.maxTotalTimeoutMs ?? this.#maxTotalTimeoutMs;
      if (Number.isFinite(totalMs)) pending.total = this.#totalDeadlines.add(totalMs, pending);
      if (signal !== undefined) this.#aborts.add(signal, pending);
      try {
        this.#transport.send(message);
        this.stats.requestsSent++;
      } catch (error) {
        if (this.#pending.get(id) !== pending) return;
        this.#settle(pending);
        reject(toMcpHostError(error, { serverName: this.serverName, method, requestId: id }));
      }
    });
  }

  /** Sends a notification; throws a typed error if it cannot be queued. */
  notify(method: string, params?: JsonObject): void {
    if (this.#state !== 'open') throw this.#notOpenError(method);
    this.#transport.send(
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params },
    );
    this.stats.notificationsSent++;
  }

  /** Handles incoming requests for `method` (one handler per method; `*` handles the rest). */
  setRequestHandler(method: string, handler: RequestHandler): Disposable {
    return this.#register(this.#requestHandlers, method, handler);
  }

  /** Handles incoming notifications for `method` (one handler per method; `*` handles the rest). */
  setNotificationHandler(method: string, handler: NotificationHandler): Disposable {
    return this.#register(this.#notificationHandlers, method, handler);
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

  #register<H>(map: Map<string, H>, method: string, handler: H): Disposable {
    map.set(method, handler);
    const dispose = (): void => {
      if (map.get(method) === handler) map.delete(method);
    };
    return { dispose, [Symbol.dispose]: dispose };
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
      if (isRequestId(m.id)) return this.#handleRequest(m.id, m.method, m.params);
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
    const pending = typeof id === 'number' ? this.#pending.get(id) : undefined;
    if (pending === undefined) {
      if (typeof id === 'number' && Number.isInteger(id) && id >= 1 && id < this.#nextId) {
        this.stats.lateResponses++;
      } else if (id === null && isJsonRpcErrorObject(m.error)) {
        this.#invalid(`an error response without an id (${preview(m.error.message, 200)})`);
        return;
      } else {
        this.stats.unknownResponses++;
      }
      return;
    }
    this.stats.responsesReceived++;
    const hasResult = Object.hasOwn(m, 'result');
    const hasError = Object.hasOwn(m, 'error');
    this.#settle(pending);
    if (hasResult && !hasError) {
      pending.resolve(m.result);
    } else if (hasError && !hasResult && isJsonRpcErrorObject(m.error)) {
      pending.reject(
        new JsonRpcError(m.error.code, m.error.message, {
          data: m.error.data,
          serverName: this.serverName,
          method: pending.method,
        }),
      );
    } else {
      this.stats.invalidMessages++;
      pending.reject(
        new McpHostError(
          'INVALID_MESSAGE',
          `${this.#where()}the response to '${pending.method}' is malformed (${hasResult && hasError ? 'both result and error' : hasError ? 'an invalid error object' : 'neither result nor error'})`,
          { serverName: this.serverName, method: pending.method, requestId: pending.id },
        ),
      );
    }
  }

  #handleRequest(id: RequestId, method: string, params: unknown): void {
    this.stats.requestsReceived++;
    const handler = this.#requestHandlers.get(method) ?? this.#requestHandlers.get('*');
    if (handler === undefined) {
      this.#reply(id, undefined, {
        code: JsonRpcErrorCode.MethodNotFound,
        message: `Method not found: ${method}`,
      });
      return;
    }
    if (this.#inbound.has(id)) {
      this.#reply(id, undefined, {
        code: JsonRpcErrorCode.InvalidRequest,
        message: `Request id ${String(id)} is already in use`,
      });
      return;
    }
    if (this.#inbound.size >= this.#maxInbound) {
      this.#reply(id, undefined, {
        code: JsonRpcErrorCode.InternalError,
        message: 'Too many concurrent requests',
      });
      return;
    }
    const controller = new AbortController();
    this.#inbound.set(id, controller);
    const context = { id, method, signal: controller.signal };
    new Promise((resolve) => resolve(handler(params, context)))
      .then(
        (result) => {
          if (!controller.signal.aborted) this.#reply(id, result ?? {}, undefined);
        },
        (error: unknown) => {
          if (controller.signal.aborted) return;
          this.#reply(id, undefined, toWireError(error));
        },
      )
      .finally(() => {
        if (this.#inbound.get(id) === controller) this.#inbound.delete(id);
      })
      .catch(() => {});
  }

  #handleNotification(method: string, params: unknown): void {
    this.stats.notificationsReceived++;
    const { cancel, progress } = this.#conventions;
    if (progress !== undefined && method === progress.method) {
      const token = progress.tokenOf(params);
      const pending = typeof token === 'number' ? this.#pending.get(token) : undefined;
      if (pending?.onProgress !== undefined) {
        if (pending.resetOnProgress && pending.idle !== undefined) {
          pending.idle.cancel();
          pending.idle = this.#idleDeadlines.add(pending.timeoutMs, pending);
        }
        this.#callSafely(() => pending.onProgress!(params), method);
        return;
      }
    }
    if (cancel !== undefined && method === cancel.method) {
      const id = cancel.requestIdOf(params);
      if (id !== undefined)
        this.#inbound
          .get(id)
          ?.abort(
            new McpHostError(
              'ABORTED',
              `${this.#where()}request ${String(id)} was cancelled by the other side`,
            ),
          );
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
    this.#logger.warn(`${this.#where()}a handler for '${method}' threw`, {
      server: this.serverName,
      error: toMcpHostError(error).message,
    });
  }

  #reply(
    id: RequestId | null,
    result: unknown,
    error: { code: number; message: string; data?: unknown } | undefined,
  ): void {
    if (this.#state !== 'open') return;
    try {
      this.#transport.send(
        error === undefined ? { jsonrpc: '2.0', id: id!, result } : { jsonrpc: '2.0', id, error },
      );
    } catch (sendError) {
      this.#logger.debug(`${this.#where()}could not send a response`, {
        error: toMcpHostError(sendError).message,
      });
    }
  }

  #invalid(what: string): void {
    this.stats.invalidMessages++;
    this.#problemEmitter.fire({
      error: new McpHostError('INVALID_MESSAGE', `${this.#where()}received ${what}; ignored`, {
        serverName: this.serverName,
      }),
    });
  }

  readonly #onTransportProblem = (problem: TransportProblem): void => {
    const id = problem.requestId;
    const pending = typeof id === 'number' ? this.#pending.get(id) : undefined;
    if (pending !== undefined) {
      this.#settle(pending);
      pending.reject(problem.error);
    }
    this.#problemEmitter.fire(problem);
  };

  #onTransportClose(reason: McpHostError | undefined): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#closeReason = reason;
    for (const subscription of this.#subscriptions) subscription.dispose();
    const pendings = [...this.#pending.values()];
    this.#pending.clear();
    this.#idleDeadlines.clear();
    this.#totalDeadlines.clear();
    for (const pending of pendings) {
      this.#detachSignal(pending);
      pending.reject(reason ?? this.#closedError(pending.method, pending.id));
    }
    for (const controller of this.#inbound.values())
      controller.abort(reason ?? this.#closedError());
    this.#inbound.clear();
    this.#closeEmitter.fire(reason);
    this.#closeEmitter.clear();
    this.#problemEmitter.clear();
  }

  #timeOut(pending: Pending, kind: 'idle' | 'total'): void {
    const ms = kind === 'idle' ? pending.timeoutMs : undefined;
    const error = new McpHostError(
      'REQUEST_TIMEOUT',
      kind === 'idle'
        ? `${this.#where()}request '${pending.method}' got no response within ${ms} ms`
        : `${this.#where()}request '${pending.method}' exceeded its total time limit`,
      {
        serverName: this.serverName,
        method: pending.method,
        requestId: pending.id,
        details: { kind, timeoutMs: ms },
      },
    );
    this.#abandon(pending, error, kind === 'idle' ? 'timed out' : 'total time limit exceeded');
  }

  /** Stops waiting for a request: settle it, fail it, and tell the other side when allowed. */
  #abandon(pending: Pending, error: McpHostError, reason: string): void {
    if (this.#pending.get(pending.id) !== pending) return;
    this.#settle(pending);
    pending.reject(error);
    const cancel = this.#conventions.cancel;
    if (cancel !== undefined && pending.sendCancel && this.#state === 'open') {
      try {
        this.#transport.send({
          jsonrpc: '2.0',
          method: cancel.method,
          params: cancel.toParams(pending.id, reason),
        });
      } catch {
        // The connection is going away; there is nobody left to tell.
      }
    }
  }

  #settle(pending: Pending): void {
    this.#pending.delete(pending.id);
    pending.idle?.cancel();
    pending.total?.cancel();
    this.#detachSignal(pending);
  }

  #detachSignal(pending: Pending): void {
    if (pending.signal !== undefined) this.#aborts.delete(pending.signal, pending);
  }

  #where(): string {
    return this.serverName === undefined ? '' : `server '${this.serverName}': `;
  }

  #abortError(method: string, id: number | undefined, signal: AbortSignal): McpHostError {
    return new McpHostError(
      'ABORTED',
      `${this.#where()}request '${method}' was cancelled by the caller`,
      {
        serverName: this.serverName,
        method,
        requestId: id,
        cause: signal.reason,
      },
    );
  }

  #closedError(method?: string, id?: number): McpHostError {
    const what =
      method === undefined
        ? 'the connection closed'
        : `request '${method}' failed: the connection closed`;
    return new McpHostError('CONNECTION_CLOSED', `${this.#where()}${what}`, {
      serverName: this.serverName,
      method,
      requestId: id,
    });
  }

  #notOpenError(method: string): McpHostError {
    if (this.#state === 'new') {
      return new McpHostError(
        'NOT_CONNECTED',
        `${this.#where()}cannot send '${method}': the connection is not started`,
        {
          serverName: this.serverName,
          method,
        },
      );
    }
    return this.#closeReason ?? this.#closedError(method);
  }
}

function toWireError(error: unknown): { code: number; message: string; data?: unknown } {
  if (error instanceof JsonRpcError) return error.toWire();
  const normalized = toMcpHostError(error);
  return { code: JsonRpcErrorCode.InternalError, message: normalized.message };
}
