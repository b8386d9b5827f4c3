/**
 * The host's result budget, seen from outside: a result over `maxResultBytes` is cut and marked
 * where a caller can see it (the result's `_meta["io.mcp-host/truncated"]`, the call event's
 * `truncated`, the metrics' `truncated` counters), against a real server over stdio whose results
 * are as large as asked (test/fixtures/servers/huge-result.mjs). A server cannot claim the mark.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  McpHost,
  RESULT_TRUNCATED_META_KEY,
  type McpHostOptions,
  type ResultTruncation,
  type ToolCallEvent,
} from '../../src/index.js';
import { leakGuard } from '../helpers/leak-guard.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/servers/huge-result.mjs', import.meta.url));
const MIB = 1024 * 1024;

function hostWith(options: Partial<McpHostOptions> = {}): McpHost {
  return new McpHost({
    callTimeoutMs: 30_000,
    ...options,
    servers: [
      {
        name: 'huge',
        transport: { type: 'stdio', command: process.execPath, args: [FIXTURE] },
        client: { era: 'legacy' },
      },
    ],
  });
}

/** Every `completed` call event, in order. */
function completedEvents(host: McpHost): ToolCallEvent[] {
  const events: ToolCallEvent[] = [];
  host.onToolCall((event) => {
    if (event.phase === 'completed') events.push(event);
  });
  return events;
}

/** UTF-8 bytes of the text blocks (what the budget counts for them). */
const textLength = (content: readonly { type: string; text?: string }[]) =>
  content.reduce((sum, block) => sum + Buffer.byteLength(block.text ?? ''), 0);

describe('a result over the result budget', () => {
  it('is cut to the default 1 MiB and marked in _meta, in the call event and in the metrics', async () => {
    await using _guard = leakGuard();
    await using host = hostWith();
    const events = completedEvents(host);
    await host.start();

    const result = await host.callTool('mcp__huge__big', { bytes: 2 * MIB });
    const mark = result._meta?.[RESULT_TRUNCATED_META_KEY] as ResultTruncation | undefined;
    expect(mark).toEqual({
      originalBytes: 2 * MIB,
      keptBytes: expect.any(Number),
      maxBytes: MIB,
      structuredContentDropped: false,
    });
    expect(mark!.keptBytes).toBeLessThanOrEqual(MIB);
    expect(mark!.keptBytes).toBeGreaterThan(MIB / 2);
    expect(textLength(result.content)).toBe(mark!.keptBytes);
    // The server's own _meta is kept beside the mark.
    expect(result._meta?.['com.example/trace']).toBe('t-1');
    expect(events.at(-1)).toMatchObject({ tool: 'mcp__huge__big', outcome: 'ok', truncated: mark });

    const metrics = host.metrics();
    expect(metrics.total.truncated).toBe(1);
    expect(metrics.servers.huge?.truncated).toBe(1);
    expect(metrics.tools.mcp__huge__big?.truncated).toBe(1);
  });

  it('under the budget: no mark, no truncated in the event, not counted', async () => {
    await using _guard = leakGuard();
    await using host = hostWith({ maxResultBytes: 64 * 1024 });
    const events = completedEvents(host);
    await host.start();

    const small = await host.callTool('mcp__huge__big', { bytes: 1000 });
    expect(small._meta?.[RESULT_TRUNCATED_META_KEY]).toBeUndefined();
    expect(small._meta?.['com.example/trace']).toBe('t-1');
    expect(textLength(small.content)).toBe(1000);
    expect(events.at(-1)).not.toHaveProperty('truncated');

    const cut = await host.callTool('mcp__huge__big', { bytes: 200_000 });
    expect(cut._meta?.[RESULT_TRUNCATED_META_KEY]).toMatchObject({
      originalBytes: 200_000,
      maxBytes: 64 * 1024,
    });
    expect(events.at(-1)?.truncated).toMatchObject({ originalBytes: 200_000 });
    expect(host.metrics().total).toMatchObject({ calls: 2, truncated: 1 });
  });

  it('with maxResultBytes 0 (no budget) is handed on whole, unmarked', async () => {
    await using _guard = leakGuard();
    await using host = hostWith({ maxResultBytes: 0 });
    await host.start();
    const whole = await host.callTool('mcp__huge__big', { bytes: 2 * MIB });
    expect(textLength(whole.content)).toBe(2 * MIB);
    expect(whole._meta?.[RESULT_TRUNCATED_META_KEY]).toBeUndefined();
    expect(host.metrics().total.truncated).toBe(0);
  });

  it('a server cannot claim that the host cut its result: its mark is removed', async () => {
    await using _guard = leakGuard();
    await using host = hostWith();
    const events = completedEvents(host);
    await host.start();
    const result = await host.callTool('mcp__huge__claims-cut', {});
    expect(result._meta).toEqual({ 'com.example/trace': 't-2' });
    expect(result.content).toEqual([{ type: 'text', text: 'small' }]);
    expect(events.at(-1)).not.toHaveProperty('truncated');
    expect(host.metrics().total.truncated).toBe(0);
  });
});
