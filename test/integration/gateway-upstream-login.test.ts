/**
 * Issue 17: an upstream login a named client needs, shown to it as a URL elicitation. The gateway
 * (over HTTP, in process) fronts an OAuth-protected backend (a real authorization server,
 * `oidc-provider`, in front of an SDK server whose `whoami` tool answers the token's account) as
 * a per-client server. A client without a login that declared URL-mode elicitation is sent the
 * authorization URL (v1 SDK client: a live `elicitation/create` of mode `url`; v2 client in the
 * 2026-07-28 era: an `input_required` round); the test's "browser" follows it with fetch (the
 * provider consents) to the gateway's `/oauth/callback`, which finishes the login into that
 * client's token store; the legacy client is told `notifications/elicitation/complete`, and the
 * call then succeeds as that client.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { McpHost } from '../../src/index.js';
import { createGateway } from '../../src/gateway.js';
import type { Logger } from '../../src/internal/logger.js';
import { createLinkedTransports } from '../../src/testing/index.js';
import { MODERN, sdkTransport, text } from '../helpers/gateway-harness.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { MemoryTokenStore } from '../helpers/memory-token-store.js';
import { startOidcMcpServer, type OidcMcpServer } from '../helpers/oidc-mcp-server.js';

const tokens = { carol: 'carol-token-0123456789abcdef', erin: 'erin-token-0123456789abcdef' };

/** Every line the gateway and the hosts log, to check that no secret is in them. */
function capturingLogger(lines: string[]): Logger {
  const push = (message: string, data?: unknown) =>
    void lines.push(`${message} ${data === undefined ? '' : JSON.stringify(data)}`);
  return { debug: push, info: push, warn: push, error: push };
}

/**
 * A gateway over an empty shared host, the tracker per client, listening for `clients` over HTTP
 * (unless `listen` is false: then its clients are served in process, as over stdio).
 */
async function trackerGateway(world: OidcMcpServer, logs: string[], listen = true) {
  const stores: Record<string, MemoryTokenStore> = {};
  const host = new McpHost({ servers: [], logger: capturingLogger(logs) });
  await host.start();
  const gateway = createGateway({
    host,
    logger: capturingLogger(logs),
    perClient: {
      servers: [{ name: 'tracker', transport: { type: 'http', url: world.mcpUrl }, oauth: {} }],
      tokenStore: (principal) => (stores[principal] ??= new MemoryTokenStore()),
      host: { logger: capturingLogger(logs) },
    },
  });
  const listener = listen
    ? await gateway.listen({
        clients: { carol: { bearerToken: tokens.carol }, erin: { bearerToken: tokens.erin } },
      })
    : undefined;
  return {
    stores,
    gateway,
    get listener() {
      return listener!;
    },
    async [Symbol.asyncDispose]() {
      await gateway.close();
      await host.close();
    },
  };
}

/**
 * The person: opens the URL (the provider logs `account` in and consents), and the browser is
 * sent back to the gateway's callback; resolves with the callback's answer and the code it
 * carried (to look for in the logs).
 */
async function browse(world: OidcMcpServer, url: string, account: string) {
  world.account = account;
  const redirect = new URL(await world.login(url));
  const answer = await fetch(redirect);
  return { status: answer.status, body: await answer.text(), redirect };
}

/** The status of a GET of `path` sent with the `Host` header `host` (fetch sets its own). */
function statusOf(port: number, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host } });
    req.once('response', (res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
    });
    req.once('error', reject);
    req.end();
  });
}

const headers = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * A v1 client that declared URL elicitation, connected by `connect` as carol, calls the tracker
 * without a login: it is sent to log in (the callback at `callbackOrigin()`), told when done, and
 * the call succeeds as carol.
 */
async function loginAsLegacyClient(
  world: OidcMcpServer,
  g: Awaited<ReturnType<typeof trackerGateway>>,
  logs: string[],
  connect: (client: Client) => Promise<void>,
  callbackOrigin: () => string,
  onUrl: (url: string) => void = () => {},
): Promise<void> {
  const client = new Client(
    { name: 'url-elicitation', version: '1.0.0' },
    { capabilities: { elicitation: { url: {} } } },
  );
  const asked: Array<Record<string, unknown>> = [];
  let browsed: ReturnType<typeof browse> | undefined;
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params);
    if (request.params.mode === 'url') onUrl(request.params.url);
    // The person agrees, and the browser goes there while the answer goes back.
    if (request.params.mode === 'url') browsed = browse(world, request.params.url, 'carol');
    return { action: 'accept' };
  });
  const completed = new Promise<unknown>((resolve) =>
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => resolve(n.params)),
  );
  await connect(client);
  try {
    const result = await client.callTool({ name: 'mcp__tracker__whoami', arguments: {} });
    expect(result.isError).not.toBe(true);
    expect(text(result)).toBe('carol');
    expect(asked).toEqual([
      {
        mode: 'url',
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//),
        elicitationId: expect.any(String),
        message: expect.stringContaining("Log in to 'tracker'"),
      },
    ]);
    const authorizationUrl = new URL(asked[0]!.url as string);
    expect(authorizationUrl.searchParams.get('redirect_uri')).toBe(
      `${callbackOrigin()}/oauth/callback`,
    );
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(await completed).toEqual({ elicitationId: asked[0]!.elicitationId });
    const callback = await browsed!;
    expect(callback.status).toBe(200);
    expect(callback.body).toContain("Logged in to 'tracker'");

    // The token is carol's, in carol's store; the next call needs no login.
    expect(g.stores.carol!.tokens.size).toBe(1);
    expect(g.stores.erin).toBeUndefined();
    expect(text(await client.callTool({ name: 'mcp__tracker__whoami', arguments: {} }))).toBe(
      'carol',
    );
    expect(asked).toHaveLength(1);
    expect(new Set(world.accepted.map((call) => call.account))).toEqual(new Set(['carol']));

    // The callback again (the state is used): refused, nothing redeemed.
    const replayed = await fetch(callback.redirect);
    expect(replayed.status).toBe(400);
    await replayed.body?.cancel();
    // No code, token or verifier in the logs.
    const code = callback.redirect.searchParams.get('code')!;
    const [stored] = [...g.stores.carol!.tokens.values()];
    for (const secret of [code, stored!.accessToken, tokens.carol])
      expect(logs.join('\n')).not.toContain(secret);
  } finally {
    await client.close();
  }
}

