import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limiter.js';

function clock(start = 0): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

describe('RateLimiter', () => {
  it('allows a burst, then refuses and counts what it refused', () => {
    const c = clock();
    const limiter = new RateLimiter(1, 3, c.now);
    expect([limiter.take(), limiter.take(), limiter.take()]).toEqual([0, 0, 0]);
    expect(limiter.take()).toBe(-1);
    expect(limiter.take()).toBe(-1);
    expect(limiter.suppressed).toBe(2);
  });

  it('refills at the given rate and reports how many were suppressed since the last allowed event', () => {
    const c = clock();
    const limiter = new RateLimiter(2, 1, c.now); // one token every 500 ms
    expect(limiter.take()).toBe(0);
    for (let i = 0; i < 5; i++) expect(limiter.take()).toBe(-1);
    c.advance(499);
    expect(limiter.take()).toBe(-1);
    c.advance(1);
    expect(limiter.take()).toBe(6);
    expect(limiter.suppressed).toBe(0);
    c.advance(500);
    expect(limiter.take()).toBe(0);
  });

  it('never holds more than the burst, however long it was idle', () => {
    const c = clock();
    const limiter = new RateLimiter(10, 2, c.now);
    limiter.take();
    limiter.take();
    c.advance(3_600_000);
    expect([limiter.take(), limiter.take(), limiter.take()]).toEqual([0, 0, -1]);
  });

  it('a clock going backwards neither adds tokens nor throws', () => {
    const c = clock(10_000);
    const limiter = new RateLimiter(1, 1, c.now);
    expect(limiter.take()).toBe(0);
    c.advance(-5_000);
    expect(limiter.take()).toBe(-1);
    c.advance(6_000);
    expect(limiter.take()).toBe(1);
  });
});
