import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.js';

describe('backoffDelay', () => {
  const options = { baseDelayMs: 100, maxDelayMs: 1_000 } as const;

  it('doubles from the base, up to the cap', () => {
    const steps = [1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, { ...options, jitter: 'none' }));
    expect(steps).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it('full jitter spreads over [0, step); equal jitter over [step/2, step]', () => {
    expect(backoffDelay(3, { ...options, jitter: 'full' }, () => 0)).toBe(0);
    expect(backoffDelay(3, { ...options, jitter: 'full' }, () => 0.999)).toBe(399);
    expect(backoffDelay(3, { ...options, jitter: 'equal' }, () => 0)).toBe(200);
    expect(backoffDelay(3, { ...options, jitter: 'equal' }, () => 1)).toBe(400);
  });
});
