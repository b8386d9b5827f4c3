/**
 * What a server sends that the client throws away is counted in `McpClient.stats` and reported
 * through `onDiscarded` (stray and duplicate responses, junk lines); a response that arrives
 * broken but names a pending request fails that request at once with INVALID_MESSAGE and a
 * redacted preview, instead of at its timeout; a broken line that names no request is only
 * counted and reported. A host shows the counts in each live server's status. Each server is a
 * real process (test/fixtures/servers).
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { addSecret, McpHost, McpHostError, type DiscardEvent } from '../../src/index.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { fixtureClient, within } from '../helpers/mcp-fixtures.js';
import { rejectionOf, reportTiming } from '../helpers/timing.js';

const server = (name: string): string =>
  fileURLToPath(new URL(`../fixtures/servers/${name}.mjs`, import.meta.url));

/** A generous bound for "at once": far below the 60 s request timeout, never a speed target. */
const AT_ONCE_MS = 2000;

describe('what the client discards', () => {
  it('stray and duplicate responses and junk lines are counted in stats and reported through onDiscarded', async () => {
    await using fixture = fixtureClient('discards', server('discards'));
    const { client } = fixture;
    const events: DiscardEvent[] = [];
    client.onDiscarded((event) => events.push(event));
    await client.connect();
    const before = client.stats;
    expect(before).toMatchObject({ unknownResponses: 0, lateResponses: 0, junkMessages: 0 });

    await expect(client.callTool('stray')).resolves.toMatchObject({
      content: [{ type: 'text', text: 'stray' }],
    });
    await expect(client.callTool('duplicate')).resolves.toMatchObject({
      content: [{ type: 'text', text: 'duplicate' }],
    });
    await expect(client.callTool('junk')).resolves.toMatchObject({
      content: [{ type: 'text', text: 'junk' }],
    });
    // Answered after the duplicate on the same pipe: everything above has been read.
    await client.callTool('echo', { message: 'last' });

    const stats = client.stats;
    expect(stats).toMatchObject({
      unknownResponses: 1,
      lateResponses: 1,
      junkMessages: 3,
      oversizedMessages: 0,
      invalidMessages: 0,
    });
    expect(stats.responsesReceived).toBe(before.responsesReceived + 4);
    expect(stats.requestsSent).toBe(before.requestsSent + 4);

    expect(events.map((e) => e.kind)).toEqual([
      'unknown_response',
      'late_response',
      'junk',
      'junk',
      'junk',
    ]);
    for (const { error } of events) {
      expect(error).toBeInstanceOf(McpHostError);
      expect(error).toMatchObject({ code: 'INVALID_MESSAGE', serverName: 'discards' });
      expect(error.message.length).toBeLessThan(1024);
    }
    const [stray, late, junk] = events;
    expect(stray!.error.message).toContain('dropped a response to id 777777');
    expect(stray!.error.requestId).toBeUndefined();
    expect(late!.error.message).toContain('already settled');
    expect(late!.error.requestId).toEqual(expect.any(Number));
    expect(junk!.error.message).toContain('skipped a line on stdout that is not JSON');
    expect(junk!.error.message).toContain('log line 0: not JSON');
    expect(client.state).toBe('ready');
  });

  it('reports of a flood are rate-limited, and stats still count every line', async () => {
    await using fixture = fixtureClient('discards', server('discards'), ['--junk=5000']);
    const { client } = fixture;
    const events: DiscardEvent[] = [];
    client.onDiscarded((event) => events.push(event));
    await client.connect();
    await client.callTool('junk');
    await client.callTool('junk');
    expect(client.stats.junkMessages).toBe(10_000);
    // A burst of 5, then one a second: a few reports, not ten thousand.
    expect(events.length).toBeGreaterThan(0);
    expect(events.length).toBeLessThan(20);
    const last = events.at(-1)!.error.message;
    if (events.length > 5) expect(last).toMatch(/\(\d+ more since the last report\)/);
  });
});

