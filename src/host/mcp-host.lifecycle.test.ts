import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { createLinkedTransports } from '../transport/in-memory.js';
import type { FakeTool } from '../testing/index.js';
import type { HostServerDefinition } from './server-definition.js';
import { echo, fake, host, stateOf } from './host-test-helpers.js';
import { McpHost } from './mcp-host.js';
import { silentLogger } from '../internal/logger.js';
import { MemoryStateStore } from '../state/state-store.js';

describe('McpHost', () => {
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
    // One call first, so the tool's inputSchema is compiled (on a first call that loads ajv and
    // hashes on the thread pool). After it, a call's path to its failure below is microtasks
    // only: it settles before the 50 ms restart timer can run, however busy the machine is.
    await h.callTool('mcp__alpha__echo', { text: 'first' });
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

  it("names a server that is down once: its status's last error leaves out the name", async () => {
    await using _guard = leakGuard();
    const a = fake('alpha');
    a.breakWith(new McpHostError('CONNECT_FAILED', 'connection refused', { serverName: 'alpha' }));
    await using h = await host({
      servers: [a.definition],
      restart: { baseDelayMs: 60_000 },
      // Offered from a snapshot, so the call reaches the server that is down.
      snapshot: { version: 1, servers: { alpha: { tools: [echo()] } } },
    });
    expect(h.serverStatus('alpha')).toMatchObject({
      state: 'restarting',
      lastError: { code: 'CONNECT_FAILED', message: 'connection refused' },
    });
    const error = (await h.callTool('mcp__alpha__echo').catch((e: unknown) => e)) as McpHostError;
    expect(error.code).toBe('SERVER_UNAVAILABLE');
    expect(error.message).toMatch(
      /^server 'alpha': not available \(restarting, next attempt in \d+ ms\): connection refused$/,
    );
  });

  it('a pin check that fails on a changed listing is logged, never an unhandled rejection', async () => {
    await using _guard = leakGuard();
    let reviewFailed!: () => void;
    const logged = new Promise<void>((resolve) => (reviewFailed = resolve));
    const logger = {
      ...silentLogger,
      warn: (message: string) => {
        if (message.includes('reviewing the changed tools failed')) reviewFailed();
      },
    };
    let failing = false;
    const store = new MemoryStateStore();
    const update = store.update.bind(store);
    store.update = (namespace, key, change) =>
      failing ? Promise.reject(new Error('disk full')) : update(namespace, key, change);
    const tools = [echo()];
    const a = fake('alpha', { tools });
    await using h = await host({ servers: [a.definition], stateStore: store, logger });
    failing = true;
    tools.push(echo('other'));
    a.servers[0]!.peer.notify('notifications/tools/list_changed');
    await logged;
    expect(h.tools().map((tool) => tool.name)).toEqual(['mcp__alpha__echo']);
    expect(h.serverStatus('alpha').state).toBe('ready');
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
