import { describe, expect, it } from 'vitest';
import { formatWatchEvent } from './watch-events.js';

describe('formatWatchEvent', () => {
  it("a server's line names it once: its status's error carries no second one", () => {
    expect(
      formatWatchEvent({
        type: 'server',
        time: '2026-11-22T05:23:52.859Z',
        server: 'slow',
        state: 'failed',
        toolCount: 0,
        restartCount: 0,
        error: { code: 'REQUEST_TIMEOUT', message: 'connect timed out' },
      }),
    ).toBe('05:23:52.859  server  slow             failed     REQUEST_TIMEOUT: connect timed out');
  });

  it('a failed call keeps the message as it is (the line names the tool, not the server)', () => {
    expect(
      formatWatchEvent({
        type: 'call',
        time: '2026-11-22T05:23:52.859Z',
        phase: 'failed',
        tool: 'mcp__slow__echo',
        server: 'slow',
        durationMs: 12,
        outcome: 'error',
        error: { code: 'REQUEST_TIMEOUT', message: "server 'slow': timed out" },
      }),
    ).toBe("05:23:52.859  call    ✗ mcp__slow__echo 12 ms error: server 'slow': timed out");
  });
});
