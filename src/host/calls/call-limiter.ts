import { McpHostError } from '../../errors/mcp-host-error.js';
import { onAbort } from '../../internal/signals.js';

interface Waiter {
  /** Starts the call, its slot taken. */
  start: () => void;
  reject: (error: unknown) => void;
  /** Stops listening to the caller's signal. */
  removeAbort: () => void;
}

const noop = (): void => {};
/** What a served waiter's place in the queue holds until the queue is compacted. */
const SERVED: Waiter = { start: noop, reject: noop, removeAbort: noop };

/**
 * Bounds the calls in flight to one server, with a bounded queue behind them: a call over both
 * limits fails at once with `QUEUE_FULL` (back-pressure the caller can see) instead of piling up.
 * A queued call whose signal aborts leaves the queue at once. `release()` hands the slot to the
 * oldest waiter without letting a newcomer jump the queue.
 */
export class CallLimiter {
  readonly #maxInFlight: number;
  readonly #maxQueue: number;
  readonly #serverName: string;
  readonly #queue: Waiter[] = [];
  #head = 0;
  #inFlight = 0;
  /** Woken once nothing is in flight or queued (see `whenIdle`). */
  readonly #idleWaiters = new Set<() => void>();

  constructor(serverName: string, maxInFlight: number, maxQueue: number) {
    this.#serverName = serverName;
    this.#maxInFlight = Math.max(1, maxInFlight);
    this.#maxQueue = Math.max(0, maxQueue);
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  get queued(): number {
    return this.#queue.length - this.#head;
  }

  /** Resolves once no call is in flight or queued (at once when none is). */
  whenIdle(): Promise<void> {
    if (this.#inFlight === 0 && this.queued === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.#idleWaiters.add(resolve));
  }

  /**
   * Takes a slot when one is free and nobody is queued for it; the caller then owes `release()`.
   * False when the call would have to queue (`run` queues it).
   */
  tryTake(): boolean {
    if (this.#inFlight >= this.#maxInFlight || this.queued > 0) return false;
    this.#inFlight++;
    return true;
  }

  /**
   * Runs `start` with a slot taken: at once when one is free and nobody is queued for it, else
   * when the slot passes to it (from `release()`, synchronously: one promise per queued call, no
   * hop). Settles as what `start` returns does; fails at once with `QUEUE_FULL` over the queue's
   * limit, or with `ABORTED` when `signal` aborts while it waits.
   */
  run<T>(tool: string, signal: AbortSignal | undefined, start: () => Promise<T>): Promise<T> {
    if (this.tryTake()) return start();
    if (this.queued >= this.#maxQueue) {
      return Promise.reject(
        new McpHostError(
          'QUEUE_FULL',
          `${this.#inFlight} calls in flight and ${this.queued} queued (the limits); '${tool}' was not queued`,
          {
            serverName: this.#serverName,
            tool,
            details: { inFlight: this.#inFlight, queued: this.queued },
          },
        ),
      );
    }
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          try {
            // `.then`, not `resolve(promise)`: that would cost a job and a microtask turn more.
            start().then(resolve, reject);
          } catch (error) {
            // A start that throws instead of rejecting: its error, as it is.
            // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
            reject(error);
          }
        },
        reject,
        removeAbort: noop,
      };
      this.#queue.push(waiter);
      // An already aborted signal takes the waiter out of the queue at once.
      waiter.removeAbort = onAbort(signal, (reason) => {
        const index = this.#queue.indexOf(waiter, this.#head);
        if (index >= 0) this.#queue.splice(index, 1);
        reject(
          new McpHostError('ABORTED', `'${tool}' was cancelled while queued`, {
            serverName: this.#serverName,
            tool,
            cause: reason,
          }),
        );
      });
    });
  }

  release(): void {
    if (this.#head < this.#queue.length) {
      const waiter = this.#queue[this.#head]!;
      // The slot forgets the waiter: a long-lived queue must not keep settled calls alive.
      this.#queue[this.#head++] = SERVED;
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue.splice(0, this.#head);
        this.#head = 0;
      }
      waiter.removeAbort();
      waiter.start(); // the slot passes to the waiter: inFlight stays the same
      return;
    }
    this.#inFlight--;
    if (this.#inFlight === 0 && this.#idleWaiters.size > 0) {
      for (const wake of this.#idleWaiters) wake();
      this.#idleWaiters.clear();
    }
  }

  /** Fails every queued call with `error` (the server went away). */
  rejectQueued(error: unknown): void {
    const waiters = this.#queue.splice(this.#head);
    this.#queue.length = 0;
    this.#head = 0;
    for (const waiter of waiters) {
      waiter.removeAbort();
      waiter.reject(error);
    }
  }
}
