/**
 * Issue 17's first "Done when" line, in one run: three backends behind the gateway at once (a
 * legacy one, the v1 SDK fixture over stdio; a modern one, the v2 SDK fixture over stdio,
 * 2026-07-28 only; one over HTTP, the v2 fixture served over Streamable HTTP on 127.0.0.1), and
 * the official clients (v1 `@modelcontextprotocol/sdk`; v2 `@modelcontextprotocol/client` in the
 * legacy era and in the 2026-07-28 era) in front of the built CLI's gateway over stdio (one
 * gateway per client, as a stdio server is) and over HTTP (one gateway for all). Each client
 * uses a tool, a resource and a prompt of each backend, sees a list change of a backend in its
 * view, cancels a call (the backend's record shows it), and the modern clients answer a legacy
 * backend's sampling request as an input_required round. Over HTTP a fourth client, on a view
 * without the legacy backend, is not told of the legacy backend's change.
 *
 * Run time: about 15-25 s on a shared 2-core machine (13 node processes: the HTTP backend, the
 * HTTP gateway and its two stdio backends, and three stdio gateways with two backends each).
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  MODERN,
  counter,
  gatewayConfig,
  gatewayToken,
  nodeServer,
  startHttpGateway,
  stdioGatewayV1,
  stdioGatewayV2,
  text,
  type StderrLines,
} from '../helpers/gateway-harness.js';
import { startHttpServer, type HttpServerProcess } from '../helpers/http-fixture-server.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';
import { ensureBuiltCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

beforeAll(() => ensureBuiltCli());

const BACKENDS = ['legacy', 'modern', 'web'] as const;
type Backend = (typeof BACKENDS)[number];

/** One client in front of a gateway, whichever SDK and era: what the test does with it. */
interface Front {
  readonly label: string;
  readonly modern: boolean;
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<object>;
  read(uri: string): Promise<string>;
  prompt(name: string, args: Record<string, string>): Promise<string>;
  toolNames(): Promise<string[]>;
  /** Counts its `tools/list_changed` notifications (a modern client listens for them). */
  watchTools(): Promise<{ changed: ReturnType<typeof counter>; close(): Promise<void> }>;
}

/** A sampling answer, as a client gives it. */
const sampled = {
  role: 'assistant' as const,
  content: { type: 'text' as const, text: 'the answer is 42' },
  model: 'test-model',
  stopReason: 'endTurn',
};

function v1Front(label: string, client: ClientV1): Front {
  return {
    label,
    modern: false,
    call: (name, args, signal) =>
      client.callTool({ name, arguments: args }, undefined, signal ? { signal } : {}),
    read: async (uri) => JSON.stringify((await client.readResource({ uri })).contents),
    prompt: async (name, args) =>
      JSON.stringify((await client.getPrompt({ name, arguments: args })).messages),
    toolNames: async () => (await client.listTools()).tools.map((tool) => tool.name),
    watchTools() {
      const changed = counter();
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed.hit());
      return Promise.resolve({ changed, close: () => Promise.resolve() });
    },
  };
}

/** A v2 client (declaring sampling, answering it); modern with `MODERN` in its options. */
function v2Client(modern: boolean): ClientV2 {
  const client = new ClientV2(
    { name: 'done-when', version: '1.0.0' },
    { capabilities: { sampling: {} }, ...(modern ? MODERN : {}) },
  );
  client.setRequestHandler('sampling/createMessage', () => Promise.resolve(sampled));
  return client;
}

function v2Front(label: string, client: ClientV2): Front {
  const modern = client.getProtocolEra() === 'modern';
  return {
    label,
    modern,
    call: (name, args, signal) =>
      client.callTool({ name, arguments: args }, signal ? { signal } : {}),
    read: async (uri) => JSON.stringify((await client.readResource({ uri })).contents),
    prompt: async (name, args) =>
      JSON.stringify((await client.getPrompt({ name, arguments: args })).messages),
    toolNames: async () => (await client.listTools()).tools.map((tool) => tool.name),
    async watchTools() {
      const changed = counter();
      client.setNotificationHandler('notifications/tools/list_changed', () => changed.hit());
      if (!modern) return { changed, close: () => Promise.resolve() };
      const subscription = await client.listen({ toolsListChanged: true });
      return { changed, close: () => subscription.close() };
    },
  };
}

/** Waits for one more `event` record of a backend, counted from now; `count()` says how many. */
function records(lines: StderrLines, web: HttpServerProcess, backend: Backend, event: string) {
  if (backend === 'web') {
    const before = web.records(event).length;
    return () => web.waitForRecord(event, (record) => web.records(event).indexOf(record) >= before);
  }
  const texts = [`server '${backend}'`, `"event":"${event}"`];
  const before = lines.matching(texts).length;
  return () => lines.line(texts, before + 1);
}

/** Uses a tool, a resource and a prompt of each backend through `front`. */
async function useEachBackend(front: Front): Promise<void> {
  const names = await front.toolNames();
  for (const backend of BACKENDS) {
    expect(names, front.label).toContain(`mcp__${backend}__echo`);
    const echoed = await front.call(`mcp__${backend}__echo`, {
      message: `${front.label} ${backend}`,
    });
    expect(text(echoed), front.label).toBe(`${front.label} ${backend}`);
    expect(await front.read(`fixture://${backend}/hello`), front.label).toContain(
      `hello from ${backend}`,
    );
    expect(
      await front.prompt(`mcp__${backend}__greet`, { name: `${front.label}-${backend}` }),
      front.label,
    ).toContain(`Greet ${front.label}-${backend}.`);
  }
}

