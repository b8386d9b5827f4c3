/**
 * One abort listener per signal, however many items wait on it. Many items often share one
 * signal (a shutdown signal, an agent run's signal); a listener each would cost an EventTarget
 * registration per item and trip Node's MaxListenersExceededWarning past ten.
 *
 * A signal's one item is kept as it is, a set made only for a second: most signals are a single
 * call's, and a set per call is an allocation, and in a long-lived map one that outlives it.
 * (So an item is never itself a `Set`.)
 */
export class AbortFanout<T extends object> {
  readonly #waiting = new Map<AbortSignal, T | Set<T>>();
  readonly #onAbort: (item: T, signal: AbortSignal) => void;

  constructor(onAbort: (item: T, signal: AbortSignal) => void) {
    this.#onAbort = onAbort;
  }

  /** Signals currently listened to (for leak checks). */
  get signalCount(): number {
    return this.#waiting.size;
  }

  add(signal: AbortSignal, item: T): void {
    const waiting = this.#waiting.get(signal);
    if (waiting === undefined) {
      this.#waiting.set(signal, item);
      signal.addEventListener('abort', this.#listener, { once: true });
    } else if (waiting instanceof Set) {
      waiting.add(item);
    } else if (waiting !== item) {
      this.#waiting.set(signal, new Set([waiting, item]));
    }
  }

  delete(signal: AbortSignal, item: T): void {
    const waiting = this.#waiting.get(signal);
    if (waiting === undefined) return;
    if (waiting instanceof Set) {
      if (!waiting.delete(item) || waiting.size > 0) return;
    } else if (waiting !== item) {
      return;
    }
    this.#waiting.delete(signal);
    signal.removeEventListener('abort', this.#listener);
  }

  clear(): void {
    for (const signal of this.#waiting.keys()) signal.removeEventListener('abort', this.#listener);
    this.#waiting.clear();
  }

  readonly #listener = (event: Event): void => {
    const signal = event.target as AbortSignal;
    const waiting = this.#waiting.get(signal);
    this.#waiting.delete(signal);
    if (waiting === undefined) return;
    if (waiting instanceof Set) for (const item of waiting) this.#onAbort(item, signal);
    else this.#onAbort(waiting, signal);
  };
}
