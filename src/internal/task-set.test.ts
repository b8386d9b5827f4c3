import { describe, expect, it } from 'vitest';
import { deferred } from './wait.js';
import { TaskSet } from './task-set.js';

describe('TaskSet', () => {
  it('hands a failed task to onError, never leaves it unhandled, and forgets settled tasks', async () => {
    const errors: unknown[] = [];
    const tasks = new TaskSet((error) => errors.push(error));
    const failure = new Error('boom');
    tasks.track(Promise.reject(failure));
    tasks.track(Promise.resolve());
    expect(tasks.size).toBe(2);
    await tasks.settled();
    expect(errors).toEqual([failure]);
    // A settled task leaves the set one microtask after it settled.
    await Promise.resolve();
    expect(tasks.size).toBe(0);
  });

  it('settled() waits for every task tracked so far, and for the extra promise', async () => {
    const tasks = new TaskSet(() => {});
    const first = deferred();
    const extra = deferred();
    tasks.track(first.promise);
    let done = false;
    const settled = tasks.settled(extra.promise).then(() => (done = true));
    first.resolve();
    await first.promise;
    await Promise.resolve();
    expect(done).toBe(false);
    extra.resolve();
    await settled;
    expect(done).toBe(true);
  });
});
