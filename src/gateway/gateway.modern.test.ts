import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { McpClient } from '../client/mcp-client.js';
import { echo, fake, host } from '../host/host-test-helpers.js';
import type { McpHost } from '../host/mcp-host.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { JsonRpcPeer } from '../jsonrpc/peer.js';
import { mcpPeerConventions } from '../protocol/conventions.js';
import type { FakeTool } from '../testing/fake-mcp-server.js';
import { createLinkedTransports } from '../transport/in-memory.js';
import { createGateway, type GatewayOptions } from './gateway.js';
import { createServerInputBridge } from './server-input-bridge.js';

const VERSION = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const SUBSCRIPTION = 'io.modelcontextprotocol/subscriptionId';

/** A modern request's `_meta`: the version and capabilities (sampling unless told otherwise). */
const meta = (capabilities: JsonObject = { sampling: {} }, version = '2026-07-28') => ({
  [VERSION]: version,
  [CAPABILITIES]: capabilities,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
});

/** A legacy tool that asks its client for a completion and returns the text it got. */
const sampling: FakeTool = {
  name: 'sample',
  inputSchema: { type: 'object' },
  handler: async (_args, context) => {
    try {
      const answer = (await context.request('sampling/createMessage', {
        messages: [{ role: 'user', content: { type: 'text', text: 'hi?' } }],
        maxTokens: 10,
      })) as { content: { text: string } };
      return { content: [{ type: 'text', text: `got ${answer.content.text}` }] };
    } catch (error) {
      asked.failures.push(String(error));
      for (const wake of asked.waiters) wake();
      return { content: [{ type: 'text', text: String(error) }], isError: true };
    }
  },
};
const asked = { failures: [] as string[], waiters: new Set<() => void>() };
/** Resolves once a backend's sampling request has failed `count` times in all. */
const failedRequests = (count: number) =>
  new Promise<void>((resolve) => {
    const check = () => (asked.failures.length >= count ? resolve() : undefined);
    asked.waiters.add(check);
    check();
  });

/** A host whose legacy server `alpha` has `echo` and `sample`, wired to a bridge. */
async function bridgedHost() {
  const bridge = createServerInputBridge();
  const h = await host({
    servers: [
      fake('alpha', { tools: [echo(), sampling] }, { client: { handlers: bridge.handlers } })
        .definition,
    ],
  });
  return { h, bridge };
}

/** A gateway over `h` served on one end of an in-memory pair, a raw JSON-RPC client on the other. */
async function connect(h: McpHost, options: Partial<GatewayOptions> = {}) {
  const gateway = createGateway({ host: h, ...options });
  const [clientEnd, gatewayEnd] = createLinkedTransports();
  const served = gateway.serve(gatewayEnd);
  const client = new JsonRpcPeer(clientEnd, { conventions: mcpPeerConventions });
  const notifications: { method: string; params: JsonObject }[] = [];
  const waiters = new Set<() => void>();
  client.setNotificationHandler('*', (params, method) => {
    notifications.push({ method, params: params as JsonObject });
    for (const wake of waiters) wake();
  });
  await client.start();
  return {
    gateway,
    client,
    notifications,
    request: <T = JsonObject>(method: string, params?: JsonObject) =>
      client.request<T>(method, params),
    /** Resolves once `count` notifications of `method` came. */
    until(method: string, count = 1) {
      return new Promise<void>((resolve) => {
        const check = () =>
          notifications.filter((n) => n.method === method).length >= count ? resolve() : undefined;
        waiters.add(check);
        check();
      });
    },
    async [Symbol.asyncDispose]() {
      await gateway.close();
      await served;
      await client.close();
    },
  };
}

