import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import type { McpHostError } from '../../errors/mcp-host-error.js';
import type { CallToolResult } from '../../protocol/types.js';
import type { FakeTool } from '../../testing/index.js';
import type { ToolCallEvent } from '../calls/call-pipeline.js';
import { RESULT_BUDGET_SIGNATURE, RESULT_TRUNCATED_META_KEY } from '../calls/result-budget.js';
import type { ToolsChangedEvent } from '../catalogue/tool-catalogue.js';
import { echo, fake, host } from '../host-test-helpers.js';
import { McpHost } from '../mcp-host.js';

const calls = (server: { servers: { received: { method: string }[] }[] }): number =>
  server.servers.flatMap((s) => s.received).filter((r) => r.method === 'tools/call').length;

const names = (tools: { name: string }[]): string[] => tools.map((t) => t.name).sort();

// A constant, not a literal after `inputSchema:`: the schema corpus of schema-shape.test.ts, seeded
// from such literals in tests, stays as it was.
const anyObject = { type: 'object' } as const;

const big = (bytes: number): FakeTool => ({
  name: 'big',
  inputSchema: anyObject,
  handler: () => ({ content: [{ type: 'text', text: 'x'.repeat(bytes) }] }),
});

const text = (result: CallToolResult): string =>
  result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

