import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { McpHostError } from '../errors/index.js';
import type { Transport } from '../jsonrpc/transport.js';
import { FakeMcpServer, type FakeMcpServerOptions, type FakeTool } from '../testing/index.js';
import { createLinkedTransports } from '../transport/in-memory.js';
import type { AuditRecord } from './audit.js';
import type { PinEvent } from './pin-types.js';
import type { HostServerDefinition } from './host-options.js';
import {
  McpHost,
  type CatalogueSnapshot,
  type McpHostOptions,
  type ToolCallEvent,
} from './mcp-host.js';
import type { ServerStatus } from './server-status.js';

const echo = (name = 'echo'): FakeTool => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  handler: (args) => ({ content: [{ type: 'text', text: `${name}:${String(args.text)}` }] }),
});

/** A server definition whose every connect starts a fresh fake server; `servers` keeps them. */
function fake(
  name: string,
  options: Partial<FakeMcpServerOptions> = {},
  extra: Partial<HostServerDefinition> = {},
) {
  const servers: FakeMcpServer[] = [];
  let broken: Error | undefined;
  const definition: HostServerDefinition = {
    name,
    transport: (): Transport => {
      if (broken !== undefined) throw broken;
      const [client, server] = createLinkedTransports();
      const fakeServer = new FakeMcpServer(server, {
        era: 'legacy',
        tools: [echo()],
        ...options,
      });
      void fakeServer.start();
      servers.push(fakeServer);
      return client;
    },
    ...extra,
  };
  return {
    definition,
    servers,
    breakWith(error: Error | undefined) {
      broken = error;
    },
  };
}

async function host(options: McpHostOptions): Promise<McpHost> {
  const h = new McpHost({ health: { intervalMs: 0 }, ...options });
  await h.start();
  return h;
}

