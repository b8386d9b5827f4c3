/**
 * stderr is always drained into a bounded ring buffer and a rate-limited log: a server that floods
 * it keeps answering, the host keeps at most 64 KiB of it (an error carries at most 8 KiB), every
 * tail and log line is redacted, and a healthy neighbour keeps answering meanwhile.
 */
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ProcessExitedError } from '../../src/index.js';
import { startFixture } from '../helpers/fixture-server.js';
import { MiB } from '../helpers/memory.js';
import { rejectionOf, reportTiming, timed } from '../helpers/timing.js';

const KiB = 1024;

describe('a server that floods stderr', () => {
  it('keeps answering; the host keeps a bounded, redacted tail and a rate-limited log', async () => {
    const token = randomBytes(24).toString('hex');
    await using server = await startFixture('stderr-flood', {
      args: ['--mib-per-response=2'],
      env: { FIXTURE_TOKEN: token },
    });
    await using neighbour = await startFixture('echo');

    // Four calls, each behind 2 MiB of stderr that must be drained before the answer can go out.
    const calls = Promise.all(
      [0, 1, 2, 3].map((i) => server.peer.request<{ stderrBytesWritten: number }>('echo', { i })),
    );
    let floodDone = false;
    const flood = timed(calls).finally(() => (floodDone = true));
    // Meanwhile a healthy neighbour on the same host answers at once, again and again.
    const neighbourTimes: number[] = [];
    while (!floodDone) {
      const { ms, ...outcome } = await timed(neighbour.peer.request('echo', { ping: true }));
      expect(outcome).toMatchObject({ ok: true, value: { ping: true } });
      neighbourTimes.push(ms);
    }
    const { ms, ...outcome } = await flood;

    expect(outcome.ok).toBe(true);
    const results = (outcome as { value: { stderrBytesWritten: number }[] }).value;
    expect(Math.max(...results.map((r) => r.stderrBytesWritten))).toBeGreaterThanOrEqual(8 * MiB);
    expect(server.transport.stats.stderrBytes).toBeGreaterThanOrEqual(7 * MiB);
    reportTiming('4 calls behind 8 MiB of stderr', ms);
    reportTiming(
      `neighbour round trip during the flood, worst of ${neighbourTimes.length}`,
      Math.max(...neighbourTimes),
    );

    expect(Buffer.byteLength(server.transport.stderrTail())).toBeLessThanOrEqual(8 * KiB);
    const whole = server.transport.stderrTail(Number.MAX_SAFE_INTEGER);
    expect(Buffer.byteLength(whole)).toBeLessThanOrEqual(64 * KiB);
    expect(Buffer.byteLength(whole)).toBeGreaterThan(60 * KiB);
    // ~65,000 lines went by; the log got a bounded share of them.
    expect(server.logger.records.length).toBeLessThan(1000);

    const { error } = await rejectionOf(server.peer.request('crash'));
    expect(error).toBeInstanceOf(ProcessExitedError);
    const exited = error as ProcessExitedError;
    expect(exited.exitCode).toBe(7);
    expect(Buffer.byteLength(exited.stderrTail)).toBeLessThanOrEqual(8 * KiB);
    expect(exited.stderrTail).toMatch(/giving up; Authorization: <masked>\n.*fatal: flood over\n$/);
    for (const text of [
      exited.stderrTail,
      exited.message,
      JSON.stringify(exited),
      inspect(exited),
      server.logger.text(),
    ]) {
      expect(text).not.toContain(token);
    }
  });

  it('keeps its stderr tail bounded by stderrBufferBytes', async () => {
    await using server = await startFixture('stderr-flood', { stderrBufferBytes: 4 * KiB });
    await server.peer.request('echo');
    expect(
      Buffer.byteLength(server.transport.stderrTail(Number.MAX_SAFE_INTEGER)),
    ).toBeLessThanOrEqual(4 * KiB);
  });
});
