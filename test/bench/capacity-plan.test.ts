/**
 * The capacity benchmark's search for where one replica is no longer enough (bench/lib/
 * capacity-plan.mjs): the first step whose p99 latency passes twice the first step's.
 */
import { describe, expect, it } from 'vitest';
import { describeCrossing, p99Crossing } from '../../bench/lib/capacity-plan.mjs';

describe('p99Crossing', () => {
  it('finds the first step whose p99 is over twice the first step, whatever the order given', () => {
    const crossing = p99Crossing([
      { at: 1000, p99Us: 9000 },
      { at: 1, p99Us: 1000 },
      { at: 100, p99Us: 2500 },
      { at: 10, p99Us: 2000 },
    ]);
    expect(crossing).toEqual({ baselineUs: 1000, limitUs: 2000, at: 100, upTo: 1000 });
    expect(describeCrossing(crossing, 'backends')).toBe('at 100 backends (p99 over 2,000 µs)');
  });

  it('says "not reached" up to the largest step when no p99 passes the limit (exactly twice does not)', () => {
    const crossing = p99Crossing([
      { at: 1, p99Us: 1000 },
      { at: 10, p99Us: 2000 },
      { at: 4000, p99Us: 800 },
    ]);
    expect(crossing.at).toBeUndefined();
    expect(crossing.upTo).toBe(4000);
    expect(describeCrossing(crossing, 'sessions')).toBe('not reached up to 4,000 sessions');
  });

  it('leaves out steps that were not measured, and takes another factor', () => {
    expect(
      p99Crossing(
        [
          { at: 1, p99Us: NaN },
          { at: 10, p99Us: 1000 },
          { at: 100, p99Us: 2500 },
          { at: 1000, p99Us: 3100 },
        ],
        3,
      ),
    ).toEqual({ baselineUs: 1000, limitUs: 3000, at: 1000, upTo: 1000 });
    expect(p99Crossing([]).at).toBeUndefined();
  });
});
