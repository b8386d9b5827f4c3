/**
 * The gateway's 2026-07-28 era and server input bridged both ways, with the official clients in
 * front (v2 `@modelcontextprotocol/client` 2.4.0 pinned to 2026-07-28; v1 `@modelcontextprotocol/sdk`
 * in the legacy era) and the SDK fixtures behind (legacy-sdk-server.mjs: server-to-client
 * requests; modern-sdk-server.mjs: input_required rounds and subscriptions/listen).
 *
 * The first tests run the built CLI (`gateway serve`) over stdio. The others serve one in-process
 * gateway (`createGateway`) to several clients at once over in-memory pipes, each client's SDK
 * transport an adapter over one end of a linked pair: two clients of one gateway, and two
 * gateways (two views) of one host.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Stream } from 'node:stream';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransportV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { McpHost, type HostServerDefinition, type ServerInputHandlers } from '../../src/index.js';
import {
  createGateway,
  createServerInputBridge,
  type Gateway,
  type ServerInputBridge,
} from '../../src/gateway.js';
import { createLinkedTransports } from '../../src/testing/index.js';
import { MODERN, counter, sdkTransport, text } from '../helpers/gateway-harness.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';
import { cliEnv, cliPath, ensureBuiltCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

beforeAll(() => ensureBuiltCli());

/** A sampling answer, as a client gives it. */
const sampled = (answer: string) => ({
  role: 'assistant' as const,
  content: { type: 'text' as const, text: answer },
  model: 'test-model',
  stopReason: 'endTurn',
});

// ---- over stdio: the built CLI ------------------------------------------------------------------