/** Cancels a `sleep` call of `backend` through `front`; resolves once the backend recorded it. */
async function cancelOn(
  front: Front,
  backend: Backend,
  lines: StderrLines,
  web: HttpServerProcess,
): Promise<void> {
  const sleeping = records(lines, web, backend, 'sleeping');
  const cancelled = records(lines, web, backend, 'cancelled');
  const controller = new AbortController();
  const call = front.call(`mcp__${backend}__sleep`, { ms: 60_000 }, controller.signal);
  await sleeping();
  controller.abort(new Error('the user gave up'));
  await expect(call, front.label).rejects.toThrow();
  await cancelled();
}

/** A modern client's call of the legacy backend's `sample`: its sampling request, as a round. */
async function sampleThrough(front: Front): Promise<void> {
  const result = await front.call('mcp__legacy__sample', { prompt: 'six times seven?' });
  expect(result, front.label).not.toMatchObject({ isError: true });
  expect(text(result), front.label).toBe('the answer is 42');
}

describe('Done when, line 1: three backends, the gateway over stdio and HTTP, the official clients of both eras', () => {
  it('each client uses every backend, sees list changes of its view only, cancels, and answers a legacy sampling request as a round', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    await using web = await startHttpServer(mcpFixtures.modernSdk, [
      '--http=stateless',
      '--resource-tag=web',
    ]);
    const file = gatewayConfig(
      dir.path,
      {
        legacy: nodeServer(mcpFixtures.legacySdk, '--resource-tag=legacy'),
        modern: nodeServer(mcpFixtures.modernSdk, '--resource-tag=modern'),
        web: [`url: ${JSON.stringify(web.url)}`],
      },
      ['views:', '  no-legacy:', '    servers: [modern, web]'],
    );
    const stateDir = join(dir.path, 'state');

    // ---- over stdio: one gateway per client -----------------------------------------------------
    const stdioFronts = [
      ['stdio-v1', () => stdioGatewayV1(file, { cwd: dir.path })],
      ['stdio-v2-legacy', () => stdioGatewayV2(file, { cwd: dir.path }, v2Client(false))],
      ['stdio-v2-modern', () => stdioGatewayV2(file, { cwd: dir.path }, v2Client(true))],
    ] as const;
    for (const [index, [label, connect]] of stdioFronts.entries()) {
      await using g = await connect();
      const front =
        g.client instanceof ClientV1 ? v1Front(label, g.client) : v2Front(label, g.client);
      expect(front.modern).toBe(label.endsWith('modern'));
      await useEachBackend(front);
      const watch = await front.watchTools();
      expect(text(await front.call('mcp__legacy__toggle-tool', {}))).toContain('extra on');
      await watch.changed.reach(1);
      expect(await front.toolNames()).toContain('mcp__legacy__extra');
      await watch.close();
      await cancelOn(front, BACKENDS[index % 3]!, g.stderr, web);
      if (front.modern) await sampleThrough(front);
    }

    // ---- over HTTP: one gateway, four clients ---------------------------------------------------
    await using gateway = await startHttpGateway(file, { MCP_HOST_STATE_DIR: stateDir });
    const headers = { authorization: `Bearer ${gatewayToken(stateDir)}` };
    const v1 = async (path: string) => {
      const client = new ClientV1({ name: 'done-when', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(path, gateway.url), { requestInit: { headers } }),
      );
      return client;
    };
    const v2 = async (modern: boolean) => {
      const client = v2Client(modern);
      await client.connect(
        new StreamableHTTPClientTransportV2(new URL(gateway.url), { requestInit: { headers } }),
      );
      return client;
    };
    const clients = [await v1('/mcp'), await v2(false), await v2(true)];
    const narrowClient = await v1('/mcp/no-legacy');
    try {
      const fronts = [
        v1Front('http-v1', clients[0] as ClientV1),
        v2Front('http-v2-legacy', clients[1] as ClientV2),
        v2Front('http-v2-modern', clients[2] as ClientV2),
      ];
      const narrow = v1Front('http-v1-no-legacy', narrowClient);
      expect(fronts.map((front) => front.modern)).toEqual([false, false, true]);
      for (const front of fronts) await useEachBackend(front);
      expect((await narrow.toolNames()).some((name) => name.startsWith('mcp__legacy__'))).toBe(
        false,
      );

      // One backend's change reaches the clients whose view has it, not the one whose view lacks
      // it: the legacy backend's first, then the modern one's, which all four see; by then the
      // view's client has been told of one change only.
      const watches = await Promise.all(fronts.map((front) => front.watchTools()));
      const narrowWatch = await narrow.watchTools();
      await fronts[0]!.call('mcp__legacy__toggle-tool', {});
      await Promise.all(watches.map((watch) => watch.changed.reach(1)));
      await fronts[0]!.call('mcp__modern__toggle-tool', {});
      await Promise.all([
        ...watches.map((watch) => watch.changed.reach(2)),
        narrowWatch.changed.reach(1),
      ]);
      expect(await narrow.toolNames()).toContain('mcp__modern__extra');
      expect(narrowWatch.changed.count).toBe(1);
      for (const watch of watches) await watch.close();

      for (const [index, front] of fronts.entries())
        await cancelOn(front, BACKENDS[index % 3]!, gateway.stderr, web);
      await sampleThrough(fronts[2]!);
    } finally {
      await Promise.allSettled([...clients, narrowClient].map((client) => client.close()));
    }
  });
});