describe('gateway: an upstream login as a URL elicitation', () => {
  it('sends a legacy client that declared URL elicitation to log in, tells it when done, and the call succeeds as it', async () => {
    await using _guard = leakGuard();
    await using world = await startOidcMcpServer();
    const logs: string[] = [];
    await using g = await trackerGateway(world, logs);
    await loginAsLegacyClient(
      world,
      g,
      logs,
      (client) =>
        client.connect(
          new StreamableHTTPClientTransport(new URL(g.listener.url), {
            requestInit: { headers: headers(tokens.carol) },
          }),
        ),
      () => new URL(g.listener.url).origin,
    );
  });

  it('over stdio (no HTTP listener): the callback is on a loopback port of the gateway', async () => {
    await using _guard = leakGuard();
    await using world = await startOidcMcpServer();
    const logs: string[] = [];
    await using g = await trackerGateway(world, logs, false);
    let served: Promise<void> | undefined;
    let origin: string | undefined;
    await loginAsLegacyClient(
      world,
      g,
      logs,
      async (client) => {
        const [clientEnd, gatewayEnd] = createLinkedTransports();
        served = g.gateway.serve(gatewayEnd, { principal: 'carol' });
        await client.connect(sdkTransport(clientEnd));
      },
      () => origin!,
      (url) => (origin = new URL(new URL(url).searchParams.get('redirect_uri')!).origin),
    );
    await served;
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('asks a 2026-07-28 client in an input_required round; its retry gets the result once logged in', async () => {
    await using _guard = leakGuard();
    await using world = await startOidcMcpServer();
    const logs: string[] = [];
    await using g = await trackerGateway(world, logs);
    const client = new ClientV2(
      { name: 'url-elicitation-modern', version: '1.0.0' },
      { capabilities: { elicitation: { url: {} } }, ...MODERN },
    );
    const asked: unknown[] = [];
    let browsed: ReturnType<typeof browse> | undefined;
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params);
      const params = request.params as { mode?: string; url?: string };
      if (params.mode === 'url') browsed = browse(world, params.url!, 'erin');
      return Promise.resolve({ action: 'accept' as const });
    });
    await client.connect(
      new TransportV2(new URL(g.listener.url), { requestInit: { headers: headers(tokens.erin) } }),
    );
    try {
      expect(client.getProtocolEra()).toBe('modern');
      const result = await client.callTool({ name: 'mcp__tracker__whoami', arguments: {} });
      expect(result.isError).not.toBe(true);
      expect(text(result)).toBe('erin');
      expect(asked).toEqual([
        expect.objectContaining({
          mode: 'url',
          url: expect.stringContaining('%2Foauth%2Fcallback'),
        }),
      ]);
      expect((await browsed!).status).toBe(200);
      expect(g.stores.erin!.tokens.size).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('keeps the tool error for a client without URL elicitation; the callback needs no token but refuses an unknown state', async () => {
    await using _guard = leakGuard();
    await using world = await startOidcMcpServer();
    const logs: string[] = [];
    await using g = await trackerGateway(world, logs);
    const client = new Client(
      { name: 'form-only', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(g.listener.url), {
        requestInit: { headers: headers(tokens.carol) },
      }),
    );
    try {
      const refused = await client.callTool({ name: 'mcp__tracker__whoami', arguments: {} });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain('mcp-host auth login tracker --as carol');
    } finally {
      await client.close();
    }
    const unknown = await fetch(new URL('/oauth/callback?code=x&state=nope', g.listener.url));
    expect(unknown.status).toBe(400);
    await unknown.body?.cancel();
    // A page that rebinds its own name to 127.0.0.1 sends its own Host: refused.
    const port = Number(new URL(g.listener.url).port);
    expect(await statusOf(port, '/oauth/callback?state=nope', 'evil.example')).toBe(403);
    expect(g.stores.carol!.tokens.size).toBe(0);
  });
});
