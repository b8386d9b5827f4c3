import { describe, expect, it } from 'vitest';
import { LeakGuard } from './leak-guard.js';

describe('LeakGuard', () => {
  it('fails on a timer the code under test left running, and names where it was made', async () => {
    const guard = new LeakGuard();
    const timer = setTimeout(() => {}, 60_000);
    try {
      await expect(guard[Symbol.asyncDispose]()).rejects.toThrow(
        /active handles left: 1 × Timeout[\s\S]*leak-guard\.test\.ts/,
      );
    } finally {
      clearTimeout(timer);
    }
  });

  it('passes when the code under test cleared its timers', async () => {
    const guard = new LeakGuard();
    clearTimeout(setTimeout(() => {}, 60_000));
    await expect(guard[Symbol.asyncDispose]()).resolves.toBeUndefined();
  });
});
