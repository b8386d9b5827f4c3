/**
 * maxMessageBytes (default 16 MiB): a 10 MiB line is received; a 100 MiB line is discarded as it
 * streams in, without parsing or buffering it, the request whose id it carries fails with
 * MESSAGE_TOO_LARGE, and the next request on the same connection succeeds. The huge line may end
 * with its own newline or only with the next response's leading one.
 */
import { describe, expect, it } from 'vitest';
import { McpHostError } from '../../src/index.js';
import { startFixture } from '../helpers/fixture-server.js';
import { MiB, peakRssWhile } from '../helpers/memory.js';
import { rejectionOf, reportTiming, timed } from '../helpers/timing.js';

describe.each([
  { variant: 'ending in a newline', args: [] as string[] },
  { variant: 'without a newline of its own', args: ['--no-newline'] },
])('a huge line $variant', ({ variant, args }) => {
  it('of 100 MiB fails its request with MESSAGE_TOO_LARGE; memory stays flat; the connection survives', async () => {
    await using server = await startFixture('huge-line', { args: ['--mib=100', ...args] });
    const rssBefore = process.memoryUsage.rss();
    const started = performance.now();

    const exchange = async (): Promise<[{ error: unknown }, unknown]> => {
      const first = rejectionOf(server.peer.request('echo', { n: 1 }));
      // Without its own newline, the line only ends with the next response: ask for that once
      // the server says the huge line is out.
      await server.waitForStderr(/^huge line written$/);
      const second = await server.peer.request('echo', { n: 2 });
      return [await first, second];
    };
    const { peakRss, result } = await peakRssWhile(exchange());

    expect(result.status).toBe('fulfilled');
    const [{ error }, answer] = (result as PromiseFulfilledResult<[{ error: unknown }, unknown]>)
      .value;
    expect(error).toBeInstanceOf(McpHostError);
    expect(error).toMatchObject({
      code: 'MESSAGE_TOO_LARGE',
      requestId: 1,
      serverName: 'huge-line',
    });
    expect((error as McpHostError).details?.bytes).toBeGreaterThan(100 * MiB);
    expect((error as McpHostError).message.length).toBeLessThan(1024);
    expect(answer).toEqual({ n: 2 });
    expect(server.transport.stats.oversizedMessages).toBe(1);
    expect(server.transport.state).toBe('open');
    await expect(server.peer.request('echo', { n: 3 })).resolves.toEqual({ n: 3 });

    reportTiming(`100 MiB line discarded (${variant})`, performance.now() - started);
    const growthMiB = (peakRss - rssBefore) / MiB;
    console.log(
      `[memory] peak RSS growth while discarding 100 MiB (${variant}): ${growthMiB.toFixed(1)} MiB`,
    );
    expect(growthMiB).toBeLessThan(100);
  });

  it('of 10 MiB is received whole under the default limit; the next request succeeds', async () => {
    await using server = await startFixture('huge-line', { args: ['--mib=10', ...args] });
    const first = timed(server.peer.request<{ data: string }>('echo', { n: 1 }));
    await server.waitForStderr(/^huge line written$/);
    await expect(server.peer.request('echo', { n: 2 })).resolves.toEqual({ n: 2 });

    const { ms, ...outcome } = await first;
    expect(outcome.ok).toBe(true);
    const { data } = (outcome as { value: { data: string } }).value;
    expect(data).toHaveLength(10 * MiB);
    expect(data).toMatch(/^x+$/);
    expect(server.transport.stats.oversizedMessages).toBe(0);
    reportTiming(`10 MiB line received (${variant})`, ms);
  });
});

describe('a lower maxMessageBytes', () => {
  it('discards a 10 MiB line over a 1 MiB limit, naming the limit', async () => {
    await using server = await startFixture('huge-line', {
      args: ['--mib=10'],
      maxMessageBytes: MiB,
    });
    const { error } = await rejectionOf(server.peer.request('echo', { n: 1 }));
    expect(error).toMatchObject({
      code: 'MESSAGE_TOO_LARGE',
      requestId: 1,
      details: { maxMessageBytes: MiB },
    });
    await expect(server.peer.request('echo', { n: 2 })).resolves.toEqual({ n: 2 });
  });
});
