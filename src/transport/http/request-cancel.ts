import { EventEmitter } from 'node:events';

/**
 * What can end an HTTP request early: an `EventEmitter` that emits `abort` once, which undici's
 * `Dispatcher.request()` takes as its `signal` (one listener per request, removed when the
 * response body closes). Much cheaper than an `AbortController` (and far cheaper than
 * `AbortSignal.any`), so every POST can have its own. `signal` gives a real `AbortSignal` for
 * the rare API that needs one (made on first use).
 */
export class RequestCancel extends EventEmitter {
  aborted = false;
  /** The exchange ran past its total deadline (set before it is aborted). */
  timedOut = false;
  /** The caller gave the request up (`Transport.abandon`): nobody waits for its outcome. */
  abandoned = false;
  /** When the total deadline passes (`performance.now()` ms); set by `PostDeadlines.add`. */
  expiresAt = 0;
  #controller: AbortController | undefined;

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.#controller?.abort();
    this.emit('abort');
  }

  /** An `AbortSignal` that aborts with this one. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  /** Calls `listener` once when this aborts (at once if it has); returns the remover. */
  onAbort(listener: () => void): () => void {
    if (this.aborted) {
      listener();
      return () => {};
    }
    this.once('abort', listener);
    return () => this.removeListener('abort', listener);
  }
}

/**
 * The total deadlines of one transport's POST exchanges, kept by one timer instead of one per
 * POST. Every exchange gets the same timeout, so the insertion order of the set is the order of
 * expiry: a sweep aborts expired exchanges from the front and re-arms for the first live one.
 * The timer is unref'd, re-armed only when it fires, and cleared by `abortAll()`.
 */
export class PostDeadlines {
  readonly #timeoutMs: number;
  readonly #live = new Set<RequestCancel>();
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** Starts the deadline of a new exchange (aborted at once after `abortAll()`). */
  add(cancel: RequestCancel): void {
    if (this.#stopped) {
      cancel.abort();
      return;
    }
    cancel.expiresAt = performance.now() + this.#timeoutMs;
    this.#live.add(cancel);
    if (this.#timer === undefined) this.#arm(this.#timeoutMs);
  }

  /** The exchange settled: its deadline no longer matters. */
  delete(cancel: RequestCancel): void {
    this.#live.delete(cancel);
  }

  /** Aborts every live exchange and stops the timer (the transport is closing). */
  abortAll(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const live = [...this.#live];
    this.#live.clear();
    for (const cancel of live) cancel.abort();
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(this.#sweep, Math.max(1, Math.ceil(ms)));
    this.#timer.unref();
  }

  readonly #sweep = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    for (const cancel of this.#live) {
      if (cancel.expiresAt > now) {
        this.#arm(cancel.expiresAt - now);
        return;
      }
      this.#live.delete(cancel);
      cancel.timedOut = true;
      cancel.abort();
    }
  };
}
