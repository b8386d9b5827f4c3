import { describe, expect, it } from 'vitest';
import type { McpHostError } from '../errors/index.js';
import { JsonRpcError } from '../errors/index.js';
import { createLinkedTransports } from '../transport/in-memory.js';
import {
  createFakeServer,
  FakeMcpServer,
  type FakeMcpServerOptions,
} from '../testing/fake-mcp-server.js';
import { McpClient } from './mcp-client.js';
import type { McpClientOptions } from './client-options.js';

async function connect(server: FakeMcpServerOptions, client: Partial<McpClientOptions> = {}) {
  const { server: fake, clientTransport } = await createFakeServer(server);
  const mcp = new McpClient({ transport: clientTransport, serverName: 'fake', ...client });
  return {
    fake,
    client: mcp,
    async [Symbol.asyncDispose]() {
      await mcp.close();
      await fake.close();
    },
  };
}

const echo = { name: 'echo', inputSchema: { type: 'object' } };

describe('era detection', () => {
  it('opens a legacy server with initialize after the probe fails, newest legacy version first', async () => {
    await using h = await connect({ era: 'legacy', tools: [echo] });
    await h.client.connect();
    expect(h.client.era).toBe('legacy');
    expect(h.client.session?.version).toBe('2025-11-25');
    expect(h.fake.methods()).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
    ]);
    expect((await h.client.listTools()).items.map((t) => t.name)).toEqual(['echo']);
  });

  it('accepts an older legacy version the server answers with', async () => {
    await using h = await connect({ era: 'legacy', legacyVersions: ['2024-11-05'] });
    await h.client.connect();
    expect(h.client.session?.version).toBe('2024-11-05');
  });

  it('fails clearly, naming both sides, when the legacy server answers a version we do not speak', async () => {
    await using h = await connect({ era: 'legacy', legacyVersions: ['1999-01-01'] });
    const error = await h.client.connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'PROTOCOL_VERSION_UNSUPPORTED' });
    expect((error as Error).message).toContain('1999-01-01');
    expect((error as Error).message).toContain('2025-11-25');
    expect(h.client.state).toBe('closed');
  });

  it('stays modern with a modern server: no initialize, _meta on every request', async () => {
    await using h = await connect({
      era: 'modern',
      tools: [echo],
      serverInfo: { name: 'm', version: '2' },
    });
    await h.client.connect();
    expect(h.client.era).toBe('modern');
    expect(h.client.session?.version).toBe('2026-07-28');
    expect(h.client.session?.serverInfo).toEqual({ name: 'm', version: '2' });
    await h.client.listTools();
    expect(h.fake.methods()).toEqual(['server/discover', 'tools/list']);
    const meta = h.fake.received[1]!.params!._meta as Record<string, unknown>;
    expect(meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    expect(meta['io.modelcontextprotocol/clientCapabilities']).toEqual({});
    expect(meta['io.modelcontextprotocol/clientInfo']).toMatchObject({ name: 'mcp-host' });
  });

  it('prefers modern with a dual-era server', async () => {
    await using h = await connect({ era: 'dual' });
    await h.client.connect();
    expect(h.client.era).toBe('modern');
  });

  it.each([
    [
      '-32602',
      { [`server/discover`]: () => Promise.reject(new JsonRpcError(-32602, 'bad params')) },
    ],
    ['an empty result', { 'server/discover': () => ({}) }],
  ])('falls back to initialize when discover answers %s', async (_label, handlers) => {
    await using h = await connect({ era: 'dual', handlers });
    await h.client.connect();
    expect(h.client.era).toBe('legacy');
    expect(h.fake.methods()).toContain('initialize');
  });

  it('falls back right after the probe timeout when discover is never answered', async () => {
    await using h = await connect(
      { era: 'dual', handlers: { 'server/discover': () => new Promise(() => {}) } },
      { discoverTimeoutMs: 100 },
    );
    const started = Date.now();
    await h.client.connect();
    expect(h.client.era).toBe('legacy');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('retries once with a mutual version on -32022 and never falls back', async () => {
    let first = true;
    await using h = await connect({
      era: 'modern',
      handlers: {
        'server/discover': () => {
          if (!first) return { supportedVersions: ['2026-07-28'], capabilities: {} };
          first = false;
          throw new JsonRpcError(-32022, 'Unsupported protocol version', {
            data: { supported: ['2026-07-28'], requested: 'x' },
          });
        },
      },
    });
    await h.client.connect();
    expect(h.client.era).toBe('modern');
    expect(h.fake.methods()).toEqual(['server/discover', 'server/discover']);
  });

  it('fails with both versions named when -32022 lists nothing mutual, without trying initialize', async () => {
    await using h = await connect({ era: 'modern', modernVersions: ['2099-01-01'] });
    const error = await h.client.connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'PROTOCOL_VERSION_UNSUPPORTED' });
    expect((error as Error).message).toMatch(/2099-01-01.*2026-07-28/);
    expect(h.fake.methods()).not.toContain('initialize');
  });

  it('uses a cached legacy era without probing, and re-probes when the assumption fails', async () => {
    const store = new Map<string, unknown>();
    const stateStore = {
      get: <T>(ns: string, key: string) =>
        Promise.resolve(store.get(`${ns}/${key}`) as T | undefined),
      set: (ns: string, key: string, value: unknown) =>
        Promise.resolve(void store.set(`${ns}/${key}`, value)),
    };
    {
      await using h = await connect({ era: 'legacy' }, { stateStore, identity: 'srv' });
      await h.client.connect();
    }
    expect(store.get('era/srv')).toEqual({ era: 'legacy', version: '2025-11-25' });
    {
      await using h = await connect({ era: 'legacy' }, { stateStore, identity: 'srv' });
      await h.client.connect();
      expect(h.fake.methods()).toEqual(['initialize', 'notifications/initialized']);
    }
    {
      // The server became modern-only: initialize is refused, the client probes and stays modern.
      await using h = await connect({ era: 'modern' }, { stateStore, identity: 'srv' });
      await h.client.connect();
      expect(h.client.era).toBe('modern');
      expect(h.fake.methods()).toEqual(['initialize', 'server/discover']);
    }
    expect(store.get('era/srv')).toEqual({ era: 'modern', version: '2026-07-28' });
  });

  it('never answered initialize: connect fails at its deadline and sends no cancel for initialize', async () => {
    await using h = await connect(
      { era: 'legacy', handlers: { initialize: () => new Promise(() => {}) } },
      { era: 'legacy', connectTimeoutMs: 200 },
    );
    const error = await h.client.connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'REQUEST_TIMEOUT' });
    expect(h.fake.methods()).toEqual(['initialize']);
  });

  it('pins: a pinned legacy version is proposed as is; a pinned modern era refuses a legacy server', async () => {
    {
      await using h = await connect({ era: 'legacy' }, { protocolVersion: '2025-03-26' });
      await h.client.connect();
      expect(h.client.session?.version).toBe('2025-03-26');
      expect(h.fake.methods()[0]).toBe('initialize');
    }
    {
      await using h = await connect({ era: 'legacy' }, { era: 'modern' });
      await expect(h.client.connect()).rejects.toMatchObject({
        code: 'PROTOCOL_VERSION_UNSUPPORTED',
      });
    }
  });
});

