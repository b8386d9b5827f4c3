/**
 * A fixed-size, log-bucketed latency histogram (the bucket layout of DDSketch): O(1) `record`
 * with no allocation, percentiles within a known relative error, memory fixed at construction.
 */

export interface LatencyHistogramOptions {
  /**
   * The largest relative error of a reported percentile, as a fraction (0.01: within 1% of the
   * true value, for values between `minMs` and `maxMs`).
   */
  relativeError?: number;
  /** Values at or below this share the first bucket (reported as the exact minimum, clamped). */
  minMs?: number;
  /** Values above this share the last bucket (reported as the exact maximum). */
  maxMs?: number;
}

export const LATENCY_HISTOGRAM_DEFAULTS = {
  relativeError: 0.01,
  minMs: 0.001,
  maxMs: 10_000_000,
} as const satisfies Required<LatencyHistogramOptions>;

/** Percentiles and extremes in milliseconds; all 0 when nothing was recorded. */
export interface LatencySummary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/**
 * Bucket `i > 0` holds the values in `(minMs·γ^(i-1), minMs·γ^i]` with `γ = (1+α)/(1-α)`, and a
 * percentile is reported as the bucket's point `2·minMs·γ^i/(γ+1)`, which is within `α` (relative)
 * of every value in the bucket. Bucket 0 holds everything up to `minMs`. With the defaults
 * (α = 1%, 1 µs to 10⁷ ms, about 2.8 hours) that is 1,153 buckets of 8 bytes: about 9 KiB,
 * allocated once. The exact minimum, maximum and sum are kept beside the buckets, and every
 * reported percentile is clamped to `[min, max]`.
 *
 * The percentile of rank `r = ceil(q·count)` (nearest-rank definition) is the value of the bucket
 * where the running count reaches `r`, so it is within `α` of the exact nearest-rank percentile.
 * Negative, non-finite and `NaN` durations are recorded as 0.
 */
export class LatencyHistogram {
  readonly relativeError: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly #counts: Float64Array;
  readonly #gamma: number;
  readonly #lnMin: number;
  readonly #inverseLnGamma: number;
  #count = 0;
  #sum = 0;
  #min = Infinity;
  #max = 0;

  constructor(options: LatencyHistogramOptions = {}) {
    const relativeError = options.relativeError ?? LATENCY_HISTOGRAM_DEFAULTS.relativeError;
    const minMs = options.minMs ?? LATENCY_HISTOGRAM_DEFAULTS.minMs;
    const maxMs = options.maxMs ?? LATENCY_HISTOGRAM_DEFAULTS.maxMs;
    if (!(relativeError > 0 && relativeError < 1))
      throw new RangeError('LatencyHistogram: relativeError must be between 0 and 1');
    if (!(minMs > 0 && maxMs > minMs && Number.isFinite(maxMs)))
      throw new RangeError('LatencyHistogram: need 0 < minMs < maxMs < Infinity');
    this.relativeError = relativeError;
    this.minMs = minMs;
    this.maxMs = maxMs;
    this.#gamma = (1 + relativeError) / (1 - relativeError);
    this.#lnMin = Math.log(minMs);
    this.#inverseLnGamma = 1 / Math.log(this.#gamma);
    this.#counts = new Float64Array(Math.ceil(Math.log(maxMs / minMs) * this.#inverseLnGamma) + 1);
  }

  /** The number of buckets (fixed). */
  get bucketCount(): number {
    return this.#counts.length;
  }

  get count(): number {
    return this.#count;
  }

  record(durationMs: number): void {
    this.recordInBucket(this.bucketOf(durationMs), durationMs);
  }

  /**
   * The bucket `record` would count `durationMs` in. With `recordInBucket`, lets several
   * histograms of the same options share one `Math.log`.
   */
  bucketOf(durationMs: number): number {
    if (!(durationMs > this.minMs)) return 0;
    const last = this.#counts.length - 1;
    const index = Math.ceil((Math.log(durationMs) - this.#lnMin) * this.#inverseLnGamma);
    // Past maxMs (and Infinity, which recordInBucket then counts as 0): the last bucket.
    return index >= last ? last : index < 1 ? 1 : index;
  }

  /** Records `durationMs` in `bucket`, which must come from `bucketOf` of a same-options histogram. */
  recordInBucket(bucket: number, durationMs: number): void {
    const value = durationMs >= 0 && durationMs < Infinity ? durationMs : 0;
    this.#counts[value === durationMs ? bucket : 0]! += 1;
    this.#count += 1;
    this.#sum += value;
    if (value < this.#min) this.#min = value;
    if (value > this.#max) this.#max = value;
  }

  /**
   * The percentile `q` (0 < q ≤ 1) by nearest rank, within `relativeError` of the exact one;
   * 0 when nothing was recorded.
   */
  percentile(q: number): number {
    return this.#percentiles([q])[0] ?? 0;
  }

  summary(): LatencySummary {
    if (this.#count === 0) return { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, max: 0 };
    const [p50 = 0, p90 = 0, p99 = 0] = this.#percentiles([0.5, 0.9, 0.99]);
    return {
      count: this.#count,
      min: this.#min,
      mean: this.#sum / this.#count,
      p50,
      p90,
      p99,
      max: this.#max,
    };
  }

  reset(): void {
    this.#counts.fill(0);
    this.#count = 0;
    this.#sum = 0;
    this.#min = Infinity;
    this.#max = 0;
  }

  /** Several percentiles in one pass over the buckets; `quantiles` ascending. */
  #percentiles(quantiles: readonly number[]): number[] {
    const out: number[] = [];
    if (this.#count === 0) return quantiles.map(() => 0);
    const counts = this.#counts;
    let running = 0;
    let bucket = -1;
    for (const q of quantiles) {
      const rank = Math.max(1, Math.ceil(Math.min(Math.max(q, 0), 1) * this.#count));
      while (running < rank && bucket < counts.length - 1) running += counts[++bucket]!;
      out.push(this.#clamp(this.#bucketValue(bucket)));
    }
    return out;
  }

  #bucketValue(index: number): number {
    if (index <= 0) return this.minMs;
    // The last bucket also holds everything above maxMs: the exact maximum is the best guess.
    if (index >= this.#counts.length - 1) return this.#max;
    return (2 * this.minMs * this.#gamma ** index) / (this.#gamma + 1);
  }

  #clamp(value: number): number {
    return value < this.#min ? this.#min : value > this.#max ? this.#max : value;
  }
}
