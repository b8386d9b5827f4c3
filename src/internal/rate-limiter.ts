/**
 * A token bucket: `take()` says whether one more event may be reported now, and how many were
 * refused since the last one that was allowed (so a report can say "and 812 more").
 */
export class RateLimiter {
  #tokens: number;
  #last: number;
  #suppressed = 0;

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#tokens = burst;
    this.#last = now();
  }

  /** Returns -1 when refused, otherwise the number of events refused since the last allowed one. */
  take(): number {
    const now = this.now();
    const elapsed = now - this.#last;
    if (elapsed > 0) {
      this.#tokens = Math.min(this.burst, this.#tokens + (elapsed * this.ratePerSecond) / 1000);
      this.#last = now;
    }
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      const suppressed = this.#suppressed;
      this.#suppressed = 0;
      return suppressed;
    }
    this.#suppressed++;
    return -1;
  }

  get suppressed(): number {
    return this.#suppressed;
  }
}
