/**
 * The background tasks of one owner (a transport's requests and streams): a task that fails is
 * handed to `onError`, never left unhandled, and `settled()` waits for them all (for `close()`).
 */
export class TaskSet {
  readonly #tasks = new Set<Promise<void>>();
  readonly #onError: (error: unknown) => void;

  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  /** How many tasks have not settled yet. */
  get size(): number {
    return this.#tasks.size;
  }

  track(task: Promise<void>): void {
    const tracked = task.catch(this.#onError);
    this.#tasks.add(tracked);
    void tracked.finally(() => this.#tasks.delete(tracked));
  }

  /** Settles when every task tracked so far has (`also` too). */
  settled(also?: Promise<void>): Promise<unknown> {
    return Promise.allSettled(also === undefined ? [...this.#tasks] : [also, ...this.#tasks]);
  }
}