describe('server input', () => {
  const askingTool = (method: string, params: Record<string, unknown>) => ({
    name: 'ask',
    inputSchema: { type: 'object' },
    handler: async (
      _args: unknown,
      context: { request: (m: string, p?: Record<string, unknown>) => Promise<unknown> },
    ) => {
      try {
        const answer = await context.request(method, params);
        return { content: [{ type: 'text' as const, text: JSON.stringify(answer) }] };
      } catch (error) {
        const e = error as JsonRpcError;
        return { content: [{ type: 'text' as const, text: `error ${e.code}` }], isError: true };
      }
    },
  });

  it('legacy: sampling reaches the handler; capabilities advertise only what has a handler', async () => {
    await using h = await connect(
      {
        era: 'legacy',
        tools: [askingTool('sampling/createMessage', { messages: [], maxTokens: 5 })],
      },
      {
        handlers: {
          sampling: () =>
            Promise.resolve({
              role: 'assistant',
              content: { type: 'text', text: 'hi' },
              model: 'm',
            }),
        },
      },
    );
    await h.client.connect();
    const init = h.fake.received.find((r) => r.method === 'initialize')!;
    expect(init.params!.capabilities).toEqual({ sampling: {} });
    const result = await h.client.callTool('ask');
    expect(result.content[0]).toMatchObject({ text: expect.stringContaining('"model":"m"') });
  });

  it('legacy: an unadvertised request gets -32601 and runs no handler; an undeclared elicitation mode gets -32602', async () => {
    let called = 0;
    const form = () => {
      called++;
      return Promise.resolve({ action: 'accept' as const, content: {} });
    };
    await using h = await connect(
      {
        era: 'legacy',
        tools: [
          askingTool('sampling/createMessage', { messages: [], maxTokens: 5 }),
          {
            ...askingTool('elicitation/create', {
              mode: 'url',
              message: 'go',
              url: 'https://x.test',
              elicitationId: '1',
            }),
            name: 'url',
          },
        ],
      },
      { handlers: { elicitation: { form } } },
    );
    await h.client.connect();
    expect((await h.client.callTool('ask')).content[0]).toMatchObject({ text: 'error -32601' });
    expect((await h.client.callTool('url')).content[0]).toMatchObject({ text: 'error -32602' });
    expect(called).toBe(0);
  });

  it('modern: input_required is answered by the same handlers and retried with requestState echoed exactly', async () => {
    const state = 'opaque ✓ {"x":1} ==';
    await using h = await connect(
      {
        era: 'modern',
        tools: [
          {
            name: 'login',
            inputSchema: { type: 'object' },
            handler: (_args, context) =>
              context.inputResponses === undefined
                ? {
                    resultType: 'input_required' as const,
                    requestState: state,
                    inputRequests: {
                      who: {
                        method: 'elicitation/create',
                        params: {
                          mode: 'form',
                          message: 'Name?',
                          requestedSchema: { type: 'object' },
                        },
                      },
                    },
                  }
                : {
                    content: [
                      {
                        type: 'text' as const,
                        text: `hello ${JSON.stringify(context.inputResponses)} ${context.requestState}`,
                      },
                    ],
                  },
          },
        ],
      },
      {
        handlers: {
          elicitation: {
            form: () => Promise.resolve({ action: 'accept', content: { name: 'ada' } }),
          },
        },
      },
    );
    await h.client.connect();
    const result = await h.client.callTool('login');
    expect(result.content[0]).toMatchObject({
      text: `hello {"who":{"action":"accept","content":{"name":"ada"}}} ${state}`,
    });
    const calls = h.fake.received.filter((r) => r.method === 'tools/call');
    expect(calls).toHaveLength(2);
    expect(calls[0]!.params!.requestState).toBeUndefined();
    expect(calls[1]!.params!.requestState).toBe(state);
  });

  it('modern: an endless input_required loop stops at the round cap with a typed error', async () => {
    await using h = await connect(
      {
        era: 'modern',
        tools: [
          {
            name: 'loop',
            inputSchema: { type: 'object' },
            handler: () => ({ resultType: 'input_required' as const, requestState: 's' }),
          },
        ],
      },
      { maxInputRounds: 3 },
    );
    await h.client.connect();
    await expect(h.client.callTool('loop')).rejects.toMatchObject({
      code: 'INPUT_ROUNDS_EXCEEDED',
    });
    expect(h.fake.received.filter((r) => r.method === 'tools/call')).toHaveLength(4);
  });

  it('modern: an undeclared input request is a protocol violation and never reaches a handler', async () => {
    let asked = 0;
    await using h = await connect(
      {
        era: 'modern',
        tools: [
          {
            name: 't',
            inputSchema: { type: 'object' },
            handler: () => ({
              resultType: 'input_required' as const,
              inputRequests: {
                s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } },
                e: { method: 'elicitation/create', params: { message: 'x', requestedSchema: {} } },
              },
            }),
          },
        ],
      },
      {
        handlers: {
          elicitation: { form: () => (asked++, Promise.resolve({ action: 'decline' as const })) },
        },
      },
    );
    await h.client.connect();
    await expect(h.client.callTool('t')).rejects.toMatchObject({ code: 'PROTOCOL_VIOLATION' });
    expect(asked).toBe(0);
  });
});

