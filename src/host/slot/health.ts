/** How the host watches a connected server. */
export interface HealthCheckOptions {
  /** Between checks (default 30 s; 0 turns them off). */
  intervalMs?: number;
  /** A check that takes longer has failed (default 5 s). */
  timeoutMs?: number;
  /** Failed checks in a row after which the server counts as wedged and is restarted (default 2). */
  failuresBeforeRestart?: number;
}

/** The defaults of `HealthCheckOptions`. */
export const DEFAULT_HEALTH_OPTIONS = Object.freeze({
  intervalMs: 30_000,
  timeoutMs: 5_000,
  failuresBeforeRestart: 2,
} satisfies Required<HealthCheckOptions>);

/** What one health check's outcome makes of a server. */
export type HealthVerdict = 'healthy' | 'degraded' | 'wedged';

/**
 * Counts the failed health checks of one connection in a row and judges each outcome: a pass is
 * `healthy`, a failure `degraded` until `failuresBeforeRestart` of them in a row make the server
 * `wedged`. It judges only: the server runs the checks (`ping`, which bypasses every cache) on its
 * own timer and acts on the verdict.
 */
export class HealthCount {
  readonly #limit: number;
  #failures = 0;

  constructor(options: HealthCheckOptions | undefined) {
    this.#limit = options?.failuresBeforeRestart ?? DEFAULT_HEALTH_OPTIONS.failuresBeforeRestart;
  }

  /** Failed checks in a row so far. */
  get failures(): number {
    return this.#failures;
  }

  /** A fresh connection: nothing counted. */
  reset(): void {
    this.#failures = 0;
  }

  record(passed: boolean): HealthVerdict {
    if (passed) {
      this.#failures = 0;
      return 'healthy';
    }
    this.#failures++;
    return this.#failures >= this.#limit ? 'wedged' : 'degraded';
  }
}