describe('gateway (modern era, in memory)', () => {
  it('discovers and serves modern requests without initialize, and checks their envelope', async () => {
    await using _guard = leakGuard();
    await using h = await host({ servers: [fake('alpha').definition] });
    await using c = await connect(h, { instructions: 'all in one' });

    expect(await c.request('server/discover', { _meta: meta() })).toEqual({
      resultType: 'complete',
      supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        completions: {},
        logging: {},
      },
      instructions: 'all in one',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'mcp-host', version: '0.1.0' } },
      ttlMs: 0,
      cacheScope: 'private',
    });
    const listed = await c.request<{ tools: { name: string }[] }>('tools/list', { _meta: meta() });
    expect(listed).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    expect(listed.tools.map((tool) => tool.name)).toEqual(['mcp__alpha__echo']);
    expect(
      await c.request('tools/call', {
        _meta: meta(),
        name: 'mcp__alpha__echo',
        arguments: { text: 'hi' },
      }),
    ).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'echo:hi' }] });
    // The modern era retired -32002: an unknown resource is -32602.
    await expect(
      c.request('resources/read', { _meta: meta(), uri: 'nowhere://x' }),
    ).rejects.toMatchObject({ code: -32602 });

    // The envelope: a version the gateway does not speak in the modern era, a legacy one
    // included, is -32022 listing those it does; missing fields are -32602.
    await expect(c.request('tools/list', { _meta: meta({}, '2099-01-01') })).rejects.toMatchObject({
      code: -32022,
      data: {
        supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
        requested: '2099-01-01',
      },
    });
    await expect(c.request('tools/list', { _meta: meta({}, '2025-11-25') })).rejects.toMatchObject({
      code: -32022,
    });
    await expect(
      c.request('tools/list', { _meta: { [VERSION]: '2026-07-28' } }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining(CAPABILITIES) });
    await expect(
      c.request('tools/list', { _meta: { [VERSION]: 7, [CAPABILITIES]: {} } }),
    ).rejects.toMatchObject({ code: -32602 });

    // Legacy requests on the same connection keep the legacy rules.
    await expect(c.request('tools/list')).rejects.toMatchObject({ code: -32600 });
    await expect(c.request('server/discover')).rejects.toMatchObject({ code: -32601 });
  });

  it("asks a modern client for a legacy server's request in input_required rounds, under a single-use requestState", async () => {
    await using _guard = leakGuard();
    const { h, bridge } = await bridgedHost();
    await using _h = h;
    await using c = await connect(h, { bridge });
    const call = { _meta: meta(), name: 'mcp__alpha__sample', arguments: {} };

    const round = await c.request<{
      resultType: string;
      inputRequests: Record<string, { method: string; params: JsonObject }>;
      requestState: string;
    }>('tools/call', call);
    expect(round.resultType).toBe('input_required');
    expect(Object.values(round.inputRequests)).toEqual([
      {
        method: 'sampling/createMessage',
        params: {
          messages: [{ role: 'user', content: { type: 'text', text: 'hi?' } }],
          maxTokens: 10,
        },
      },
    ]);
    const [key] = Object.keys(round.inputRequests);

    // A state the gateway never gave, or given for another tool: the spec's error.
    await expect(
      c.request('tools/call', { ...call, requestState: 'made-up', inputResponses: {} }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/requestState/) });
    // A retry without the answer is asked again, under a new state.
    const again = await c.request<{ requestState: string; inputRequests: JsonObject }>(
      'tools/call',
      { ...call, requestState: round.requestState, inputResponses: {} },
    );
    expect(again.inputRequests).toEqual(round.inputRequests);
    expect(again.requestState).not.toBe(round.requestState);
    // The answer reaches the server, and its result the client.
    const answer = { role: 'assistant', content: { type: 'text', text: '42' }, model: 'm' };
    expect(
      await c.request('tools/call', {
        ...call,
        requestState: again.requestState,
        inputResponses: { [key!]: answer },
      }),
    ).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'got 42' }] });
    // Each state once.
    await expect(
      c.request('tools/call', { ...call, requestState: again.requestState, inputResponses: {} }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('gives up a call whose client never retries, and refuses calls beyond maxPending', async () => {
    await using _guard = leakGuard();
    const { h, bridge } = await bridgedHost();
    await using _h = h;
    const before = asked.failures.length;
    await using c = await connect(h, { bridge, pendingInput: { maxPending: 1, ttlMs: 200 } });
    const call = { _meta: meta(), name: 'mcp__alpha__sample', arguments: {} };
    const first = await c.request<{ requestState: string }>('tools/call', call);
    // The store is full: the next call is refused as a tool error, and its server request given up.
    const second = await c.request<{ isError: boolean; content: { text: string }[] }>(
      'tools/call',
      call,
    );
    expect(second.isError).toBe(true);
    expect(second.content[0]!.text).toContain('QUEUE_FULL');
    // The first expires: its server's request fails, and its state is not known any more.
    await failedRequests(before + 2);
    await expect(
      c.request('tools/call', { ...call, requestState: first.requestState, inputResponses: {} }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('refuses what a modern client did not declare, with -32601 to the server', async () => {
    await using _guard = leakGuard();
    const { h, bridge } = await bridgedHost();
    await using _h = h;
    await using c = await connect(h, { bridge });
    const result = await c.request<{ isError: boolean; content: { text: string }[] }>(
      'tools/call',
      { _meta: meta({}), name: 'mcp__alpha__sample', arguments: {} },
    );
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/Method not found: sampling\/createMessage/);
  });

  it('acknowledges a listen stream and sends its list changes with its subscription id until cancelled', async () => {
    await using _guard = leakGuard();
    const alpha = fake('alpha');
    await using h = await host({ servers: [alpha.definition] });
    await using c = await connect(h);
    const controller = new AbortController();
    const listening = c.client.request(
      'subscriptions/listen',
      {
        _meta: meta({}),
        notifications: { toolsListChanged: true, resourceSubscriptions: ['file:///x'] },
      },
      { signal: controller.signal },
    );
    listening.catch(() => {});
    await c.until('notifications/subscriptions/acknowledged');
    const [ack] = c.notifications;
    expect(ack!.params).toEqual({
      _meta: { [SUBSCRIPTION]: expect.anything() },
      notifications: { toolsListChanged: true },
    });
    const id = (ack!.params._meta as JsonObject)[SUBSCRIPTION];

    await h.removeServer('alpha');
    await c.until('notifications/tools/list_changed');
    expect(c.notifications.at(-1)).toEqual({
      method: 'notifications/tools/list_changed',
      params: { _meta: { [SUBSCRIPTION]: id } },
    });
    controller.abort();
    await expect(listening).rejects.toThrow();
  });

  it('subscribes a listen stream to the resources some server serves, and ends them with it', async () => {
    await using _guard = leakGuard();
    let unsubscribed: (uri: unknown) => void = () => {};
    const unsubscribe = new Promise((resolve) => (unsubscribed = resolve));
    const alpha = fake('alpha', {
      resources: [{ uri: 'file:///x', name: 'x', text: 'x' }],
      handlers: {
        'resources/subscribe': () => ({}),
        'resources/unsubscribe': (params) => {
          unsubscribed(params.uri);
          return {};
        },
      },
    });
    await using h = await host({ servers: [alpha.definition] });
    await using c = await connect(h);
    const controller = new AbortController();
    const listening = c.client.request(
      'subscriptions/listen',
      {
        _meta: meta({}),
        notifications: { resourceSubscriptions: ['file:///x', 'file:///nowhere'] },
      },
      { signal: controller.signal },
    );
    listening.catch(() => {});
    await c.until('notifications/subscriptions/acknowledged');
    const [ack] = c.notifications;
    expect(ack!.params.notifications).toEqual({ resourceSubscriptions: ['file:///x'] });
    const id = (ack!.params._meta as JsonObject)[SUBSCRIPTION];
    expect(alpha.servers[0]!.received).toContainEqual({
      method: 'resources/subscribe',
      params: { uri: 'file:///x' },
    });

    alpha.servers[0]!.peer.notify('notifications/resources/updated', { uri: 'file:///x' });
    await c.until('notifications/resources/updated');
    expect(c.notifications.at(-1)).toEqual({
      method: 'notifications/resources/updated',
      params: { uri: 'file:///x', _meta: { [SUBSCRIPTION]: id } },
    });
    controller.abort();
    await expect(listening).rejects.toThrow();
    expect(await unsubscribe).toBe('file:///x');
  });

  it("serves mcp-host's own client in the modern era, its handler answering the rounds", async () => {
    await using _guard = leakGuard();
    const { h, bridge } = await bridgedHost();
    await using _h = h;
    const gateway = createGateway({ host: h, bridge });
    const [clientEnd, gatewayEnd] = createLinkedTransports();
    const served = gateway.serve(gatewayEnd);
    await using client = new McpClient({
      transport: clientEnd,
      handlers: {
        sampling: (params) =>
          Promise.resolve({
            role: 'assistant',
            content: { type: 'text', text: `seen ${params.messages.length}` },
            model: 'm',
          }),
      },
    });
    await client.connect();
    expect(client.era).toBe('modern');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'mcp__alpha__echo',
      'mcp__alpha__sample',
    ]);
    expect(await client.callTool('mcp__alpha__sample', {})).toMatchObject({
      content: [{ type: 'text', text: 'got seen 1' }],
    });
    await client.close();
    await gateway.close();
    await served;
  });
});
