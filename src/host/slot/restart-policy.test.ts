import { describe, expect, it } from 'vitest';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { RestartPolicy } from './restart-policy.js';

const crashed = new McpHostError('PROCESS_EXITED', 'exited');

describe('RestartPolicy', () => {
  it('restarts after a growing, jittered backoff, then calls a crash loop at the limit', () => {
    const policy = new RestartPolicy({ baseDelayMs: 100, maxDelayMs: 300, crashLimit: 4 }, () => 1);
    const decisions = [0, 1, 2, 3].map((t) => policy.onFailure(crashed, t));
    expect(decisions).toEqual([
      { action: 'restart', delayMs: 100 },
      { action: 'restart', delayMs: 200 },
      { action: 'restart', delayMs: 300 },
      { action: 'crash_loop', failures: 4 },
    ]);
  });

  it('forgets failures outside the window, and all of them on reset', () => {
    const policy = new RestartPolicy(
      { baseDelayMs: 10, crashLimit: 2, crashWindowMs: 1_000 },
      () => 1,
    );
    expect(policy.onFailure(crashed, 0)).toEqual({ action: 'restart', delayMs: 10 });
    expect(policy.onFailure(crashed, 5_000)).toEqual({ action: 'restart', delayMs: 10 });
    expect(policy.onFailure(crashed, 5_001)).toEqual({ action: 'crash_loop', failures: 2 });
    policy.reset();
    expect(policy.onFailure(crashed, 5_002)).toEqual({ action: 'restart', delayMs: 10 });
  });

  it('waits for credentials on 401/403, stops on a permanent error or when restarts are off', () => {
    const policy = new RestartPolicy();
    const refused = new McpHostError('HTTP_STATUS', 'refused', { details: { status: 403 } });
    expect(policy.onFailure(refused)).toEqual({ action: 'needs_auth' });
    expect(policy.onFailure(new McpHostError('SPAWN_FAILED', 'no such command'))).toEqual({
      action: 'stop',
    });
    expect(new RestartPolicy({ enabled: false }).onFailure(crashed)).toEqual({ action: 'stop' });
  });
});
