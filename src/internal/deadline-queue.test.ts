import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DeadlineQueue, type Deadline } from './deadline-queue.js';

const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

describe('DeadlineQueue', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    expect(vi.getTimerCount()).toBe(0);
    vi.useRealTimers();
  });

  it('fires deadlines in expiry order, each at its time, whatever the order they were added', () => {
    const fired: [string, number][] = [];
    const queue = new DeadlineQueue<string>((value) => fired.push([value, Date.now()]));
    const start = Date.now();
    queue.add(300, 'c');
    queue.add(100, 'a');
    queue.add(200, 'b');
    queue.add(100, 'a2');
    expect(queue.size).toBe(4);
    expect(vi.getTimerCount()).toBe(1); // many deadlines, one timer

    vi.advanceTimersByTime(99);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired.map(([v]) => v).sort()).toEqual(['a', 'a2']);
    vi.advanceTimersByTime(100);
    expect(fired.map(([v]) => v)).toContain('b');
    vi.advanceTimersByTime(100);
    expect(fired.map(([v]) => v).slice(2)).toEqual(['b', 'c']);
    expect(fired.map(([, at]) => at - start)).toEqual([100, 100, 200, 300]);
    expect(queue.size).toBe(0);
    expect(queue.armed).toBe(false);
  });

  it('keeps order for many random deadlines', () => {
    const fired: number[] = [];
    const queue = new DeadlineQueue<number>((value) => fired.push(value));
    const delays = Array.from({ length: 500 }, (_, i) => (i * 7919) % 1000);
    for (const ms of delays) queue.add(ms, ms);
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual([...delays].sort((a, b) => a - b));
  });

  it('never fires a cancelled deadline; cancel is idempotent', () => {
    const fired: string[] = [];
    const queue = new DeadlineQueue<string>((value) => fired.push(value));
    const a = queue.add(100, 'a');
    queue.add(200, 'b');
    a.cancel();
    a.cancel();
    expect(queue.size).toBe(1);
    vi.advanceTimersByTime(150);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(50);
    expect(fired).toEqual(['b']);
  });

  it('clears its timer as soon as nothing live is left', () => {
    const onExpire = vi.fn();
    const queue = new DeadlineQueue<number>(onExpire);
    const deadlines = [queue.add(100, 1), queue.add(50, 2), queue.add(300, 3)];
    expect(queue.armed).toBe(true);
    for (const deadline of deadlines) deadline.cancel();
    expect(queue.armed).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    queue.add(10, 4);
    queue.clear();
    expect(queue.armed).toBe(false);
    expect(queue.size).toBe(0);
    vi.advanceTimersByTime(1000);
    expect(onExpire).not.toHaveBeenCalled();
  });

  it('fires the survivors in order after most entries are cancelled (heap compaction)', () => {
    const fired: number[] = [];
    const queue = new DeadlineQueue<number>((value) => fired.push(value));
    const deadlines = Array.from({ length: 1000 }, (_, i) => queue.add(1000 - i, 1000 - i));
    deadlines.forEach((deadline, i) => {
      if (i % 100 !== 0) deadline.cancel();
    });
    expect(queue.size).toBe(10);
    queue.add(5, 5);
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual([5, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
    expect(queue.armed).toBe(false);
  });

  it('waits out delays longer than setTimeout can express instead of firing at once', () => {
    const onExpire = vi.fn();
    const queue = new DeadlineQueue<string>(onExpire);
    const delayMs = MAX_TIMER_DELAY_MS + 5_000;
    queue.add(delayMs, 'far');
    vi.advanceTimersByTime(1);
    expect(onExpire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(MAX_TIMER_DELAY_MS);
    expect(onExpire).not.toHaveBeenCalled();
    expect(queue.armed).toBe(true);
    vi.advanceTimersByTime(delayMs - MAX_TIMER_DELAY_MS - 2);
    expect(onExpire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onExpire).toHaveBeenCalledWith('far');
    expect(queue.armed).toBe(false);
  });

  it('holds no timer for a deadline at Infinity', () => {
    const onExpire = vi.fn();
    const queue = new DeadlineQueue<string>(onExpire);
    const never = queue.add(Infinity, 'never');
    expect(queue.armed).toBe(false);
    queue.add(10, 'soon');
    vi.advanceTimersByTime(10);
    expect(onExpire).toHaveBeenCalledWith('soon');
    // Only the Infinity entry is left: no timer may stay armed for it.
    expect(queue.size).toBe(1);
    expect(queue.armed).toBe(false);
    never.cancel();
    expect(queue.size).toBe(0);
  });

  it('treats negative delays as zero', () => {
    const onExpire = vi.fn();
    const queue = new DeadlineQueue<string>(onExpire);
    queue.add(-50, 'now');
    vi.advanceTimersByTime(0);
    expect(onExpire).toHaveBeenCalledWith('now');
  });

  it('lets a callback add and cancel deadlines', () => {
    const fired: string[] = [];
    const deadlines: Deadline[] = [];
    const queue: DeadlineQueue<string> = new DeadlineQueue<string>((value) => {
      fired.push(value);
      if (value === 'first') {
        queue.add(50, 'added-by-callback');
        deadlines[0]?.cancel();
      }
    });
    queue.add(10, 'first');
    deadlines.push(queue.add(30, 'cancelled-by-callback'));
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['first', 'added-by-callback']);
    expect(queue.armed).toBe(false);
  });

  it('uses the clock it is given', () => {
    let now = 1_000;
    const onExpire = vi.fn();
    const queue = new DeadlineQueue<string>(onExpire, () => now);
    const deadline = queue.add(100, 'x');
    expect(deadline.at).toBe(1_100);
    // The timer fires but the injected clock says it is too early: it re-arms.
    vi.advanceTimersByTime(100);
    expect(onExpire).not.toHaveBeenCalled();
    expect(queue.armed).toBe(true);
    now = 1_100;
    vi.advanceTimersByTime(100);
    expect(onExpire).toHaveBeenCalledWith('x');
  });

  it('keeps expiry order when deadlines come in time order and most are answered, mixed with earlier ones', () => {
    const fired: number[] = [];
    const queue = new DeadlineQueue<number>((value) => fired.push(value));
    // 3,000 deadlines one after another (the common case: one timeout, requests in a row),
    // answered mostly in order with a few left waiting, and a few earlier ones in between.
    const deadlines = new Map<number, Deadline>();
    for (let i = 1; i <= 3000; i++) {
      deadlines.set(i, queue.add(1000 + i, 1000 + i));
      if (i % 500 === 0) deadlines.set(-i, queue.add(i / 10, i / 10));
      const answered = deadlines.get(i - 20);
      if (answered !== undefined && (i - 20) % 700 !== 0) answered.cancel();
    }
    for (let i = 2981; i <= 3000; i++) if (i % 700 !== 0) deadlines.get(i)!.cancel();
    expect(queue.size).toBe(4 + 6);
    vi.advanceTimersByTime(10_000);
    expect(fired).toEqual([50, 100, 150, 200, 250, 300, 1700, 2400, 3100, 3800]);
    expect(queue.armed).toBe(false);
  });
});

describe('DeadlineQueue memory', () => {
  it('lets go of a cancelled deadline’s value while the queue still holds the entry', async () => {
    // A real collection, not a hope: gc from a fresh context with --expose-gc turned on.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const queue = new DeadlineQueue<{ payload: number[] }>(() => {});
    const refs: WeakRef<object>[] = [];
    const deadlines: Deadline[] = [];
    (() => {
      for (let i = 0; i < 3; i++) {
        const value = { payload: new Array<number>(1000).fill(i) };
        refs.push(new WeakRef(value));
        deadlines.push(queue.add(60_000, value));
      }
    })();
    deadlines[0]!.cancel();
    deadlines[1]!.cancel();
    // WeakRefs hold their target until the end of the current job.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(refs[0]!.deref()).toBeUndefined();
    expect(refs[1]!.deref()).toBeUndefined();
    expect(refs[2]!.deref()).toBeDefined(); // a live deadline keeps its value
    expect(queue.size).toBe(1);
    deadlines[2]!.cancel();
    expect(queue.armed).toBe(false);
  });
});
