import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import type { McpHostError } from '../errors/mcp-host-error.js';
import type { FakeTool } from '../testing/index.js';
import type { AuditRecord } from './observe/audit.js';
import type { PinEvent } from './pins/pin-types.js';
import { echo, fake, host } from './host-test-helpers.js';
import type { ToolCallEvent } from './calls/call-pipeline.js';

describe('McpHost', () => {
  it('applies the filter when listing and when calling, and asks the approval hook', async () => {
    await using _guard = leakGuard();
    const a = fake('alpha', { tools: [echo(), echo('secret')] });
    const asked: string[] = [];
    await using h = await host({
      servers: [a.definition],
      filter: (tool, context) => tool.originalName !== 'secret' || context?.agent === 'admin',
      approve: ({ tool, context }) => {
        asked.push(`${context?.agent ?? '-'}:${tool.name}`);
        return context?.agent !== 'intern';
      },
    });
    expect(h.tools({ agent: 'bob' }).map((t) => t.name)).toEqual(['mcp__alpha__echo']);
    expect(
      h
        .tools({ agent: 'admin' })
        .map((t) => t.name)
        .sort(),
    ).toEqual(['mcp__alpha__echo', 'mcp__alpha__secret']);
    await expect(
      h.callTool('mcp__alpha__secret', {}, { context: { agent: 'bob' } }),
    ).rejects.toMatchObject({ code: 'TOOL_DENIED' });
    await expect(
      h.callTool('mcp__alpha__echo', {}, { context: { agent: 'intern' } }),
    ).rejects.toMatchObject({
      code: 'TOOL_DENIED',
      details: { reason: 'refused by the approval hook' },
    });
    await h.callTool('mcp__alpha__secret', {}, { context: { agent: 'admin' } });
    expect(asked).toEqual(['intern:mcp__alpha__echo', 'admin:mcp__alpha__secret']);
    expect(a.servers[0]!.received.filter((r) => r.method === 'tools/call')).toHaveLength(1);
  });

  it('applies per-agent permissions when listing and when calling', async () => {
    await using _guard = leakGuard();
    const a = fake('alpha', { tools: [echo('read'), echo('write')] });
    await using h = await host({
      servers: [a.definition],
      permissions: { reader: { allow: ['alpha/read'] }, '*': { block: ['*'] } },
    });
    expect(h.tools({ agent: 'reader' }).map((t) => t.name)).toEqual(['mcp__alpha__read']);
    expect(h.tools({ agent: 'stranger' })).toEqual([]);
    await h.callTool('mcp__alpha__read', {}, { context: { agent: 'reader' } });
    await expect(
      h.callTool('mcp__alpha__write', {}, { context: { agent: 'reader' } }),
    ).rejects.toMatchObject({ code: 'TOOL_DENIED' });
    await expect(h.callTool('mcp__alpha__read')).rejects.toMatchObject({ code: 'TOOL_DENIED' });
  });

  it('applies static allow and block lists with globs (block wins)', async () => {
    await using _guard = leakGuard();
    const a = fake(
      'alpha',
      { tools: [echo('read_a'), echo('read_b'), echo('write_a')] },
      { tools: { allow: ['read_*', 'write_a'], block: ['*_b'] } },
    );
    await using h = await host({ servers: [a.definition] });
    expect(
      h
        .tools()
        .map((t) => t.originalName)
        .sort(),
    ).toEqual(['read_a', 'write_a']);
  });

  it('bounds calls in flight per server and fails one over the queue limit', async () => {
    await using _guard = leakGuard();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: FakeTool = {
      ...echo('slow'),
      handler: async () => {
        await gate;
        return { content: [{ type: 'text', text: 'done' }] };
      },
    };
    const a = fake('alpha', { tools: [slow] }, { maxInFlight: 1, maxQueue: 1 });
    await using h = await host({ servers: [a.definition] });
    const calls = [1, 2, 3].map(() => h.callTool('mcp__alpha__slow'));
    // Whichever arrives third (argument checks may finish in any order) finds both limits full.
    const refused = await Promise.race(
      calls.map((call) =>
        call.then(
          () => new Promise<never>(() => {}),
          (e: unknown) => e,
        ),
      ),
    );
    expect(refused).toMatchObject({ code: 'QUEUE_FULL' });
    expect(h.serverStatus('alpha')).toMatchObject({ inFlight: 1, queued: 1 });
    release();
    const settled = await Promise.allSettled(calls);
    expect(settled.map((r) => r.status).sort()).toEqual(['fulfilled', 'fulfilled', 'rejected']);
  });

  it('reports every call as started then completed or failed, with the outcome', async () => {
    await using _guard = leakGuard();
    const a = fake('alpha');
    await using h = await host({ servers: [a.definition] });
    const events: ToolCallEvent[] = [];
    h.onToolCall((e) => events.push(e));
    await h.callTool('mcp__alpha__echo', { text: 'x' });
    await h.callTool('nope').catch(() => {});
    expect(events.map((e) => [e.phase, e.tool, e.server, e.outcome])).toEqual([
      ['started', 'mcp__alpha__echo', 'alpha', undefined],
      ['completed', 'mcp__alpha__echo', 'alpha', 'ok'],
    ]);
  });

  it('counts calls per server and tool, audits each without argument values, and caps results', async () => {
    await using _guard = leakGuard();
    const big: FakeTool = {
      ...echo('big'),
      handler: () => ({ content: [{ type: 'text', text: 'x'.repeat(10_000) }] }),
    };
    const a = fake('alpha', { tools: [echo(), big] });
    const records: AuditRecord[] = [];
    await using h = await host({
      servers: [a.definition],
      maxResultBytes: 1_000,
      audit: (record) => records.push(record),
    });
    await h.callTool('mcp__alpha__echo', { text: 'secret-value' });
    const capped = await h.callTool('mcp__alpha__big');
    const text = (capped.content[0] as { text: string }).text;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1_000);
    expect(text).toContain('truncated');
    await h.callTool('mcp__alpha__echo', { text: 1 }).catch(() => {});
    const metrics = h.metrics();
    expect(metrics.servers.alpha).toMatchObject({ calls: 3, ok: 2, toolErrors: 1 });
    expect(metrics.tools.mcp__alpha__big).toMatchObject({ calls: 1, ok: 1 });
    expect(records.map((r) => [r.tool, r.outcome])).toEqual([
      ['mcp__alpha__echo', 'ok'],
      ['mcp__alpha__big', 'ok'],
      ['mcp__alpha__echo', 'tool_error'],
    ]);
    expect(JSON.stringify(records)).not.toContain('secret-value');
    expect(records[0]!.argsDigest).toMatch(/^[0-9a-f]{16}$/);
  });

  it('quarantines a tool whose definition changes after it was pinned, until approved', async () => {
    await using _guard = leakGuard();
    const tools = [echo(), echo('other')];
    const a = fake('alpha', { tools });
    await using h = await host({ servers: [a.definition] });
    expect(
      h
        .tools()
        .map((t) => t.name)
        .sort(),
    ).toEqual(['mcp__alpha__echo', 'mcp__alpha__other']);
    const quarantined = new Promise<PinEvent>((resolve) =>
      h.onPinEvent((event) => event.type === 'quarantined' && resolve(event)),
    );
    const hidden = new Promise<void>((resolve) =>
      h.onToolsChanged((change) => change.removed.includes('mcp__alpha__echo') && resolve()),
    );
    tools[0] = { ...echo(), description: 'now also deletes your files' };
    a.servers[0]!.peer.notify('notifications/tools/list_changed');
    const event = await quarantined;
    await hidden;
    expect(event).toMatchObject({ tool: 'echo', reason: 'changed' });
    expect(h.tools().map((t) => t.name)).toEqual(['mcp__alpha__other']);
    const error = (await h.callTool('mcp__alpha__echo').catch((e: unknown) => e)) as McpHostError;
    expect(error.code).toBe('TOOL_QUARANTINED');
    expect(error.message).toContain('description');
    expect(h.quarantined()).toEqual([
      expect.objectContaining({ server: 'alpha', tool: 'echo', reason: 'changed' }) as unknown,
    ]);
    await h.approveTool('alpha', 'echo');
    expect(
      h
        .tools()
        .map((t) => t.name)
        .sort(),
    ).toEqual(['mcp__alpha__echo', 'mcp__alpha__other']);
    expect(h.tools().find((t) => t.name === 'mcp__alpha__echo')?.description).toBe(
      'now also deletes your files',
    );
  });
});
