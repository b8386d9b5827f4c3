/**
 * The gateway's named clients (principals) over HTTP: each with its own bearer token, optionally
 * bound to a view, and its own upstream credentials for an OAuth-protected backend (a real
 * authorization server, `oidc-provider`, in front of an SDK server whose `whoami` tool answers the
 * token's account). Two clients each reach the backend as themselves; a third, without a login,
 * gets a tool error naming `mcp-host auth login`, and nobody's token reaches the backend for it.
 */
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { McpHost, type McpHostOptions } from '../../src/index.js';
import { createGateway, type GatewayListener } from '../../src/gateway.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { MemoryTokenStore } from '../helpers/memory-token-store.js';
import { startOidcMcpServer, type OidcMcpServer } from '../helpers/oidc-mcp-server.js';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

const shared = {
  name: 'everything',
  transport: { type: 'stdio' as const, command: process.execPath, args: [everything] },
};
const tracker = (world: OidcMcpServer) => ({
  name: 'tracker',
  transport: { type: 'http' as const, url: world.mcpUrl },
  oauth: {},
});
const views: McpHostOptions['views'] = { everyday: { servers: ['everything'] } };

const tokens = {
  alice: 'alice-token-0123456789abcdef',
  bob: 'bob-token-0123456789abcdef',
  carol: 'carol-token-0123456789abcdef',
  dave: 'dave-token-0123456789abcdef',
};

/** Logs `account` in to the tracker with the host's two-step API, into `store`. */
async function login(world: OidcMcpServer, store: MemoryTokenStore, account: string) {
  await using host = new McpHost({ tokenStore: store, servers: [tracker(world)] });
  await host.start();
  const start = await host.startAuthorization('tracker');
  world.account = account;
  const status = await host.completeAuthorization('tracker', await world.login(start.url));
  expect(status.state).toBe('ready');
}

/** The v1 SDK client with `token`, connected to `listener` (at `path`); closed on dispose. */
async function clientWith(listener: GatewayListener, token: string, path = '/mcp') {
  const client = new Client({ name: 'principal-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(path, listener.url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return Object.assign(client, {
    sessionId: transport.sessionId,
    [Symbol.asyncDispose]: () => client.close(),
  });
}

const text = (result: object): string =>
  (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[])
    .map((block) => (block.type === 'text' ? (block.text ?? '') : ''))
    .join('');

