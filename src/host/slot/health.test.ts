import { describe, expect, it } from 'vitest';
import { HealthCount } from './health.js';

describe('HealthCount', () => {
  it('a failed check degrades, the limit in a row wedges, a pass heals and resets the count', () => {
    const health = new HealthCount({ failuresBeforeRestart: 3 });
    expect([false, false, true, false, false, false].map((ok) => health.record(ok))).toEqual([
      'degraded',
      'degraded',
      'healthy',
      'degraded',
      'degraded',
      'wedged',
    ]);
    health.reset();
    expect(health.failures).toBe(0);
    expect(new HealthCount(undefined).record(false)).toBe('degraded');
  });
});
