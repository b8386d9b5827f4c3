import { afterEach, describe, expect, it, vi } from 'vitest';
import { PostDeadlines, RequestCancel } from './request-cancel.js';

describe('RequestCancel', () => {
  it('emits abort once, and makes a real AbortSignal on demand', () => {
    const cancel = new RequestCancel();
    const seen: string[] = [];
    const stop = cancel.onAbort(() => seen.push('a'));
    cancel.onAbort(() => seen.push('b'))();
    const { signal } = cancel;
    expect(signal.aborted).toBe(false);
    cancel.abort();
    cancel.abort();
    stop();
    expect(seen).toEqual(['a']);
    expect(signal.aborted).toBe(true);
    expect(new RequestCancel().signal).not.toBe(signal);
    const late: string[] = [];
    cancel.onAbort(() => late.push('now'));
    expect(late).toEqual(['now']);
  });
});

describe('PostDeadlines', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('aborts each exchange at its own deadline with one timer, and not settled ones', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const deadlines = new PostDeadlines(100);
    const a = new RequestCancel();
    const b = new RequestCancel();
    const c = new RequestCancel();
    deadlines.add(a);
    vi.advanceTimersByTime(30);
    deadlines.add(b);
    vi.advanceTimersByTime(30);
    deadlines.add(c);
    deadlines.delete(b);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(39);
    expect([a.aborted, b.aborted, c.aborted]).toEqual([false, false, false]);
    vi.advanceTimersByTime(1);
    expect(a).toMatchObject({ aborted: true, timedOut: true });
    expect(b.aborted).toBe(false);
    vi.advanceTimersByTime(59);
    expect(c.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(c).toMatchObject({ aborted: true, timedOut: true });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('abortAll aborts every live exchange (not as timed out), stops the timer and later adds', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const deadlines = new PostDeadlines(1000);
    const a = new RequestCancel();
    deadlines.add(a);
    deadlines.abortAll();
    expect(a).toMatchObject({ aborted: true, timedOut: false });
    expect(vi.getTimerCount()).toBe(0);
    const late = new RequestCancel();
    deadlines.add(late);
    expect(late.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});
