import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { JsonRpcError } from '../errors/json-rpc-error.js';
import { echo, fake, host, stateOf } from '../host/host-test-helpers.js';
import type { McpHost } from '../host/mcp-host.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { JsonRpcPeer } from '../jsonrpc/peer.js';
import { mcpPeerConventions } from '../protocol/conventions.js';
import { createLinkedTransports } from '../transport/in-memory.js';
import { createGateway, type GatewayOptions } from './gateway.js';

const anyObject = { type: 'object' } as const;

/** A gateway over `h` served on one end of an in-memory pair, a raw JSON-RPC client on the other. */
async function connect(h: McpHost, options: Partial<GatewayOptions> = {}) {
  const gateway = createGateway({ host: h, ...options });
  const [clientEnd, gatewayEnd] = createLinkedTransports();
  const served = gateway.serve(gatewayEnd);
  const client = new JsonRpcPeer(clientEnd, { conventions: mcpPeerConventions });
  const notifications: string[] = [];
  client.setNotificationHandler('*', (_params, method) => void notifications.push(method));
  await client.start();
  const request = <T = JsonObject>(method: string, params?: JsonObject) =>
    client.request<T>(method, params);
  return {
    gateway,
    client,
    notifications,
    request,
    async initialize(protocolVersion = '2025-06-18') {
      const result = await request('initialize', {
        protocolVersion,
        capabilities: {},
        clientInfo: { name: 'test', version: '1' },
      });
      client.notify('notifications/initialized');
      return result;
    },
    /** Resolves once the gateway has sent `method` `count` times in all. */
    until(method: string, count = 1) {
      return new Promise<void>((resolve) => {
        const check = () =>
          notifications.filter((m) => m === method).length >= count ? resolve() : undefined;
        check();
        client.setNotificationHandler('*', (_params, m) => {
          notifications.push(m);
          check();
        });
      });
    },
    async [Symbol.asyncDispose]() {
      await gateway.close();
      await served;
      await client.close();
    },
  };
}

