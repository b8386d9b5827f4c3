/** Capped exponential backoff with jitter: the one formula behind every retry and restart delay. */
export interface BackoffOptions {
  /** The first step; each later one doubles. */
  baseDelayMs: number;
  /** The largest step. */
  maxDelayMs: number;
  /**
   * `full`: anywhere from 0 to the step (spreads retries of many clients the most); `equal`: at
   * least half the step (a restart never comes back in a spin); `none`: the step itself.
   */
  jitter: 'full' | 'equal' | 'none';
}

/**
 * The wait before try number `attempt + 1`, after `attempt` failures in a row (`attempt` counts
 * from 1): `min(maxDelayMs, baseDelayMs * 2^(attempt - 1))` with the chosen jitter, in whole ms.
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const step = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
  switch (options.jitter) {
    case 'full':
      return Math.floor(random() * step);
    case 'equal':
      return Math.round(step / 2 + (random() * step) / 2);
    case 'none':
      return step;
  }
}
