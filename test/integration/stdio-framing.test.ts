/**
 * What a server prints on stdout that is not a response we wait for: junk lines are skipped,
 * counted and reported at a bounded rate, without stalling; responses with unknown, duplicate or
 * string ids are dropped and counted, and never resolve the wrong call.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { startFixture } from '../helpers/fixture-server.js';
import { reportTiming, timed } from '../helpers/timing.js';

describe('junk lines on stdout', () => {
  it('are skipped, counted and reported; every response still arrives', async () => {
    await using server = await startFixture('junk-stdout'); // 3 junk lines per response
    for (let i = 0; i < 4; i++)
      await expect(server.peer.request('echo', { i })).resolves.toEqual({ i });

    const { stats } = server.transport;
    expect(stats.junkLines).toBe(12); // blank and CR-only lines are not junk, just skipped
    expect(stats.messagesReceived).toBe(4);
    expect(server.problems.length).toBeGreaterThan(0);
    expect(server.problems.length).toBeLessThanOrEqual(12);
    for (const problem of server.problems) {
      expect(problem.error).toMatchObject({ code: 'INVALID_MESSAGE', serverName: 'junk-stdout' });
      expect(problem.requestId).toBeUndefined();
    }
    expect(server.problems[0]!.error.message).toContain('junk 0: starting up, this is not JSON');
    expect(server.transport.state).toBe('open');
  });

  it('10,000 per response do not stall the event loop, and reports stay rate-limited', async () => {
    const responses = 3;
    await using server = await startFixture('junk-stdout', { args: ['--junk-per-response=10000'] });
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const times: number[] = [];
    try {
      for (let i = 0; i < responses; i++) {
        const { ms, ...outcome } = await timed(server.peer.request('echo', { i }));
        expect(outcome).toMatchObject({ ok: true, value: { i } });
        times.push(ms);
      }
    } finally {
      loopDelay.disable();
    }
    const total = times.reduce((a, b) => a + b, 0);
    for (const ms of times) reportTiming('response behind 10,000 junk lines', ms);
    reportTiming('longest event-loop stall meanwhile', loopDelay.max / 1e6);

    expect(server.transport.stats.junkLines).toBe(10_000 * responses);
    for (const ms of times) expect(ms).toBeLessThan(5000);
    // 1 report per second after a burst of 5, however many lines.
    expect(server.problems.length).toBeLessThanOrEqual(5 + Math.ceil(total / 1000));
    const warnings = server.logger.records.filter((r) => r.level === 'warn');
    expect(warnings.length).toBeLessThanOrEqual(5 + Math.ceil(total / 1000));
  });
});

describe('responses with ids we are not waiting for', () => {
  it('are dropped and counted (unknown, duplicate, string "1" for 1); later calls succeed', async () => {
    await using server = await startFixture('bad-ids');
    const { peer } = server;

    // For call 1 the server first answers id "1", then 999999, then 1, then 1 again.
    await expect(peer.request('call', { n: 1 })).resolves.toEqual({ n: 1 });
    // A plain call behind them proves every answer to call 1 has been read.
    await expect(peer.request('echo', { n: 2 })).resolves.toEqual({ n: 2 });
    expect(peer.stats).toMatchObject({
      responsesReceived: 2,
      unknownResponses: 2,
      lateResponses: 1,
    });

    await expect(peer.request('call', { n: 3 })).resolves.toEqual({ n: 3 });
    await expect(peer.request('echo', { n: 4 })).resolves.toEqual({ n: 4 });
    expect(peer.stats).toMatchObject({
      responsesReceived: 4,
      unknownResponses: 4,
      lateResponses: 2,
    });
    expect(peer.pendingCount).toBe(0);
  });
});
