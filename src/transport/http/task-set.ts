import type { Logger } from '../../internal/logger.js';

/** The background tasks of a transport: errors logged, never unhandled; `settled()` for close. */
export class TaskSet {
  readonly #tasks = new Set<Promise<void>>();
  readonly #logger: Logger;
  readonly #where: string;

  constructor(logger: Logger, where: string) {
    this.#logger = logger;
    this.#where = where;
  }

  track(task: Promise<void>): void {
    const tracked = task.catch((error: unknown) =>
      this.#logger.error(`${this.#where}internal error`, { error: String(error) }),
    );
    this.#tasks.add(tracked);
    void tracked.finally(() => this.#tasks.delete(tracked));
  }

  /** Settles when every task tracked so far has (`also` too). */
  settled(also?: Promise<void>): Promise<unknown> {
    return Promise.allSettled(also === undefined ? [...this.#tasks] : [also, ...this.#tasks]);
  }
}