/** The v2 client, modern era, connected to `mcp-host gateway serve` over the fixtures' config. */
async function modernGateway(cwd: string) {
  const file = join(cwd, 'mcp.yaml');
  const server = (script: string) => [
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: ${JSON.stringify([script])}`,
  ];
  writeFileSync(
    file,
    [
      'servers:',
      '  legacy:',
      ...server(mcpFixtures.legacySdk),
      '  modern:',
      ...server(mcpFixtures.modernSdk),
      '',
    ].join('\n'),
  );
  const transport = new StdioClientTransportV2({
    command: process.execPath,
    args: [cliPath, '--config', file, 'gateway', 'serve'],
    cwd,
    env: cliEnv() as Record<string, string>,
    stderr: 'pipe',
  });
  const stderr: string[] = [];
  const waiters = new Set<() => void>();
  let partial = '';
  (transport.stderr as Stream).on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    stderr.push(...lines);
    for (const wake of waiters) wake();
  });
  const client = new ClientV2(
    { name: 'modern-test', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {} } }, ...MODERN },
  );
  const asked: { method: string; params: unknown }[] = [];
  client.setRequestHandler('sampling/createMessage', (request) => {
    asked.push({ method: request.method, params: request.params });
    return Promise.resolve(sampled('the answer is 42'));
  });
  client.setRequestHandler('elicitation/create', (request) => {
    asked.push({ method: request.method, params: request.params });
    return Promise.resolve({ action: 'accept' as const, content: { name: 'Ada' } });
  });
  await client.connect(transport);
  return {
    client,
    asked,
    /** Resolves with the first stderr line of the gateway (its servers' too) containing `text`. */
    line(text: string): Promise<string> {
      return new Promise((resolve) => {
        const check = () => {
          const found = stderr.find((line) => line.includes(text));
          if (found === undefined) return;
          waiters.delete(check);
          resolve(found);
        };
        waiters.add(check);
        check();
      });
    },
    async [Symbol.asyncDispose]() {
      await client.close();
    },
  };
}

describe('gateway serve (stdio) with the official v2 client in the 2026-07-28 era', () => {
  it('lists and calls tools, reads a resource, gets a prompt, and listens for list changes', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    await using g = await modernGateway(dir.path);
    const { client } = g;
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getServerVersion()).toMatchObject({ name: 'mcp-host' });

    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['mcp__legacy__echo', 'mcp__modern__echo']));
    expect(names).not.toContain('mcp__modern__extra');
    expect(
      text(await client.callTool({ name: 'mcp__legacy__echo', arguments: { message: 'old' } })),
    ).toContain('old');
    expect(
      text(await client.callTool({ name: 'mcp__modern__echo', arguments: { message: 'new' } })),
    ).toContain('new');
    await expect(client.callTool({ name: 'mcp__modern__nope', arguments: {} })).rejects.toThrow(
      /Unknown tool/,
    );

    const read = await client.readResource({ uri: 'fixture://static/hello' });
    expect(read.contents[0]).toMatchObject({ text: 'hello, world' });
    const prompt = await client.getPrompt({
      name: 'mcp__legacy__greet',
      arguments: { name: 'alice' },
    });
    expect(JSON.stringify(prompt.messages)).toContain('alice');

    const changed = counter();
    client.setNotificationHandler('notifications/tools/list_changed', () => changed.hit());
    const subscription = await client.listen({ toolsListChanged: true });
    expect(
      text(await client.callTool({ name: 'mcp__modern__toggle-tool', arguments: {} })),
    ).toContain('extra on');
    await changed.reach(1);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain(
      'mcp__modern__extra',
    );
    await subscription.close();
  });

  it("passes the servers' progress on, and the client's cancellation back", async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    await using g = await modernGateway(dir.path);
    for (const server of ['legacy', 'modern']) {
      const progress: number[] = [];
      const done = await g.client.callTool(
        { name: `mcp__${server}__progress`, arguments: { steps: 3 } },
        { onprogress: (update) => progress.push(update.progress) },
      );
      expect(text(done)).toBe('done 3');
      expect(progress).toEqual([1, 2, 3]);
    }

    const controller = new AbortController();
    const sleeping = g.client.callTool(
      { name: 'mcp__modern__sleep', arguments: { ms: 60_000 } },
      { signal: controller.signal },
    );
    await g.line('"event":"sleeping"');
    controller.abort(new Error('the user gave up'));
    await expect(sleeping).rejects.toThrow();
    // The client's notifications/cancelled reached the backend, through the host.
    await g.line('"event":"cancelled"');
  });

  it("carries a legacy server's sampling request to the client as an input_required round, and the answer back", async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    await using g = await modernGateway(dir.path);
    // A modern connection has no server-to-client requests (the v2 client drops them): its
    // handler runs only for the input requests of an input_required result.
    const result = await g.client.callTool({
      name: 'mcp__legacy__sample',
      arguments: { prompt: 'what is six times seven?' },
    });
    expect(result.isError).not.toBe(true);
    expect(text(result)).toBe('the answer is 42');
    expect(g.asked).toEqual([
      {
        method: 'sampling/createMessage',
        params: expect.objectContaining({
          messages: [{ role: 'user', content: { type: 'text', text: 'what is six times seven?' } }],
        }),
      },
    ]);

    // A legacy server's elicitation, and a modern server's own rounds, the same way.
    expect(text(await g.client.callTool({ name: 'mcp__legacy__ask', arguments: {} }))).toContain(
      '"name":"Ada"',
    );
    expect(text(await g.client.callTool({ name: 'mcp__modern__ask', arguments: {} }))).toBe(
      'hello Ada',
    );
    expect(g.asked.map((asked) => asked.method)).toEqual([
      'sampling/createMessage',
      'elicitation/create',
      'elicitation/create',
    ]);
  });
});

// ---- in process: several clients of one gateway, several gateways of one host ------------------

/** A started host over the two SDK fixtures, every server given the bridge's handlers. */
async function fixtureHost(bridge: ServerInputBridge) {
  const server = (name: string, script: string): HostServerDefinition => ({
    name,
    transport: { type: 'stdio', command: process.execPath, args: [script] },
    client: { handlers: bridge.handlers },
  });
  const host = new McpHost({
    servers: [server('legacy', mcpFixtures.legacySdk), server('modern', mcpFixtures.modernSdk)],
    views: { 'legacy-only': { servers: ['legacy'] } },
    health: { intervalMs: 0 },
  });
  await host.start();
  return host;
}

/** Serves one client of `gateway` in process; `connect` it with an SDK client. */
function serveOne(gateway: Gateway) {
  const [clientEnd, gatewayEnd] = createLinkedTransports();
  const served = gateway.serve(gatewayEnd);
  return { transport: sdkTransport(clientEnd), served };
}

describe('gateway (in process) with official clients of both eras at once', () => {
  it('serves a v1 client and a v2 modern client at once, each asked by the backends in its own form', async () => {
    await using _guard = leakGuard();
    const bridge = createServerInputBridge();
    await using host = await fixtureHost(bridge);
    await using gateway = createGateway({ host, bridge });

    const v1 = new ClientV1(
      { name: 'legacy-test', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    const v1Asked: unknown[] = [];
    v1.setRequestHandler(ElicitRequestSchema, (request) => {
      v1Asked.push(request.params);
      return { action: 'accept', content: { name: 'Grace' } };
    });
    const one = serveOne(gateway);
    await v1.connect(one.transport);

    const v2 = new ClientV2(
      { name: 'modern-test', version: '1.0.0' },
      { capabilities: { sampling: {} }, ...MODERN },
    );
    v2.setRequestHandler('sampling/createMessage', () => Promise.resolve(sampled('from v2')));
    const two = serveOne(gateway);
    await v2.connect(two.transport);
    expect(gateway.connectionCount).toBe(2);
    expect(v2.getProtocolEra()).toBe('modern');

    // At the same time: the modern server's input_required round reaches the v1 client as a real
    // elicitation/create; the legacy server's sampling request reaches the v2 client as a round.
    const [asked, sampledResult] = await Promise.all([
      v1.callTool({ name: 'mcp__modern__ask', arguments: { question: 'Who are you?' } }),
      v2.callTool({ name: 'mcp__legacy__sample', arguments: { prompt: 'hi' } }),
    ]);
    expect(text(asked)).toBe('hello Grace');
    expect(v1Asked).toEqual([expect.objectContaining({ message: 'Who are you?' })]);
    expect(text(sampledResult)).toBe('from v2');

    // The legacy server's own elicitation reaches the v1 client as the same request.
    expect(text(await v1.callTool({ name: 'mcp__legacy__ask', arguments: {} }))).toContain(
      '"name":"Grace"',
    );

    await v1.close();
    await v2.close();
    await Promise.all([one.served, two.served]);
  });

  it("answers a legacy client without the capability with the host's handlers, else a clear error", async () => {
    await using _guard = leakGuard();
    const hostAnswers: ServerInputHandlers = {
      elicitation: {
        form: () => Promise.resolve({ action: 'accept', content: { name: 'the host' } }),
      },
    };
    const bridge = createServerInputBridge({ handlers: hostAnswers });
    await using host = await fixtureHost(bridge);
    await using gateway = createGateway({ host, bridge });
    const v1 = new ClientV1({ name: 'bare', version: '1.0.0' });
    const one = serveOne(gateway);
    await v1.connect(one.transport);

    // Elicitation: the client cannot, the host can (both backends' forms).
    expect(text(await v1.callTool({ name: 'mcp__legacy__ask', arguments: {} }))).toContain(
      '"name":"the host"',
    );
    expect(text(await v1.callTool({ name: 'mcp__modern__ask', arguments: {} }))).toBe(
      'hello the host',
    );
    // Sampling: nobody can. The legacy server is refused with -32601 naming why; the modern
    // server is never told the capability, and refuses the call itself.
    const legacy = await v1.callTool({ name: 'mcp__legacy__sample', arguments: { prompt: 'x' } });
    expect(legacy.isError).toBe(true);
    expect(text(legacy)).toMatch(/Method not found: sampling\/createMessage.*did not declare/);
    const modern = await v1.callTool({ name: 'mcp__modern__sample', arguments: { prompt: 'x' } });
    expect(modern.isError).toBe(true);
    expect(text(modern)).toContain("server 'modern'");

    await v1.close();
    await one.served;
  });

  it('streams list changes to each listening client only when its own view changed', async () => {
    await using _guard = leakGuard();
    const bridge = createServerInputBridge();
    await using host = await fixtureHost(bridge);
    await using whole = createGateway({ host, bridge });
    await using legacyOnly = createGateway({ host, bridge, view: 'legacy-only' });

    const listener = async (gateway: Gateway) => {
      const client = new ClientV2({ name: 'listener', version: '1.0.0' }, MODERN);
      const changed = counter();
      client.setNotificationHandler('notifications/tools/list_changed', () => changed.hit());
      const one = serveOne(gateway);
      await client.connect(one.transport);
      const subscription = await client.listen({ toolsListChanged: true });
      return { client, changed, subscription, served: one.served };
    };
    const a = await listener(whole);
    const b = await listener(legacyOnly);

    // The modern server's tools change: only the whole host's client sees it.
    await a.client.callTool({ name: 'mcp__modern__toggle-tool', arguments: {} });
    await a.changed.reach(1);
    // The legacy server's tools change: both see it. The view's client got nothing before.
    await b.client.callTool({ name: 'mcp__legacy__toggle-tool', arguments: {} });
    await Promise.all([a.changed.reach(2), b.changed.reach(1)]);
    expect(b.changed.count).toBe(1);
    expect((await b.client.listTools()).tools.map((tool) => tool.name)).toContain(
      'mcp__legacy__extra',
    );

    for (const { client, subscription } of [a, b]) {
      await subscription.close();
      await client.close();
    }
    await Promise.all([a.served, b.served]);
  });
});
