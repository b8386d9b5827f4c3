/**
 * One abort listener per signal, however many items wait on it. Many requests often share one
 * signal (a shutdown signal, an agent run's signal); a listener each would cost an EventTarget
 * registration per request and trip Node's MaxListenersExceededWarning past ten.
 */
export class AbortFanout<T> {
  readonly #waiting = new Map<AbortSignal, Set<T>>();
  readonly #onAbort: (item: T, signal: AbortSignal) => void;

  constructor(onAbort: (item: T, signal: AbortSignal) => void) {
    this.#onAbort = onAbort;
  }

  /** Signals currently listened to (for leak checks). */
  get signalCount(): number {
    return this.#waiting.size;
  }

  add(signal: AbortSignal, item: T): void {
    let items = this.#waiting.get(signal);
    if (items === undefined) {
      items = new Set();
      this.#waiting.set(signal, items);
      signal.addEventListener('abort', this.#listener, { once: true });
    }
    items.add(item);
  }

  delete(signal: AbortSignal, item: T): void {
    const items = this.#waiting.get(signal);
    if (items === undefined || !items.delete(item) || items.size > 0) return;
    this.#waiting.delete(signal);
    signal.removeEventListener('abort', this.#listener);
  }

  clear(): void {
    for (const signal of this.#waiting.keys()) signal.removeEventListener('abort', this.#listener);
    this.#waiting.clear();
  }

  readonly #listener = (event: Event): void => {
    const signal = event.target as AbortSignal;
    const items = this.#waiting.get(signal);
    this.#waiting.delete(signal);
    if (items !== undefined) for (const item of items) this.#onAbort(item, signal);
  };
}