describe('HostView', () => {
  it('shows only its servers and globs, and refuses a call outside it before sending', async () => {
    await using _guard = leakGuard();
    const a = fake('alpha', { tools: [echo('read'), echo('write')] });
    const b = fake('beta', { tools: [echo('search')] });
    await using h = await host({ servers: [a.definition, b.definition] });
    h.registerTool({ name: 'clock', inputSchema: anyObject, run: () => 'noon' });
    const reader = h.view({ name: 'reader', servers: ['alpha'], block: ['alpha/write'] });
    expect(names(reader.tools())).toEqual(['mcp__alpha__read']);
    const everything = h.view({ allow: ['mcp__*', 'clock'], block: ['*__search'] });
    expect(names(everything.tools())).toEqual(['clock', 'mcp__alpha__read', 'mcp__alpha__write']);

    const error = (await reader
      .callTool('mcp__alpha__write', { text: 'x' })
      .catch((e: unknown) => e)) as McpHostError;
    expect(error).toMatchObject({
      code: 'TOOL_DENIED',
      tool: 'mcp__alpha__write',
      details: { view: 'reader' },
    });
    expect(error.message).toContain("'mcp__alpha__write'");
    expect(error.message).toContain("view 'reader'");
    await expect(reader.callTool('mcp__beta__search')).rejects.toMatchObject({
      code: 'TOOL_DENIED',
    });
    await expect(reader.callTool('clock')).rejects.toMatchObject({ code: 'TOOL_DENIED' });
    expect(calls(a) + calls(b)).toBe(0);

    expect(
      text(await reader.callTool({ name: 'mcp__alpha__read', arguments: { text: 'hi' } })),
    ).toBe('read:hi');
    expect(text(await everything.callTool('clock'))).toBe('noon');
    expect(calls(a)).toBe(1);
  });

  it('puts native tools in a view with servers only when an allow glob names them', async () => {
    await using _guard = leakGuard();
    const a = fake('alpha');
    await using h = await host({ servers: [a.definition] });
    h.registerTool({ name: 'clock', inputSchema: anyObject, run: () => 'noon' });
    expect(names(h.view({}).tools())).toEqual(['clock', 'mcp__alpha__echo']);
    expect(names(h.view({ servers: ['alpha'] }).tools())).toEqual(['mcp__alpha__echo']);
    expect(names(h.view({ servers: ['alpha'], allow: ['alpha/*', 'clock'] }).tools())).toEqual([
      'clock',
      'mcp__alpha__echo',
    ]);
    expect(h.view({ servers: [] }).tools()).toEqual([]);
  });

  it("applies the view's permissions after the host's: both must allow", async () => {
    await using _guard = leakGuard();
    const a = fake('alpha', { tools: [echo('read'), echo('write'), echo('admin')] });
    await using h = await host({
      servers: [a.definition],
      permissions: { '*': { block: ['alpha/admin'] } },
    });
    const view = h.view({
      name: 'team',
      permissions: { intern: { allow: ['alpha/read'] }, lead: { block: ['alpha/read'] } },
    });
    expect(names(view.tools({ agent: 'intern' }))).toEqual(['mcp__alpha__read']);
    expect(names(view.tools({ agent: 'lead' }))).toEqual(['mcp__alpha__write']);
    await expect(
      view.callTool('mcp__alpha__write', {}, { context: { agent: 'intern' } }),
    ).rejects.toMatchObject({
      code: 'TOOL_DENIED',
      details: { reason: "not permitted for agent 'intern' in view 'team'", view: 'team' },
    });
    // The host's own permissions still refuse what the view would allow.
    await expect(
      view.callTool('mcp__alpha__admin', {}, { context: { agent: 'lead' } }),
    ).rejects.toMatchObject({ code: 'TOOL_DENIED' });
    expect(calls(a)).toBe(0);
    await view.callTool('mcp__alpha__read', {}, { context: { agent: 'intern' } });
    expect(calls(a)).toBe(1);
  });

  it('cuts results to its budget when smaller than the host’s, with the host’s marker and flag', async () => {
    await using _guard = leakGuard();
    const a = fake('alpha', { tools: [big(20_000)] });
    await using h = await host({ servers: [a.definition], maxResultBytes: 8_000 });
    const events: ToolCallEvent[] = [];
    h.onToolCall((event) => event.phase === 'completed' && events.push(event));
    const small = h.view({ name: 'small', maxResultBytes: 2_000 });
    const large = h.view({ name: 'large', maxResultBytes: 100_000 });

    const cut = await small.callTool('mcp__alpha__big');
    expect(cut._meta?.[RESULT_TRUNCATED_META_KEY]).toMatchObject({
      originalBytes: 20_000,
      maxBytes: 2_000,
    });
    expect(text(cut)).toContain(RESULT_BUDGET_SIGNATURE);
    expect(Buffer.byteLength(text(cut))).toBeLessThanOrEqual(2_000);

    // A larger view budget does not lift the host's.
    const hostCut = await large.callTool('mcp__alpha__big');
    expect(hostCut._meta?.[RESULT_TRUNCATED_META_KEY]).toMatchObject({ maxBytes: 8_000 });
    expect(events.map((e) => [e.view, e.truncated?.maxBytes])).toEqual([
      ['small', 2_000],
      ['large', 8_000],
    ]);
  });

  it('applies its budget when the host has none (maxResultBytes: 0)', async () => {
    await using _guard = leakGuard();
    const a = fake('alpha', { tools: [big(20_000)] });
    await using h = await host({ servers: [a.definition], maxResultBytes: 0 });
    expect((await h.callTool('mcp__alpha__big'))._meta).toBeUndefined();
    const cut = await h.view({ maxResultBytes: 4_000 }).callTool('mcp__alpha__big');
    expect(cut._meta?.[RESULT_TRUNCATED_META_KEY]).toMatchObject({ maxBytes: 4_000 });
  });

  it('gives named views from the options, and a typed error naming an unknown one', async () => {
    await using _guard = leakGuard();
    const a = fake('alpha', { tools: [echo('read'), echo('write')] });
    await using h = await host({
      servers: [a.definition],
      views: { readers: { allow: ['alpha/read'] }, writers: { allow: ['*write'] } },
    });
    expect(h.view('readers').name).toBe('readers');
    expect(h.view('readers')).toBe(h.view('readers'));
    expect(names(h.view('readers').tools())).toEqual(['mcp__alpha__read']);
    expect(names(h.view('writers').tools())).toEqual(['mcp__alpha__write']);
    let caught: unknown;
    try {
      h.view('auditors');
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: "no view is named 'auditors'",
      details: { view: 'auditors', views: ['readers', 'writers'] },
    });
  });

  it('refuses bad view options with a typed error naming the view', () => {
    expect(() => new McpHost({ views: { bad: { allow: 'read' as unknown as string[] } } })).toThrow(
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining("view 'bad'") as unknown,
      }),
    );
    const h = new McpHost();
    expect(() => h.view({ name: 'neg', maxResultBytes: -1 })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', details: { view: 'neg' } }),
    );
    expect(() => h.view({ servers: [7] as unknown as string[] })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', details: { view: 'unnamed' } }),
    );
  });

  it('reports tool changes only when they touch the view', async () => {
    await using _guard = leakGuard();
    const alphaTools = [echo('one')];
    const betaTools = [echo('two')];
    const a = fake('alpha', { tools: alphaTools });
    const b = fake('beta', { tools: betaTools });
    await using h = await host({ servers: [a.definition, b.definition] });
    const seen: ToolsChangedEvent[] = [];
    const subscription = h.view({ servers: ['alpha'] }).onToolsChanged((e) => seen.push(e));
    const hostSaw = (server: string) =>
      new Promise<void>((resolve) => {
        const done = h.onToolsChanged((e) => {
          if (e.server !== server) return;
          done.dispose();
          resolve();
        });
      });

    let changed = hostSaw('beta');
    betaTools.push(echo('three'));
    b.servers[0]!.peer.notify('notifications/tools/list_changed');
    await changed;
    changed = hostSaw('alpha');
    alphaTools.push(echo('four'));
    a.servers[0]!.peer.notify('notifications/tools/list_changed');
    await changed;
    h.registerTool({ name: 'clock', inputSchema: anyObject, run: () => 'noon' });
    await h.removeServer('alpha');
    subscription.dispose();
    expect(seen).toEqual([
      { server: 'alpha', added: ['mcp__alpha__four'], removed: [], changed: [] },
      {
        server: 'alpha',
        added: [],
        removed: ['mcp__alpha__one', 'mcp__alpha__four'],
        changed: [],
      },
    ]);
  });

  it('lists and reads only its servers’ resources and prompts', async () => {
    await using _guard = leakGuard();
    const a = fake('alpha', {
      resources: [{ uri: 'file:///a', name: 'a', text: 'from alpha' }],
      prompts: [{ name: 'hello' }],
      handlers: { 'prompts/get': () => ({ messages: [] }) },
    });
    const b = fake('beta', {
      resources: [{ uri: 'file:///b', name: 'b', text: 'from beta' }],
      prompts: [{ name: 'bye' }],
      handlers: { 'prompts/get': () => ({ messages: [] }) },
    });
    await using h = await host({ servers: [a.definition, b.definition] });
    const view = h.view({ name: 'v', servers: ['alpha'] });
    expect((await view.resources()).map((r) => r.uri)).toEqual(['file:///a']);
    expect(await view.readResource('file:///a')).toMatchObject({
      contents: [{ text: 'from alpha' }],
    });
    await expect(view.readResource('file:///b')).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { view: 'v' },
    });
    await expect(view.readResource('file:///b', { server: 'beta' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      serverName: 'beta',
    });
    expect((await view.prompts()).map((p) => p.name)).toEqual(['mcp__alpha__hello']);
    await view.getPrompt('mcp__alpha__hello');
    await expect(view.getPrompt('mcp__beta__bye')).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { view: 'v', prompt: 'mcp__beta__bye' },
    });
    const gets = (s: typeof a) =>
      s.servers.flatMap((x) => x.received).filter((r) => r.method === 'prompts/get').length;
    expect([gets(a), gets(b)]).toEqual([1, 0]);
  });

  it('fails as its host does once the host is closed', async () => {
    await using _guard = leakGuard();
    const a = fake('alpha');
    const h = await host({ servers: [a.definition] });
    const view = h.view({ servers: ['alpha'] });
    await h.close();
    const fromHost = (await h
      .callTool('mcp__alpha__echo')
      .catch((e: unknown) => e)) as McpHostError;
    const fromView = (await view
      .callTool('mcp__alpha__echo')
      .catch((e: unknown) => e)) as McpHostError;
    expect(fromView.code).toBe(fromHost.code);
    expect(() => h.view({})).toThrow(expect.objectContaining({ code: 'CONNECTION_CLOSED' }));
  });
});