describe('gateway: named clients and per-client upstream credentials', () => {
  it('two clients reach an OAuth backend each with its own token; one without a login is told how to log in', async () => {
    await using _guard = leakGuard();
    await using world = await startOidcMcpServer();
    const stores: Record<string, MemoryTokenStore> = {
      alice: new MemoryTokenStore(),
      bob: new MemoryTokenStore(),
    };
    await login(world, stores.alice!, 'alice');
    await login(world, stores.bob!, 'bob');
    const loginRequests = world.accepted.length;

    await using host = new McpHost({ servers: [shared], views });
    await host.start();
    await using gateway = createGateway({
      host,
      perClient: {
        servers: [tracker(world)],
        tokenStore: (principal) => (stores[principal] ??= new MemoryTokenStore()),
        host: { views },
      },
    });
    await using listener = await gateway.listen({
      clients: {
        alice: { bearerToken: tokens.alice },
        bob: { bearerToken: tokens.bob },
        carol: { bearerToken: tokens.carol },
      },
    });
    expect(listener.bearerToken).toBeUndefined();

    await using alice = await clientWith(listener, tokens.alice);
    await using bob = await clientWith(listener, tokens.bob);
    const names = (await alice.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('mcp__tracker__whoami');
    expect(names).toContain('mcp__everything__echo');

    const asAlice = await alice.callTool({ name: 'mcp__tracker__whoami', arguments: {} });
    const asBob = await bob.callTool({ name: 'mcp__tracker__whoami', arguments: {} });
    expect(text(asAlice)).toBe('alice');
    expect(text(asBob)).toBe('bob');
    // The shared server is one connection for both.
    const echoed = await bob.callTool({
      name: 'mcp__everything__echo',
      arguments: { message: 'hi' },
    });
    expect(text(echoed)).toContain('hi');

    // The backend saw two identities, each with its own token (the one in its own store).
    const seen = world.accepted.slice(loginRequests);
    expect(new Set(seen.map((call) => call.account))).toEqual(new Set(['alice', 'bob']));
    const tokenOf = (account: string) =>
      new Set(seen.filter((call) => call.account === account).map((call) => call.token));
    const [aliceToken] = [...tokenOf('alice')];
    const [bobToken] = [...tokenOf('bob')];
    expect(tokenOf('alice').size).toBe(1);
    expect(tokenOf('bob').size).toBe(1);
    expect(aliceToken).not.toBe(bobToken);
    expect([...stores.alice!.tokens.values()].map((t) => t.accessToken)).toEqual([aliceToken]);
    expect([...stores.bob!.tokens.values()].map((t) => t.accessToken)).toEqual([bobToken]);

    // Carol has no login: the tool is not offered to her, and a call of it is an error result
    // naming the way to log in, with nothing of the others' tokens sent for her.
    await using carol = await clientWith(listener, tokens.carol);
    expect((await carol.listTools()).tools.map((tool) => tool.name)).not.toContain(
      'mcp__tracker__whoami',
    );
    const acceptedBefore = world.accepted.length;
    const refusedBefore = world.unauthorized;
    const refused = await carol.callTool({ name: 'mcp__tracker__whoami', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('AUTH_REQUIRED');
    expect(text(refused)).toContain('mcp-host auth login tracker --as carol');
    expect(text(refused)).toContain("the gateway client 'carol'");
    expect(world.accepted.length).toBe(acceptedBefore);
    // She was tried once more with her own (empty) credentials: refused by the backend.
    expect(world.unauthorized).toBeGreaterThan(refusedBefore);
    expect(text(refused)).not.toContain(aliceToken);
    expect(stores.carol?.tokens.size).toBe(0);

    // A session is its client's: another client's token does not reach it.
    const stolen = await fetch(listener.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${tokens.bob}`,
        'mcp-session-id': alice.sessionId!,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }),
    });
    expect(stolen.status).toBe(404);
    await stolen.body?.cancel();
  });

  it('a client whose token is bound to a view sees that view only', async () => {
    await using _guard = leakGuard();
    await using world = await startOidcMcpServer();
    await using host = new McpHost({ servers: [shared], views });
    await host.start();
    await using gateway = createGateway({
      host,
      perClient: {
        servers: [tracker(world)],
        tokenStore: () => new MemoryTokenStore(),
        host: { views },
      },
    });
    await using listener = await gateway.listen({
      clients: {
        alice: { bearerToken: tokens.alice },
        dave: { bearerToken: tokens.dave, view: 'everyday' },
      },
    });
    await using dave = await clientWith(listener, tokens.dave);
    const names = (await dave.listTools()).tools.map((tool) => tool.name);
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((name) => name.startsWith('mcp__everything__'))).toBe(true);
    // The per-client server is outside the view: unknown to dave, not a login to make.
    const refusedBefore = world.unauthorized;
    await expect(dave.callTool({ name: 'mcp__tracker__whoami', arguments: {} })).rejects.toThrow(
      /Unknown tool/,
    );
    expect(world.unauthorized).toBe(refusedBefore);
    const other = await fetch(new URL('/mcp/other', listener.url), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${tokens.dave}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(other.status).toBe(403);
    await other.body?.cancel();
    const unknown = await fetch(listener.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: 'Bearer not-a-known-token-0123456789',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(unknown.status).toBe(401);
    await unknown.body?.cancel();
  });

  it('refuses clients that share a token, a view the host lacks, no auth, a shared per-client server, a shared store', async () => {
    await using _guard = leakGuard();
    await using world = await startOidcMcpServer();
    await using host = new McpHost({ servers: [], views });
    await host.start();
    await using gateway = createGateway({ host });
    const invalid = { code: 'INVALID_ARGUMENT' };
    await expect(
      gateway.listen({
        clients: { alice: { bearerToken: tokens.alice }, bob: { bearerToken: tokens.alice } },
      }),
    ).rejects.toMatchObject(invalid);
    await expect(
      gateway.listen({ clients: { alice: { bearerToken: tokens.alice, view: 'nope' } } }),
    ).rejects.toMatchObject(invalid);
    await expect(
      gateway.listen({ auth: 'none', clients: { alice: { bearerToken: tokens.alice } } }),
    ).rejects.toMatchObject(invalid);
    await expect(
      gateway.listen({ clients: { 'no spaces': { bearerToken: tokens.alice } } }),
    ).rejects.toMatchObject(invalid);
    // Nothing leaked the token into the errors.
    const error = await gateway
      .listen({
        clients: { alice: { bearerToken: tokens.alice }, bob: { bearerToken: tokens.alice } },
      })
      .catch((e: unknown) => e);
    expect(String((error as Error).message)).not.toContain(tokens.alice);

    await using both = new McpHost({ servers: [tracker(world)] });
    expect(() =>
      createGateway({
        host: both,
        perClient: { servers: [tracker(world)], tokenStore: () => new MemoryTokenStore() },
      }),
    ).toThrow(/must not have it too/);

    // One store for two clients: the second is refused (its connection fails), never served.
    const store = new MemoryTokenStore();
    await using sharing = createGateway({
      host,
      perClient: { servers: [tracker(world)], tokenStore: () => store },
    });
    await using listener = await sharing.listen({
      clients: { alice: { bearerToken: tokens.alice }, bob: { bearerToken: tokens.bob } },
    });
    await using _alice = await clientWith(listener, tokens.alice);
    await expect(clientWith(listener, tokens.bob)).rejects.toThrow();
  });
});
