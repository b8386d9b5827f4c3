import { McpHostError } from '../../errors/mcp-host-error.js';
import { backoffDelay } from '../../internal/backoff.js';

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

/** The defaults of `RestartOptions`. */
export const DEFAULT_RESTART_OPTIONS = Object.freeze({
  enabled: true,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  crashLimit: 5,
  crashWindowMs: 180_000,
} satisfies Required<RestartOptions>);

/**
 * What a server does after a failure: wait for its credentials (`needs_auth`, on 401/403 or an
 * OAuth login needed), stop
 * (`failed`: a permanent error, or restarts are off), stop until restarted by hand (`crash_loop`),
 * or restart after `delayMs`.
 */
export type RestartDecision =
  | { action: 'restart'; delayMs: number }
  | { action: 'crash_loop'; failures: number }
  | { action: 'needs_auth' }
  | { action: 'stop' };

/**
 * Counts a server's failures (crashes, wedges, failed reconnects) in a sliding window and decides
 * what follows each: credentials refused (401/403) wait for new ones, a permanent error stops, a
 * transient one gets a capped exponential backoff with equal jitter, and the `crashLimit`-th
 * within `crashWindowMs` is a crash loop, after which nothing restarts it until someone does so by
 * hand (`reset()`). It decides only: the server keeps the timer and the state.
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
    this.#enabled = options.enabled ?? DEFAULT_RESTART_OPTIONS.enabled;
    this.#baseDelayMs = options.baseDelayMs ?? DEFAULT_RESTART_OPTIONS.baseDelayMs;
    this.#maxDelayMs = options.maxDelayMs ?? DEFAULT_RESTART_OPTIONS.maxDelayMs;
    this.#crashLimit = options.crashLimit ?? DEFAULT_RESTART_OPTIONS.crashLimit;
    this.#crashWindowMs = options.crashWindowMs ?? DEFAULT_RESTART_OPTIONS.crashWindowMs;
    this.#random = random;
  }

  /** Records the failure `error` at `now` and says what to do about it. */
  onFailure(error: unknown, now: number = Date.now()): RestartDecision {
    if (error instanceof McpHostError) {
      const status = error.details?.status;
      if (error.code === 'HTTP_STATUS' && (status === 401 || status === 403))
        return { action: 'needs_auth' };
      // An OAuth login is needed (none yet, or the refresh token was refused).
      if (error.code === 'AUTH_REQUIRED' || error.code === 'AUTH_LOGIN_REQUIRED')
        return { action: 'needs_auth' };
      if (error.permanent) return { action: 'stop' };
    }
    if (!this.#enabled) return { action: 'stop' };
    this.#failures = this.#failures.filter((t) => now - t < this.#crashWindowMs);
    this.#failures.push(now);
    const count = this.#failures.length;
    if (count >= this.#crashLimit) return { action: 'crash_loop', failures: count };
    // "Equal jitter": at least half the backoff, so a crashing server never restarts in a spin.
    const delayMs = backoffDelay(
      count,
      { baseDelayMs: this.#baseDelayMs, maxDelayMs: this.#maxDelayMs, jitter: 'equal' },
      this.#random,
    );
    return { action: 'restart', delayMs };
  }

  /** Forgets the failures: after a manual restart. */
  reset(): void {
    this.#failures = [];
  }
}
