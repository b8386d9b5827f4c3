import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deferred, delay, settlesWithin } from './wait.js';

describe('settlesWithin', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    expect(vi.getTimerCount()).toBe(0);
    vi.useRealTimers();
  });

  it('is true when the promise settles in time, and clears its timer at once', async () => {
    const { promise, resolve } = deferred();
    const result = settlesWithin(promise, 1_000);
    await vi.advanceTimersByTimeAsync(999);
    resolve();
    expect(await result).toBe(true);
  });

  it('counts a rejection as settling', async () => {
    const failing = Promise.reject(new Error('x'));
    expect(await settlesWithin(failing, 1_000)).toBe(true);
  });

  it('is false when the time runs out first', async () => {
    const { promise, resolve } = deferred();
    const result = settlesWithin(promise, 1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await result).toBe(false);
    resolve();
  });

  it('is false at once for a non-positive wait on a pending promise, with no timer', async () => {
    const { promise, resolve } = deferred();
    const result = settlesWithin(promise, 0);
    expect(vi.getTimerCount()).toBe(0);
    expect(await result).toBe(false);
    resolve();
  });
});

describe('deferred', () => {
  it('resolves with the value given', async () => {
    const { promise, resolve } = deferred<number>();
    resolve(42);
    expect(await promise).toBe(42);
  });
});

describe('delay', () => {
  it('resolves after the time, on an unref’d timer', async () => {
    vi.useFakeTimers();
    try {
      let done = false;
      const promise = delay(100).then(() => (done = true));
      await vi.advanceTimersByTimeAsync(99);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await promise;
      expect(done).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not keep the process alive', async () => {
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    let waiting: Promise<void> | undefined;
    try {
      waiting = delay(1);
      const timer = setTimeoutSpy.mock.results[0]!.value as NodeJS.Timeout;
      expect(timer.hasRef()).toBe(false);
    } finally {
      setTimeoutSpy.mockRestore();
      await waiting;
    }
  });
});