describe("a host's server status", () => {
  it('shows what the live connection discarded', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost({
      servers: [
        {
          name: 'discards',
          transport: { type: 'stdio', command: process.execPath, args: [server('discards')] },
        },
      ],
    });
    await host.start();
    const status = () => host.status().find((s) => s.name === 'discards');
    expect(status()?.discarded).toEqual({
      unknownResponses: 0,
      lateResponses: 0,
      invalidMessages: 0,
      junkMessages: 0,
      oversizedMessages: 0,
    });
    await host.callTool('mcp__discards__junk', {});
    await host.callTool('mcp__discards__stray', {});
    expect(status()?.discarded).toMatchObject({ junkMessages: 3, unknownResponses: 1 });
    await host.disableServer('discards');
    expect(status()?.discarded).toBeUndefined();
  });
});

describe('a broken response', () => {
  it('naming a pending request fails it at once with INVALID_MESSAGE and a redacted preview', async () => {
    const secret = `canary-${randomBytes(6).toString('hex')}`;
    using _secret = addSecret(secret); // what config does for a value it knows is secret
    await using fixture = fixtureClient('broken', server('broken-response'), [], {
      env: { FIXTURE_SECRET: secret },
    });
    const { client, processes } = fixture;
    const events: DiscardEvent[] = [];
    client.onDiscarded((event) => events.push(event));
    await client.connect();

    const { error, at } = await within(rejectionOf(client.callTool('cut')), AT_ONCE_MS, 'failure');
    const written = await processes[0]!.waitForRecord('broken');
    const ms = at - (written.at as number);
    reportTiming('broken response with a pending id to its failure', ms);
    expect(ms).toBeLessThan(AT_ONCE_MS);

    expect(error).toBeInstanceOf(McpHostError);
    const failure = error as McpHostError;
    expect(failure).toMatchObject({
      code: 'INVALID_MESSAGE',
      serverName: 'broken',
      requestId: written.id,
    });
    expect(failure.message).toContain(`skipped a response to request ${String(written.id)}`);
    expect(failure.message).toContain('{"jsonrpc":"2.0","id":');
    expect(failure.message).toContain('<masked>');
    for (const text of [failure.message, JSON.stringify(failure), inspect(failure)])
      expect(text).not.toContain(secret);
    expect(events).toEqual([{ kind: 'junk', error }]);
    expect(client.stats.junkMessages).toBe(1);

    // The connection keeps working.
    await expect(client.callTool('echo', { message: 'still here' })).resolves.toMatchObject({
      content: [{ text: 'still here' }],
    });
  });

  it('whose id is in its tail (the SDKs write result, jsonrpc, id) fails its request at once too', async () => {
    await using fixture = fixtureClient('broken', server('broken-response'));
    const { client, processes } = fixture;
    await client.connect();
    const { error, at } = await within(
      rejectionOf(client.callTool('corrupt')),
      AT_ONCE_MS,
      'failure',
    );
    const written = await processes[0]!.waitForRecord('broken');
    reportTiming(
      'corrupt response with its id in the tail to its failure',
      at - (written.at as number),
    );
    expect(error).toMatchObject({ code: 'INVALID_MESSAGE', requestId: written.id });
    expect(client.state).toBe('ready');
  });

  it('naming no request is only counted and reported; the call gets its real answer', async () => {
    await using fixture = fixtureClient('broken', server('broken-response'));
    const { client } = fixture;
    const events: DiscardEvent[] = [];
    client.onDiscarded((event) => events.push(event));
    await client.connect();

    await expect(client.callTool('no-id')).resolves.toMatchObject({
      content: [{ text: 'answered after all' }],
    });
    expect(client.stats.junkMessages).toBe(1);
    expect(events).toHaveLength(1);
    expect(events[0]!.kind).toBe('junk');
    expect(events[0]!.error).toMatchObject({ code: 'INVALID_MESSAGE', requestId: undefined });
    expect(events[0]!.error.message).toContain('skipped a line on stdout that is not JSON');
  });
});
