import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { echo, fake, host } from './host-test-helpers.js';
import type { CatalogueSnapshot } from './host-options.js';

describe('McpHost', () => {
  it("offers every server's tools under mcp__{server}__{tool} and routes each call", async () => {
    await using _guard = leakGuard();
    const a = fake('alpha');
    const b = fake('beta', { tools: [echo(), echo('other')] });
    await using h = await host({ servers: [a.definition, b.definition] });
    expect(
      h
        .tools()
        .map((t) => t.name)
        .sort(),
    ).toEqual(['mcp__alpha__echo', 'mcp__beta__echo', 'mcp__beta__other']);
    const tool = h.tools().find((t) => t.name === 'mcp__beta__other')!;
    expect(tool).toMatchObject({
      server: 'beta',
      originalName: 'other',
      description: 'other tool',
    });
    const result = await h.callTool('mcp__beta__echo', { text: 'hi' });
    expect(result.content).toEqual([{ type: 'text', text: 'echo:hi' }]);
    expect(a.servers[0]!.received.filter((r) => r.method === 'tools/call')).toHaveLength(0);
    expect(h.status().map((s) => [s.name, s.state, s.toolCount])).toEqual([
      ['alpha', 'ready', 1],
      ['beta', 'ready', 2],
    ]);
  });

  it('isolates a server that cannot start: the others are ready and it says why', async () => {
    await using _guard = leakGuard();
    const good = fake('good');
    const bad = fake('bad');
    bad.breakWith(new McpHostError('SPAWN_FAILED', "server 'bad': command not found: nope"));
    await using h = await host({ servers: [bad.definition, good.definition] });
    expect(h.serverStatus('good').state).toBe('ready');
    const status = h.serverStatus('bad');
    expect(status.state).toBe('failed');
    expect(status.lastError).toEqual({
      code: 'SPAWN_FAILED',
      message: expect.stringContaining('command not found') as unknown,
    });
    const error = await h.callTool('mcp__bad__echo').catch((e: unknown) => e);
    expect((error as McpHostError).code).toBe('TOOL_NOT_FOUND');
  });

  it('runs native tools beside MCP tools, with an error result when one throws', async () => {
    await using _guard = leakGuard();
    const a = fake('alpha');
    await using h = await host({ servers: [a.definition] });
    h.registerTool({
      name: 'add',
      description: 'adds',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
      run: (args) => String(Number(args.a) + Number(args.b)),
    });
    h.registerTool({
      name: 'boom',
      inputSchema: { type: 'object' },
      run: () => {
        throw new Error('kaput');
      },
    });
    expect(
      h
        .tools()
        .map((t) => t.name)
        .sort(),
    ).toEqual(['add', 'boom', 'mcp__alpha__echo']);
    expect((await h.callTool('add', { a: 2, b: 3 })).content).toEqual([
      { type: 'text', text: '5' },
    ]);
    const failed = await h.callTool('boom');
    expect(failed.isError).toBe(true);
    expect(failed.content).toEqual([{ type: 'text', text: "Tool 'boom' failed: kaput" }]);
    const invalid = await h.callTool('add', { a: 'x' });
    expect(invalid.isError).toBe(true);
    expect(JSON.stringify(invalid.content)).toContain('Invalid arguments');
    expect(() =>
      h.registerTool({ name: 'add', inputSchema: { type: 'object' }, run: () => '' }),
    ).toThrow(/already exists/);
    expect(h.unregisterTool('add')).toBe(true);
    await expect(h.callTool('add', { a: 1, b: 1 })).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
  });

  it('drops null for optional arguments before validating', async () => {
    await using _guard = leakGuard();
    const a = fake('alpha');
    await using h = await host({ servers: [a.definition] });
    const result = await h.callTool('mcp__alpha__echo', { text: 'x', extra: null });
    expect(result.isError).toBeUndefined();
    const call = a.servers[0]!.received.find((r) => r.method === 'tools/call');
    expect(call?.params?.arguments).toEqual({ text: 'x' });
  });

  it('answers tools() from a snapshot before a lazy server connects, and connects on the first call', async () => {
    await using _guard = leakGuard();
    const first = fake('alpha');
    const snapshot = await (async () => {
      await using h = await host({ servers: [first.definition] });
      return JSON.parse(JSON.stringify(h.snapshot())) as CatalogueSnapshot;
    })();
    const a = fake('alpha', {}, { lazy: true });
    await using h = await host({ servers: [a.definition], snapshot });
    expect(h.tools().map((t) => t.name)).toEqual(['mcp__alpha__echo']);
    expect(a.servers).toHaveLength(0);
    const result = await h.callTool('mcp__alpha__echo', { text: 'cold' });
    expect(result.content).toEqual([{ type: 'text', text: 'echo:cold' }]);
    expect(h.serverStatus('alpha').state).toBe('ready');
  });

  it('names tools with the configured prefix and separator', async () => {
    await using _guard = leakGuard();
    const a = fake('alpha');
    await using h = await host({
      servers: [a.definition],
      naming: { prefix: 'x', separator: '-' },
    });
    expect(h.tools().map((t) => t.name)).toEqual(['x-alpha-echo']);
    expect((await h.callTool('x-alpha-echo', { text: 'n' })).content).toEqual([
      { type: 'text', text: 'echo:n' },
    ]);
  });

  it("passes one server's names through, and refuses a second server naming both", async () => {
    await using _guard = leakGuard();
    const a = fake('alpha');
    await using h = await host({ servers: [a.definition], naming: { passThrough: true } });
    expect(h.tools().map((t) => t.name)).toEqual(['echo']);
    expect((await h.callTool('echo', { text: 'n' })).content).toEqual([
      { type: 'text', text: 'echo:n' },
    ]);
    const refused = h.addServer(fake('beta').definition);
    await expect(refused).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      serverName: 'beta',
      details: { reason: 'pass-through' },
    });
    await expect(refused).rejects.toThrow(/"alpha", "beta"/);
    expect(h.tools().map((t) => t.name)).toEqual(['echo']);
  });

  it('refuses a server key that cannot namespace tools', async () => {
    await using _guard = leakGuard();
    await using h = await host({});
    await expect(h.addServer(fake('a__b').definition)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });
});
