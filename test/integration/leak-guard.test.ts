/**
 * The leak guard itself: a timer left running fails the check and is named by where it was
 * created (so a flaky "1 × Timeout" says whose timer it is); one cleared in time passes.
 */
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../helpers/leak-guard.js';

function leaveATimerRunning(): NodeJS.Timeout {
  return setTimeout(() => {}, 60_000);
}

describe('leakGuard and timers', () => {
  it('names the creation site of a timer left running', async () => {
    const guard = leakGuard();
    const timer = leaveATimerRunning();
    try {
      await expect(guard[Symbol.asyncDispose]()).rejects.toThrow(
        /active handles left: 1 × Timeout\n {2}timer created at leaveATimerRunning \(.*leak-guard\.test\.ts:\d+/,
      );
    } finally {
      clearTimeout(timer);
    }
  });

  it('a timer cleared before the end, or unref’d, is no leak', async () => {
    await using guard = leakGuard();
    void guard;
    clearTimeout(leaveATimerRunning());
    leaveATimerRunning().unref();
  });
});