describe('primitives', () => {
  it('paginates, and stops a cursor loop with a typed error', async () => {
    const tools = Array.from({ length: 5 }, (_, i) => ({
      name: `t${i}`,
      inputSchema: { type: 'object' },
    }));
    {
      await using h = await connect({ era: 'legacy', tools, pageSize: 2 });
      await h.client.connect();
      expect((await h.client.listTools()).items.map((t) => t.name)).toEqual([
        't0',
        't1',
        't2',
        't3',
        't4',
      ]);
    }
    {
      await using h = await connect({
        era: 'legacy',
        handlers: { 'tools/list': () => ({ tools: [], nextCursor: 'again' }) },
      });
      await h.client.connect();
      await expect(h.client.listTools()).rejects.toMatchObject({ code: 'PROTOCOL_VIOLATION' });
    }
  });

  it('exposes modern cache hints and excludes tools with unusable definitions', async () => {
    await using h = await connect({
      era: 'modern',
      handlers: {
        'tools/list': () => ({
          tools: [echo, { name: 'bad', inputSchema: 'nope' }, { inputSchema: {} }],
          ttlMs: 1000,
          cacheScope: 'private',
        }),
      },
    });
    await h.client.connect();
    const listing = await h.client.listTools();
    expect(listing.items.map((t) => t.name)).toEqual(['echo']);
    expect(listing.excluded.map((e) => e.name)).toEqual(['bad', '<unnamed>']);
    expect(listing).toMatchObject({ ttlMs: 1000, cacheScope: 'private' });
  });

  it('returns isError results as data and turns a missing structuredContent into an error result', async () => {
    await using h = await connect({
      era: 'legacy',
      tools: [
        {
          name: 'fails',
          inputSchema: { type: 'object' },
          handler: () => ({ content: [{ type: 'text', text: 'nope' }], isError: true }),
        },
        {
          name: 'typed',
          inputSchema: { type: 'object' },
          outputSchema: { type: 'object' },
          handler: () => ({ content: [] }),
        },
      ],
    });
    await h.client.connect();
    await h.client.listTools();
    expect(await h.client.callTool('fails')).toMatchObject({ isError: true });
    const typed = await h.client.callTool('typed');
    expect(typed.isError).toBe(true);
    expect(typed.content[0]).toMatchObject({ text: expect.stringContaining('structuredContent') });
  });

  it('excludes a tool whose schema is invalid, keeps the others, and validates structuredContent', async () => {
    await using h = await connect({
      era: 'legacy',
      tools: [
        { name: 'broken', inputSchema: { type: 42 } },
        {
          name: 'weather',
          inputSchema: { type: 'object' },
          outputSchema: {
            type: 'object',
            properties: { temperature: { type: 'number' } },
            required: ['temperature'],
          },
          handler: (args) => ({
            content: [],
            structuredContent: { temperature: args.bad === true ? 'hot' : 21 },
          }),
        },
      ],
    });
    await h.client.connect();
    const listing = await h.client.listTools();
    expect(listing.items.map((t) => t.name)).toEqual(['weather']);
    expect(listing.excluded).toEqual([
      { name: 'broken', reason: expect.stringContaining('inputSchema is unusable') },
    ]);
    await expect(h.client.callTool('broken', {})).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      tool: 'broken',
    });
    expect(h.fake.methods()).not.toContain('tools/call');
    expect(await h.client.callTool('weather', {})).toMatchObject({
      structuredContent: { temperature: 21 },
    });
    const mismatch = await h.client.callTool('weather', { bad: true });
    expect(mismatch.isError).toBe(true);
    expect(mismatch.content[0]).toMatchObject({
      text: expect.stringMatching(
        /does not match the tool's outputSchema: .*temperature must be number/,
      ),
    });
  });

  it('debounces a list_changed flood into one refetch and one change event', async () => {
    const tools = [echo];
    await using h = await connect({ era: 'legacy', tools });
    await h.client.connect();
    await h.client.listTools();
    const changes: unknown[] = [];
    const changed = new Promise<void>((resolve) =>
      h.client.onToolsChanged((change) => {
        changes.push(change);
        resolve();
      }),
    );
    tools.push({ name: 'added', inputSchema: { type: 'object' } });
    for (let i = 0; i < 1000; i++) h.fake.peer.notify('notifications/tools/list_changed');
    await changed;
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      kind: 'tools',
      added: [{ name: 'added' }],
      removed: [],
      changed: [],
    });
    expect(h.fake.methods().filter((m) => m === 'tools/list').length).toBeLessThanOrEqual(3);
  });

  it('fails calls at once when the server goes away, and reports why', async () => {
    const [clientTransport, serverTransport] = createLinkedTransports();
    const fake = new FakeMcpServer(serverTransport, {
      era: 'legacy',
      tools: [
        { name: 'hang', inputSchema: { type: 'object' }, handler: () => new Promise(() => {}) },
      ],
    });
    await fake.start();
    const client = new McpClient({ transport: clientTransport, serverName: 'gone' });
    await client.connect();
    const closed = new Promise<McpHostError | undefined>((resolve) => client.onClose(resolve));
    const call = client.callTool('hang');
    await fake.close();
    await expect(call).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(await closed).toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(client.state).toBe('closed');
    await client.close();
  });
});
