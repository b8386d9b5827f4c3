/** How a managed server is brought back after it dies or hangs. */
export interface RestartOptions {
  /** Restart dead or wedged servers at all (default true). */
  enabled?: boolean;
  /** The first backoff (default 500 ms); each failure in a row doubles it, with jitter. */
  baseDelayMs?: number;
  /** The longest backoff (default 30 s). */
  maxDelayMs?: number;
  /** Failures within `crashWindowMs` that make a crash loop (default 5). */
  crashLimit?: number;
  /** The window the failures are counted in (default 3 minutes). */
  crashWindowMs?: number;
}

export const DEFAULT_RESTART_BASE_DELAY_MS = 500;
export const DEFAULT_RESTART_MAX_DELAY_MS = 30_000;
export const DEFAULT_CRASH_LIMIT = 5;
export const DEFAULT_CRASH_WINDOW_MS = 180_000;

export type RestartDecision =
  | { action: 'restart'; delayMs: number }
  | { action: 'crash_loop'; failures: number }
  | { action: 'stop' };

/**
 * Counts a server's failures (crashes, wedges, failed reconnects) in a sliding window: each one
 * gets a capped exponential backoff with jitter, and the `crashLimit`-th within `crashWindowMs`
 * is a crash loop, after which nothing restarts it until someone does so by hand (`reset()`).
 */
export class RestartPolicy {
  readonly #enabled: boolean;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #crashLimit: number;
  readonly #crashWindowMs: number;
  readonly #random: () => number;
  #failures: number[] = [];

  constructor(options: RestartOptions = {}, random: () => number = Math.random) {
    this.#enabled = options.enabled ?? true;
    this.#baseDelayMs = options.baseDelayMs ?? DEFAULT_RESTART_BASE_DELAY_MS;
    this.#maxDelayMs = options.maxDelayMs ?? DEFAULT_RESTART_MAX_DELAY_MS;
    this.#crashLimit = options.crashLimit ?? DEFAULT_CRASH_LIMIT;
    this.#crashWindowMs = options.crashWindowMs ?? DEFAULT_CRASH_WINDOW_MS;
    this.#random = random;
  }

  /** Records one failure at `now` and says what to do about it. */
  onFailure(now: number): RestartDecision {
    if (!this.#enabled) return { action: 'stop' };
    this.#failures = this.#failures.filter((t) => now - t < this.#crashWindowMs);
    this.#failures.push(now);
    const count = this.#failures.length;
    if (count >= this.#crashLimit) return { action: 'crash_loop', failures: count };
    const ceiling = Math.min(this.#maxDelayMs, this.#baseDelayMs * 2 ** (count - 1));
    // "Equal jitter": at least half the backoff, so a crashing server never restarts in a spin.
    const delayMs = Math.round(ceiling / 2 + (this.#random() * ceiling) / 2);
    return { action: 'restart', delayMs };
  }

  /** Forgets the failures: after a manual restart. */
  reset(): void {
    this.#failures = [];
  }
}