/** Resolves when `host` reports `server` in `state`. */
function stateOf(h: McpHost, server: string, state: ServerStatus['state']): Promise<ServerStatus> {
  return new Promise((resolve) => {
    const current = h.serverStatus(server);
    if (current.state === state) return resolve(current);
    const subscription = h.onServerStatus((status) => {
      if (status.name === server && status.state === state) {
        subscription.dispose();
        resolve(status);
      }
    });
  });
}

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

  it('fails calls to a dead server at once, restarts it, and reports every step', async () => {
    await using _guard = leakGuard();
    const a = fake('alpha');
    const b = fake('beta');
    const states: string[] = [];
    await using h = await host({
      servers: [a.definition, b.definition],
      restart: { baseDelayMs: 50, maxDelayMs: 50 },
    });
    h.onServerStatus((s) => {
      if (s.name === 'alpha') states.push(s.state);
    });
    const restarting = stateOf(h, 'alpha', 'restarting');
    await a.servers[0]!.close();
    await restarting;
    const started = Date.now();
    const error = (await h.callTool('mcp__alpha__echo').catch((e: unknown) => e)) as McpHostError;
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(error.code).toBe('SERVER_UNAVAILABLE');
    expect(error.details).toMatchObject({ state: 'restarting' });
    expect((await h.callTool('mcp__beta__echo', { text: 'still' })).content).toEqual([
      { type: 'text', text: 'echo:still' },
    ]);
    await stateOf(h, 'alpha', 'ready');
    expect(states).toEqual(['restarting', 'connecting', 'ready']);
    expect(h.serverStatus('alpha').restartCount).toBe(1);
    expect((await h.callTool('mcp__alpha__echo', { text: 'back' })).content).toEqual([
      { type: 'text', text: 'echo:back' },
    ]);
  });

  it('resends a call lost with its connection only when the caller opts in, after the restart', async () => {
    await using _guard = leakGuard();
    let calls = 0;
    const stable: FakeTool = {
      ...echo('dying'),
      handler: () => {
        calls++;
        if (calls <= 2) void a.servers.at(-1)!.close(); // the server dies mid-call
        return { content: [{ type: 'text', text: `answered on attempt ${calls}` }] };
      },
    };
    const a = fake('alpha', { tools: [stable] });
    await using h = await host({
      servers: [a.definition],
      restart: { baseDelayMs: 20, maxDelayMs: 20 },
    });
    const lost = (await h.callTool('mcp__alpha__dying').catch((e: unknown) => e)) as McpHostError;
    expect(lost.code).toBe('CONNECTION_CLOSED');
    expect(calls).toBe(1);
    await stateOf(h, 'alpha', 'ready');
    const resent = await h.callTool('mcp__alpha__dying', {}, { retry: true });
    expect(resent.content).toEqual([{ type: 'text', text: 'answered on attempt 3' }]);
    expect(calls).toBe(3);
  });

  it('stops restarting a crash-looping server until a manual restart', async () => {
    await using _guard = leakGuard();
    const a = fake('alpha');
    await using h = await host({
      servers: [a.definition],
      restart: { baseDelayMs: 1, maxDelayMs: 1, crashLimit: 3 },
    });
    a.breakWith(new McpHostError('PROCESS_EXITED', "server 'alpha' exited with code 1"));
    const looping = stateOf(h, 'alpha', 'crash_loop');
    await a.servers[0]!.close();
    const status = await looping;
    expect(status.lastError?.code).toBe('PROCESS_EXITED');
    a.breakWith(undefined);
    expect((await h.restartServer('alpha')).state).toBe('ready');
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

  it('adds, disables, enables and removes servers at run time, with tools-changed events', async () => {
    await using _guard = leakGuard();
    await using h = await host({});
    const changes: string[] = [];
    h.onToolsChanged((e) => changes.push(`+${e.added.join(',')} -${e.removed.join(',')}`));
    const a = fake('alpha');
    expect((await h.addServer(a.definition)).state).toBe('ready');
    expect((await h.disableServer('alpha')).state).toBe('disabled');
    expect(h.tools()).toEqual([]);
    expect((await h.enableServer('alpha')).state).toBe('ready');
    await h.removeServer('alpha');
    expect(h.status()).toEqual([]);
    expect(changes).toEqual([
      '+mcp__alpha__echo -',
      '+ -mcp__alpha__echo',
      '+mcp__alpha__echo -',
      '+ -mcp__alpha__echo',
    ]);
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

  it('refuses a server key that cannot namespace tools', async () => {
    await using _guard = leakGuard();
    await using h = await host({});
    await expect(h.addServer(fake('a__b').definition)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('connects a lazy server on first use', async () => {
    await using _guard = leakGuard();
    const a = fake('alpha', {}, { lazy: true });
    await using h = await host({ servers: [a.definition] });
    expect(a.servers).toHaveLength(0);
    expect(h.serverStatus('alpha').state).toBe('idle');
    expect((await h.connectServer('alpha')).state).toBe('ready');
    expect(h.tools().map((t) => t.name)).toEqual(['mcp__alpha__echo']);
    expect((await h.disconnectServer('alpha')).state).toBe('idle');
    expect(h.tools()).toEqual([]);
  });

  it('close() while a server is connecting gives the connect up at once, not after its timeout', async () => {
    await using _guard = leakGuard();
    // The server side is never started: the handshake gets no answer.
    const silent: HostServerDefinition = {
      name: 'silent',
      transport: () => createLinkedTransports()[0],
      client: { connectTimeoutMs: 30_000, requestTimeoutMs: 30_000 },
    };
    const h = new McpHost({ servers: [silent], health: { intervalMs: 0 } });
    const starting = h.start();
    expect(h.serverStatus('silent').state).toBe('connecting');
    const before = performance.now();
    await h.close();
    expect(performance.now() - before).toBeLessThan(1000);
    await starting;
    expect(h.serverStatus('silent').state).toBe('closed');
  });
});