describe('gateway (legacy era, in memory)', () => {
  it('negotiates the version and refuses work before initialize', async () => {
    await using _guard = leakGuard();
    await using h = await host({ servers: [fake('alpha').definition] });
    await using c = await connect(h, { instructions: 'one server for all' });
    await expect(c.request('tools/list')).rejects.toMatchObject({ code: -32600 });
    expect(await c.request('ping')).toEqual({});
    expect(await c.initialize('2025-03-26')).toEqual({
      protocolVersion: '2025-03-26',
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        completions: {},
        logging: {},
      },
      serverInfo: { name: 'mcp-host', version: '0.1.0' },
      instructions: 'one server for all',
    });
    await expect(c.initialize()).rejects.toMatchObject({ code: -32600 });
    await expect(c.request('server/discover')).rejects.toMatchObject({ code: -32601 });

    await using d = await connect(h);
    expect(await d.initialize('2099-01-01')).toMatchObject({ protocolVersion: '2025-11-25' });
    await expect(d.request('initialize', {})).rejects.toMatchObject({ code: -32600 });
  });

  it('lists the namespaced tools page by page and calls them through the host', async () => {
    await using _guard = leakGuard();
    const failing = {
      name: 'boom',
      inputSchema: anyObject,
      handler: () => {
        throw new JsonRpcError(-32000, 'it broke');
      },
    };
    const alpha = fake('alpha', { tools: [echo('one'), echo('two'), failing] });
    await using h = await host({ servers: [alpha.definition, fake('beta').definition] });
    await using c = await connect(h, { pageSize: 2 });
    await c.initialize();

    const first = await c.request<{ tools: { name: string }[]; nextCursor?: string }>('tools/list');
    expect(first.tools.map((t) => t.name)).toEqual(['mcp__alpha__one', 'mcp__alpha__two']);
    expect(first.tools[0]).toEqual({
      name: 'mcp__alpha__one',
      description: 'one tool',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    });
    const second = await c.request<{ tools: { name: string }[]; nextCursor?: string }>(
      'tools/list',
      { cursor: first.nextCursor! },
    );
    expect(second.tools.map((t) => t.name)).toEqual(['mcp__alpha__boom', 'mcp__beta__echo']);
    expect(second.nextCursor).toBeUndefined();
    await expect(c.request('tools/list', { cursor: 'not-ours' })).rejects.toMatchObject({
      code: -32602,
    });

    expect(
      await c.request('tools/call', { name: 'mcp__beta__echo', arguments: { text: 'hi' } }),
    ).toEqual({ content: [{ type: 'text', text: 'echo:hi' }] });
    await expect(c.request('tools/call', { name: 'nope', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: 'Unknown tool: nope',
    });
    const failed = await c.request<{ isError: boolean; content: { text: string }[] }>(
      'tools/call',
      { name: 'mcp__alpha__boom' },
    );
    expect(failed.isError).toBe(true);
    expect(failed.content[0]!.text).toContain("server 'alpha'");
    expect(failed.content[0]!.text).toContain('it broke');

    // A server that is down: an error result naming it, and the gateway keeps serving.
    await h.disconnectServer('beta');
    await h.disableServer('beta');
    await expect(
      c.request('tools/call', { name: 'mcp__beta__echo', arguments: { text: 'x' } }),
    ).rejects.toMatchObject({ code: -32602 });
    expect(await c.request('ping')).toEqual({});
  });

  it('serves resources, templates and prompts; an unknown resource is -32002', async () => {
    await using _guard = leakGuard();
    const alpha = fake('alpha', {
      resources: [{ uri: 'fixture://a', name: 'a', text: 'hello' }],
      prompts: [{ name: 'greet', arguments: [{ name: 'who' }] }],
      handlers: {
        'resources/templates/list': () => ({
          resourceTemplates: [{ uriTemplate: 'fixture://{x}', name: 'x' }],
        }),
        'prompts/get': (params) => ({
          messages: [
            {
              role: 'user',
              content: { type: 'text', text: `hi ${String((params.arguments as JsonObject).who)}` },
            },
          ],
        }),
      },
    });
    await using h = await host({ servers: [alpha.definition] });
    await using c = await connect(h);
    await c.initialize();
    expect(await c.request('resources/list')).toEqual({
      resources: [{ uri: 'fixture://a', name: 'a', text: 'hello' }],
    });
    expect(await c.request('resources/templates/list')).toEqual({
      resourceTemplates: [{ uriTemplate: 'fixture://{x}', name: 'x' }],
    });
    expect(await c.request('resources/read', { uri: 'fixture://a' })).toMatchObject({
      contents: [{ uri: 'fixture://a', text: 'hello' }],
    });
    await expect(c.request('resources/read', { uri: 'fixture://nope' })).rejects.toMatchObject({
      code: -32002,
    });
    expect(await c.request('prompts/list')).toEqual({
      prompts: [{ name: 'mcp__alpha__greet', arguments: [{ name: 'who' }] }],
    });
    expect(
      await c.request('prompts/get', { name: 'mcp__alpha__greet', arguments: { who: 'bob' } }),
    ).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'hi bob' } }] });
    await expect(c.request('prompts/get', { name: 'mcp__alpha__nope' })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it("sends list_changed only when its view's lists really changed", async () => {
    await using _guard = leakGuard();
    const alpha = fake('alpha', { prompts: [{ name: 'greet' }] });
    const beta = fake('beta');
    await using h = await host({
      servers: [alpha.definition, beta.definition],
      views: { onlyAlpha: { servers: ['alpha'] } },
    });
    await using c = await connect(h, { view: 'onlyAlpha' });
    await c.initialize();
    const tools = await c.request<{ tools: { name: string }[] }>('tools/list');
    expect(tools.tools.map((t) => t.name)).toEqual(['mcp__alpha__echo']);
    expect(await c.request('prompts/list')).toEqual({ prompts: [{ name: 'mcp__alpha__greet' }] });

    // beta leaves and comes back: nothing this client is offered changed.
    await h.disableServer('beta');
    await h.enableServer('beta');
    await stateOf(h, 'beta', 'ready');
    // A native tool the view does not show: nothing either.
    h.registerTool({ name: 'clock', inputSchema: anyObject, run: () => 'noon' });
    // alpha goes: its tools and prompts leave this client's lists.
    await h.disableServer('alpha');
    await c.until('notifications/tools/list_changed');
    await c.until('notifications/prompts/list_changed');
    expect((await c.request<{ tools: unknown[] }>('tools/list')).tools).toEqual([]);
    expect(c.notifications).toEqual([
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
    ]);
  });

  it("passes a server's resource and prompt list_changed on when the lists differ", async () => {
    await using _guard = leakGuard();
    const resources = [{ uri: 'fixture://a', name: 'a', text: 'hello' }];
    // Each prompts/list the server answers wakes whoever waits for that many.
    let promptLists = 0;
    const waiting = new Map<number, () => void>();
    const promptsListed = (count: number) =>
      new Promise<void>((resolve) =>
        promptLists >= count ? resolve() : waiting.set(count, resolve),
      );
    const alpha = fake('alpha', {
      resources,
      handlers: {
        'prompts/list': () => {
          waiting.get(++promptLists)?.();
          return { prompts: [{ name: 'greet' }] };
        },
      },
    });
    await using h = await host({ servers: [alpha.definition] });
    await using c = await connect(h);
    await c.initialize();
    // The gateway learns the lists once the client is initialized.
    await promptsListed(1);
    const backend = alpha.servers[0]!;

    // The server says its prompts changed, but they are the same: the client hears nothing.
    backend.peer.notify('notifications/prompts/list_changed');
    await promptsListed(2);
    // Its resources really change: the client is told (and only of that).
    resources.push({ uri: 'fixture://b', name: 'b', text: 'more' });
    backend.peer.notify('notifications/resources/list_changed');
    await c.until('notifications/resources/list_changed');
    expect(c.notifications).toEqual(['notifications/resources/list_changed']);
    expect(await c.request('resources/list')).toEqual({ resources });
  });

  it('passes progress on and cancels the backend call when the client cancels', async () => {
    await using _guard = leakGuard();
    let aborted!: (reason: unknown) => void;
    const cancelled = new Promise<unknown>((resolve) => (aborted = resolve));
    const alpha = fake('alpha', {
      tools: [
        {
          name: 'slow',
          inputSchema: anyObject,
          handler: (_args, context) => {
            const token = context.meta?.progressToken as string | number;
            context.notify('notifications/progress', {
              progressToken: token,
              progress: 1,
              total: 2,
              message: 'half',
            });
            return new Promise((resolve) => {
              context.signal.addEventListener('abort', () => {
                aborted(context.signal.reason);
                resolve({ content: [] });
              });
            });
          },
        },
      ],
    });
    await using h = await host({ servers: [alpha.definition] });
    await using c = await connect(h);
    await c.initialize();
    const progress: unknown[] = [];
    let progressed!: () => void;
    const reported = new Promise<void>((resolve) => (progressed = resolve));
    const controller = new AbortController();
    const call = c.client.request(
      'tools/call',
      { name: 'mcp__alpha__slow', arguments: {} },
      {
        onProgress: (params) => {
          progress.push(params);
          progressed();
        },
        signal: controller.signal,
      },
    );
    await reported;
    controller.abort(new Error('changed my mind'));
    await expect(call).rejects.toMatchObject({ code: 'ABORTED' });
    await cancelled;
    expect(progress).toEqual([{ progressToken: 2, progress: 1, total: 2, message: 'half' }]);
    expect(await c.request('ping')).toEqual({});
  });

  it('ends its connections on close and refuses new ones; the host stays open', async () => {
    await using _guard = leakGuard();
    await using h = await host({ servers: [fake('alpha').definition] });
    const c = await connect(h);
    await c.initialize();
    expect(c.gateway.connectionCount).toBe(1);
    await c.gateway.close();
    expect(c.client.state).toBe('closed');
    expect(c.gateway.connectionCount).toBe(0);
    const [, spare] = createLinkedTransports();
    await expect(c.gateway.serve(spare)).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(h.tools().map((t) => t.name)).toEqual(['mcp__alpha__echo']);
    await c[Symbol.asyncDispose]();
    expect(() => createGateway({ host: h, pageSize: 0 })).toThrow(/pageSize/);
    expect(() => createGateway({ host: h, view: 'none' })).toThrow(/no view is named 'none'/);
  });
});
