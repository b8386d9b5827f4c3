import type { McpHostError } from '../errors/mcp-host-error.js';
import { DeadlineQueue, type Deadline } from '../internal/deadline-queue.js';
import { PendingById } from './pending-by-id.js';
import type { PeerErrors } from './peer-errors.js';

/** One request of ours waiting for its response. */
export interface OutgoingRequest {
  readonly id: number;
  readonly method: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  readonly timeoutMs: number;
  readonly totalMs: number;
  readonly sendCancel: boolean;
  readonly resetOnProgress: boolean;
  readonly onProgress: ((params: unknown) => void) | undefined;
  readonly signal: AbortSignal | undefined;
  /** When the idle timeout expires (restarted by progress). */
  idleAt: number;
  /** When the total cap expires. */
  totalAt: number;
  /** The one deadline armed for this request: the earlier of the two. */
  deadline: Deadline | undefined;
}

/**
 * Our requests in flight: ids, deadlines, and the callers' abort signals (one listener per
 * signal). Each request has one entry in one deadline heap, for the earlier of its idle timeout and
 * its total cap; when it fires, the request's own times say which one expired. `settle` is the one
 * way out, so each request leaves exactly once, whatever ends it.
 */
export class OutgoingRequests {
  readonly #pending = new PendingById<OutgoingRequest>();
  readonly #errors: PeerErrors;
  readonly #onAbandoned: (request: OutgoingRequest, reason: string) => void;
  readonly #deadlines = new DeadlineQueue<OutgoingRequest>((request) => this.#expire(request));
  /**
   * The waiting requests of each caller's signal, with one listener per signal: the request itself
   * while it is the signal's only one (a per-call signal: its abort fails it directly), else how
   * many there are (a signal many requests share, a connection's or an agent run's: one map write
   * per request, and its abort, which is rare, finds its requests among those waiting).
   */
  readonly #signals = new Map<AbortSignal, OutgoingRequest | number>();
  /**
   * The last shared signal whose requests all settled, still listened to (at a count of 0): a
   * signal that carries a steady stream of requests (a host's connection, an agent run) drains
   * between bursts, and unlistening and listening again each time cost more than the requests'
   * own bookkeeping. One at most: the next one to drain takes its place, and `rejectAll` (the
   * connection closing) lets it go.
   */
  #idle: AbortSignal | undefined;
  #nextId = 1;

  /** `onAbandoned` runs after a timeout or an abort failed a request: the place to tell the other side. */
  constructor(errors: PeerErrors, onAbandoned: (request: OutgoingRequest, reason: string) => void) {
    this.#errors = errors;
    this.#onAbandoned = onAbandoned;
  }

  get size(): number {
    return this.#pending.size;
  }

  get hasTimers(): boolean {
    return this.#deadlines.armed;
  }

  nextId(): number {
    return this.#nextId++;
  }

  /** Whether `id` is one we used (so an answer to it that finds nothing pending came late). */
  wasIssued(id: number): boolean {
    return Number.isInteger(id) && id >= 1 && id < this.#nextId;
  }

  get(id: unknown): OutgoingRequest | undefined {
    return typeof id === 'number' ? this.#pending.get(id) : undefined;
  }

  track(request: OutgoingRequest): void {
    this.#pending.add(request);
    const now = Date.now();
    request.idleAt = now + request.timeoutMs;
    request.totalAt = now + request.totalMs;
    this.#arm(request);
    if (request.signal !== undefined) this.#listen(request.signal, request);
  }

  /** Stops tracking the request; false if it had already left. */
  settle(request: OutgoingRequest): boolean {
    if (!this.#pending.delete(request)) return false;
    request.deadline?.cancel();
    if (request.signal !== undefined) this.#unlisten(request.signal);
    return true;
  }

  /** Progress arrived: the idle timeout starts again (the total cap does not). */
  restartIdleTimeout(request: OutgoingRequest): void {
    if (!Number.isFinite(request.timeoutMs)) return;
    request.idleAt = Date.now() + request.timeoutMs;
    // Only the earlier time is armed; when that is already the right one, nothing changes.
    if (request.deadline?.at === Math.min(request.idleAt, request.totalAt)) return;
    request.deadline?.cancel();
    this.#arm(request);
  }

  /** Fails a request we stop waiting for (timeout, abort), then reports it as abandoned. */
  abandon(request: OutgoingRequest, error: McpHostError, reason: string): void {
    if (!this.settle(request)) return;
    request.reject(error);
    this.#onAbandoned(request, reason);
  }

  /** Fails every request still waiting (the connection is gone). */
  rejectAll(errorFor: (request: OutgoingRequest) => unknown): void {
    const requests = this.#pending.values();
    for (const request of requests) this.settle(request);
    this.#deadlines.clear();
    for (const signal of this.#signals.keys()) signal.removeEventListener('abort', this.#onAbort);
    this.#signals.clear();
    this.#idle = undefined;
    for (const request of requests) request.reject(errorFor(request));
  }

  #listen(signal: AbortSignal, request: OutgoingRequest): void {
    const waiting = this.#signals.get(signal);
    if (waiting === undefined) {
      this.#signals.set(signal, request);
      signal.addEventListener('abort', this.#onAbort, { once: true });
    } else if (typeof waiting !== 'number') {
      this.#signals.set(signal, 2);
    } else {
      if (waiting === 0) this.#idle = undefined;
      this.#signals.set(signal, waiting + 1);
    }
  }

  #unlisten(signal: AbortSignal): void {
    const waiting = this.#signals.get(signal);
    if (waiting === undefined) return; // aborted: its listener is gone already
    if (typeof waiting !== 'number') {
      this.#signals.delete(signal);
      signal.removeEventListener('abort', this.#onAbort);
      return;
    }
    this.#signals.set(signal, waiting - 1);
    if (waiting > 1) return;
    // A shared signal drained: kept listened to until another one drains.
    const idle = this.#idle;
    this.#idle = signal;
    if (idle === undefined) return;
    this.#signals.delete(idle);
    idle.removeEventListener('abort', this.#onAbort);
  }

  readonly #onAbort = (event: Event): void => {
    const signal = event.target as AbortSignal;
    const waiting = this.#signals.get(signal);
    this.#signals.delete(signal);
    if (this.#idle === signal) this.#idle = undefined;
    if (waiting === undefined || waiting === 0) return;
    const aborted =
      typeof waiting === 'number'
        ? // In the order they were sent (ids are sequential).
          this.#pending
            .values()
            .filter((request) => request.signal === signal)
            .sort((a, b) => a.id - b.id)
        : [waiting];
    for (const request of aborted)
      this.abandon(
        request,
        this.#errors.aborted(request.method, request.id, signal),
        'cancelled by the caller',
      );
  };

  #arm(request: OutgoingRequest): void {
    const at = Math.min(request.idleAt, request.totalAt);
    request.deadline = Number.isFinite(at) ? this.#deadlines.addAt(at, request) : undefined;
  }

  #expire(request: OutgoingRequest): void {
    request.deadline = undefined;
    const now = Date.now();
    if (now >= request.totalAt) this.#timeOut(request, 'total');
    else if (now >= request.idleAt) this.#timeOut(request, 'idle');
    else this.#arm(request); // armed for an idle time that progress has since moved on
  }

  #timeOut(request: OutgoingRequest, kind: 'idle' | 'total'): void {
    const ms = kind === 'idle' ? request.timeoutMs : request.totalMs;
    const error = this.#errors.timedOut(request.method, request.id, kind, ms);
    this.abandon(request, error, kind === 'idle' ? 'timed out' : 'total time limit exceeded');
  }
}
