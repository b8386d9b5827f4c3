/**
 * OAuthProvider wired end to end: a real authorization server (oidc-provider) protecting an MCP
 * server built with the official SDK, reached through McpClient and the Streamable HTTP
 * transport. Logins are headless (the authorization URL driven with fetch, consent automatic).
 */
import { readFileSync, statSync } from 'node:fs';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FileTokenStore, OAuthProvider, type TokenStore } from '../../src/auth.js';
import { redact } from '../../src/errors/redact.js';
import { StreamableHttpTransport } from '../../src/http.js';
import { McpClient, McpHost, type AuthRequiredEvent, type Logger } from '../../src/index.js';
import { capturingLogger } from '../helpers/fixture-server.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { MemoryTokenStore } from '../helpers/memory-token-store.js';
import { startOidcMcpServer, type OidcMcpServer } from '../helpers/oidc-mcp-server.js';
import { tempDir } from '../helpers/scratch.js';

/** A clock the provider judges token expiry by: real time plus what a test skipped ahead. */
class TestClock {
  skippedMs = 0;
  readonly now = (): number => Date.now() + this.skippedMs;
  /** Moves past the end of every token issued so far (as time passing would, without the wait). */
  pastExpiry(): void {
    this.skippedMs += 2 * 3600_000;
  }
}

/** A client of the protected server, connected: it logs in unless `store` already has tokens. */
async function connect(
  server: OidcMcpServer,
  store: TokenStore,
  clock = new TestClock(),
  logger?: Logger,
): Promise<McpClient> {
  const provider = new OAuthProvider({
    serverUrl: server.mcpUrl,
    store,
    serverName: 'protected',
    onAuthorizationRequired: async ({ url }) => server.login(url),
    now: clock.now,
  });
  const client = new McpClient({
    serverName: 'protected',
    ...(logger === undefined ? {} : { logger }),
    transport: () =>
      new StreamableHttpTransport({
        serverName: 'protected',
        url: server.mcpUrl,
        auth: provider,
        proxy: false,
      }),
  });
  await client.connect().catch(async (error: unknown) => {
    await client[Symbol.asyncDispose]();
    throw error;
  });
  return client;
}

async function whoami(client: McpClient): Promise<string> {
  const result = await client.callTool('whoami', {});
  return (result.content[0] as { text: string }).text;
}

describe('OAuthProvider against oidc-provider and an SDK MCP server', () => {
  it('logs in headlessly through McpClient and calls a tool with the token', async () => {
    await using _guard = leakGuard();
    await using server = await startOidcMcpServer();
    const store = new MemoryTokenStore();
    await using client = await connect(server, store);
    expect(await whoami(client)).toBe('user-1');
    expect(server.grants.authorization_code).toBe(1);
    const [registration] = store.registrations.values();
    expect(registration).toMatchObject({ issuer: server.issuer, source: 'dynamic' });
    const [tokens] = store.tokens.values();
    expect(tokens?.refreshToken).toEqual(expect.any(String));
    // Canaries: the tokens appear in no inspect output of the client.
    expect(inspect(client, { depth: 6 })).not.toContain(tokens!.accessToken);
  });

  it('refreshes an expired access token before the request, once', async () => {
    await using _guard = leakGuard();
    await using server = await startOidcMcpServer();
    const store = new MemoryTokenStore();
    const clock = new TestClock();
    await using client = await connect(server, store, clock);
    expect(await whoami(client)).toBe('user-1');
    const before = [...store.tokens.values()][0]!;
    clock.pastExpiry();
    expect(await whoami(client)).toBe('user-1');
    const after = [...store.tokens.values()][0]!;
    expect(server.grants.refresh_token).toBe(1);
    expect(server.unauthorized).toBe(1);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(server.grants.authorization_code).toBe(1);
  });

  it('sends the token it holds without reading the store while it is fresh', async () => {
    await using _guard = leakGuard();
    await using server = await startOidcMcpServer();
    const store = new MemoryTokenStore();
    const clock = new TestClock();
    await using client = await connect(server, store, clock);
    expect(await whoami(client)).toBe('user-1');
    const reads = (): number => store.calls.filter((call) => call === 'loadTokens').length;
    const before = reads();
    for (let i = 0; i < 20; i++) expect(await whoami(client)).toBe('user-1');
    expect(reads()).toBe(before);
    // Due: the store is read again (and the tokens refreshed, once).
    clock.pastExpiry();
    expect(await whoami(client)).toBe('user-1');
    expect(reads()).toBeGreaterThan(before);
    expect(server.grants.refresh_token).toBe(1);
  });

  it('picks up tokens another process rotated once its own are refused', async () => {
    await using _guard = leakGuard();
    await using server = await startOidcMcpServer();
    using dir = tempDir();
    const path = `${dir.path}/state.json`;
    await using storeA = new FileTokenStore({ path });
    await using a = await connect(server, storeA);
    expect(await whoami(a)).toBe('user-1');
    const key = (await storeA.findTokenKey(server.mcpUrl))!;
    const held = (await storeA.loadTokens(key))!.accessToken;
    // Process B shares the file; its clock says A's tokens are due, so it refreshes them.
    const clockB = new TestClock();
    clockB.pastExpiry();
    await using storeB = new FileTokenStore({ path });
    await using b = await connect(server, storeB, clockB);
    expect(await whoami(b)).toBe('user-1');
    expect(server.grants.refresh_token).toBe(1);
    expect((await storeA.loadTokens(key))!.accessToken).not.toBe(held);
    await server.revokeAccessToken(held);
    const refused = server.unauthorized;
    // A's held token is refused once; A then reads the store and uses B's, with no refresh of
    // its own and no login.
    expect(await whoami(a)).toBe('user-1');
    expect(server.unauthorized).toBe(refused + 1);
    expect(server.grants.refresh_token).toBe(1);
    expect(server.grants.authorization_code).toBe(1);
  });

  it('a revoked refresh token clears the tokens, keeps the registration and logs in again', async () => {
    await using _guard = leakGuard();
    await using server = await startOidcMcpServer();
    const store = new MemoryTokenStore();
    const clock = new TestClock();
    await using client = await connect(server, store, clock);
    const registration = [...store.registrations.values()][0]!;
    const first = [...store.tokens.values()][0]!;
    await server.revokeRefreshToken(first.refreshToken!);
    clock.pastExpiry();
    expect(await whoami(client)).toBe('user-1');
    expect(store.calls).toContain('clearTokens');
    expect(store.calls).not.toContain('clearRegistration');
    expect([...store.registrations.values()][0]).toEqual(registration);
    // One login at first, exactly one more after the revocation (requests refused at once share it).
    expect(server.grants.authorization_code).toBe(2);
    expect([...store.tokens.values()][0]!.refreshToken).not.toBe(first.refreshToken);
  });

  it('a second process reuses the stored tokens on its first request, without a login', async () => {
    await using _guard = leakGuard();
    await using server = await startOidcMcpServer();
    using dir = tempDir();
    const path = `${dir.path}/state.json`;
    {
      await using store = new FileTokenStore({ path });
      await using client = await connect(server, store);
      expect(await whoami(client)).toBe('user-1');
    }
    const grants = { ...server.grants };
    const refused = server.unauthorized;
    await using store = new FileTokenStore({ path });
    await using client = await connect(server, store);
    expect(await whoami(client)).toBe('user-1');
    expect(server.grants).toEqual(grants);
    // The first request of the fresh process already carried the stored token.
    expect(server.unauthorized).toBe(refused);
  });

  it('two processes share DPoP-bound tokens through the store: the key is stored with them', async () => {
    await using _guard = leakGuard();
    await using server = await startOidcMcpServer({ dpop: true });
    using dir = tempDir();
    const path = `${dir.path}/state.json`;
    const logger = capturingLogger();
    await using storeA = new FileTokenStore({ path, logger });
    await using a = await connect(server, storeA, new TestClock(), logger);
    expect(await whoami(a)).toBe('user-1');
    const key = (await storeA.findTokenKey(server.mcpUrl))!;
    const stored = (await storeA.loadTokens(key))!;
    expect(stored.tokenType).toBe('DPoP');
    const secret = stored.dpopKey!.d;
    expect(secret).toMatch(/^[\w-]{40,}$/);
    expect(server.dpopKeys.size).toBe(1);
    const refused = server.unauthorized;

    // Process B: the stored tokens on its first request, with proofs of the stored key.
    const clockB = new TestClock();
    await using storeB = new FileTokenStore({ path, logger });
    await using b = await connect(server, storeB, clockB, logger);
    expect(await whoami(b)).toBe('user-1');
    expect(server.unauthorized).toBe(refused);
    expect(server.grants.authorization_code).toBe(1);
    // Due in B: refreshed with the same key (oidc-provider binds the refresh token to it too).
    clockB.pastExpiry();
    expect(await whoami(b)).toBe('user-1');
    expect(server.grants.refresh_token).toBe(1);
    expect((await storeB.loadTokens(key))!.dpopKey).toEqual(stored.dpopKey);
    // A, refused its old token, takes B's with the same key: still one login, one key.
    await server.revokeAccessToken(stored.accessToken);
    expect(await whoami(a)).toBe('user-1');
    expect(server.grants.authorization_code).toBe(1);
    expect(server.dpopKeys.size).toBe(1);

    // The private key is in the 0600 state file, and nowhere else.
    expect(readFileSync(path, 'utf8')).toContain(secret);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    for (const client of [a, b])
      expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(secret);
    expect(inspect(storeB, { depth: 10, showHidden: true })).not.toContain(secret);
    expect(logger.text()).not.toContain(secret);
    expect(redact(JSON.stringify(stored))).not.toContain(secret);
  });
});

/** A host with the one OAuth server 'protected' (no login callback: the two-step API logs in). */
function protectedHost(server: OidcMcpServer, tokenStore: TokenStore): McpHost {
  return new McpHost({
    tokenStore,
    servers: [{ name: 'protected', transport: { type: 'http', url: server.mcpUrl }, oauth: {} }],
  });
}

/** The text of a tool call's first content block. */
async function call(host: McpHost, tool: string): Promise<string> {
  const result = await host.callTool(`mcp__protected__${tool}`, {});
  expect(result.isError).not.toBe(true);
  return (result.content[0] as { text: string }).text;
}

describe('McpHost two-step login against oidc-provider and an SDK MCP server', () => {
  it('needs_auth with auth_required, then startAuthorization / completeAuthorization -> ready', async () => {
    await using _guard = leakGuard();
    await using server = await startOidcMcpServer();
    const store = new MemoryTokenStore();
    await using host = protectedHost(server, store);
    const events: AuthRequiredEvent[] = [];
    host.onAuthRequired((event) => events.push(event));
    const summary = await host.start();
    expect(summary.failed).toMatchObject([
      { server: 'protected', state: 'needs_auth', error: { code: 'AUTH_REQUIRED' } },
    ]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'auth_required', server: 'protected' });
    expect(events[0]?.scopes).toContain('mcp');
    expect(events[0]?.url).toMatch(new RegExp(`^${server.issuer}/auth\\?`));
    expect(server.grants.authorization_code).toBeUndefined();

    const start = await host.startAuthorization('protected');
    expect(start.url.searchParams.get('state')).toBe(start.state);
    expect(start.url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(start.url.searchParams.get('resource')).toBe(server.mcpUrl);
    const redirect = await server.login(start.url);
    const status = await host.completeAuthorization('protected', redirect);
    expect(status.state).toBe('ready');
    expect(await call(host, 'whoami')).toBe('user-1');
    expect(server.grants.authorization_code).toBe(1);
    const [tokens] = store.tokens.values();
    expect(tokens?.refreshToken).toEqual(expect.any(String));
    expect(inspect(host.status(), { depth: 10 })).not.toContain(tokens!.accessToken);
    expect(JSON.stringify(events)).not.toContain(tokens!.accessToken);
  });

  it('refuses a redirect with a wrong state and a replayed one, before redeeming any code', async () => {
    await using _guard = leakGuard();
    await using server = await startOidcMcpServer();
    await using host = protectedHost(server, new MemoryTokenStore());
    await host.start();

    // A wrong state: refused, nothing redeemed, still needs_auth.
    const forged = new URL(await server.login((await host.startAuthorization('protected')).url));
    forged.searchParams.set('state', 'forged-state');
    await expect(host.completeAuthorization('protected', forged)).rejects.toMatchObject({
      code: 'AUTH_FAILED',
      serverName: 'protected',
    });
    expect(server.grants.authorization_code).toBeUndefined();
    expect(host.serverStatus('protected').state).toBe('needs_auth');

    // A good login, then its redirect replayed: with no login pending, and against a new one.
    const redirect = await server.login((await host.startAuthorization('protected')).url);
    expect((await host.completeAuthorization('protected', redirect)).state).toBe('ready');
    expect(server.grants.authorization_code).toBe(1);
    await expect(host.completeAuthorization('protected', redirect)).rejects.toMatchObject({
      code: 'AUTH_FAILED',
      serverName: 'protected',
    });
    await host.startAuthorization('protected');
    await expect(host.completeAuthorization('protected', redirect)).rejects.toMatchObject({
      code: 'AUTH_FAILED',
      serverName: 'protected',
    });
    expect(server.grants.authorization_code).toBe(1);
    expect(await call(host, 'whoami')).toBe('user-1');
  });

  it('steps up from one scope to two: auth_required with both, then b succeeds; no loop', async () => {
    await using _guard = leakGuard();
    await using server = await startOidcMcpServer({ stepUp: true });
    const store = new MemoryTokenStore();
    await using host = protectedHost(server, store);
    const events: AuthRequiredEvent[] = [];
    host.onAuthRequired((event) => events.push(event));
    await host.start();
    // The first login (the URL of the event) asks for, and gets, mcp:a only, as the 401 said.
    expect(events[0]?.scopes).toContain('mcp:a');
    expect(events[0]?.scopes).not.toContain('mcp:b');
    const first = new URL(events[0]!.url!);
    expect(first.searchParams.get('scope')?.split(' ')).not.toContain('mcp:b');
    await host.completeAuthorization('protected', await server.login(first));
    expect(await call(host, 'whoami')).toBe('user-1');
    expect([...store.tokens.values()][0]?.scope?.split(' ')).not.toContain('mcp:b');

    // b needs mcp:b too: the call fails typed, and auth_required names both scopes and the URL.
    const refused = await host.callTool('mcp__protected__b', {}).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'AUTH_REQUIRED', serverName: 'protected' });
    expect(server.forbidden).toBe(1);
    const stepUp = events.at(-1)!;
    expect(stepUp.scopes).toEqual(expect.arrayContaining(['mcp:a', 'mcp:b']));
    expect(stepUp.url).toEqual(expect.any(String));
    const url = new URL(stepUp.url!);
    expect(url.searchParams.get('scope')?.split(' ')).toEqual(
      expect.arrayContaining(['mcp:a', 'mcp:b']),
    );

    // Completing that login gets a token with both, and b succeeds.
    await host.completeAuthorization('protected', await server.login(url));
    expect([...store.tokens.values()][0]?.scope?.split(' ')).toEqual(
      expect.arrayContaining(['mcp:a', 'mcp:b']),
    );
    expect(await call(host, 'b')).toContain('mcp:b');
    expect(server.forbidden).toBe(1);
    expect(server.grants.authorization_code).toBe(2);
  });

  it('bounds step-up: a server still refusing after maxStepUps logins gets no more login URLs', async () => {
    await using _guard = leakGuard();
    await using server = await startOidcMcpServer({ stepUp: true });
    // The server keeps refusing b, whatever the token holds.
    server.withheld.add('mcp:b');
    await using host = protectedHost(server, new MemoryTokenStore());
    const events: AuthRequiredEvent[] = [];
    host.onAuthRequired((event) => events.push(event));
    await host.start();
    await host.completeAuthorization('protected', await server.login(events[0]!.url!));
    // Two step-up logins (the default bound), each asked for by one refused call.
    for (let attempt = 1; attempt <= 2; attempt++) {
      await expect(host.callTool('mcp__protected__b', {})).rejects.toMatchObject({
        code: 'AUTH_REQUIRED',
        details: { url: expect.any(String) },
      });
      expect(server.forbidden).toBe(attempt);
      await host.completeAuthorization('protected', await server.login(events.at(-1)!.url!));
    }
    // The third refusal: a typed error with no login to open, after one more 403 (no loop).
    const error = await host.callTool('mcp__protected__b', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'AUTH_REQUIRED',
      serverName: 'protected',
      details: { scopes: expect.arrayContaining(['mcp:a', 'mcp:b']) },
    });
    expect((error as { details: Record<string, unknown> }).details.url).toBeUndefined();
    expect((error as Error).message).toContain('after 2 step-up attempts');
    expect(server.forbidden).toBe(3);
    expect(server.grants.authorization_code).toBe(3);
    expect(events.at(-1)?.url).toBeUndefined();
    // The server stays up for what the granted scopes allow.
    expect(await call(host, 'whoami')).toBe('user-1');
    expect(host.serverStatus('protected').state).toBe('ready');
  });
});

/**
 * A host with the one OAuth server 'protected' keeping its tokens in a `FileTokenStore` on
 * `path`, judging expiry by `clock`, each OAuth request under `requestTimeoutMs`.
 */
function fileStoreHost(
  server: OidcMcpServer,
  path: string,
  clock: TestClock,
  requestTimeoutMs?: number,
): { host: McpHost; store: FileTokenStore } {
  const store = new FileTokenStore({ path });
  const host = new McpHost({
    tokenStore: store,
    oauth: { now: clock.now, ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }) },
    servers: [{ name: 'protected', transport: { type: 'http', url: server.mcpUrl }, oauth: {} }],
  });
  return { host, store };
}

/** Logs the host's server in with the two-step API; resolves once it is ready. */
async function loginTwoStep(host: McpHost, server: OidcMcpServer): Promise<void> {
  await host.start();
  const start = await host.startAuthorization('protected');
  const status = await host.completeAuthorization('protected', await server.login(start.url));
  expect(status.state).toBe('ready');
}

describe('McpHost refresh failures against oidc-provider (FileTokenStore)', () => {
  it('a revoked refresh token -> needs_auth with auth_required; tokens cleared, registration kept and reused', async () => {
    await using _guard = leakGuard();
    await using server = await startOidcMcpServer();
    using dir = tempDir();
    const path = `${dir.path}/state.json`;
    const clock = new TestClock();
    const { host, store } = fileStoreHost(server, path, clock);
    await using _host = host;
    await using _store = store;
    await loginTwoStep(host, server);
    expect(await call(host, 'whoami')).toBe('user-1');
    expect(server.registrations).toBe(1);
    const key = (await store.findTokenKey(server.mcpUrl))!;
    const tokens = (await store.loadTokens(key))!;
    const registration = (await store.loadRegistration(server.issuer))!;
    expect(registration).toMatchObject({ source: 'dynamic', clientId: key.clientId });
    expect(readFileSync(path, 'utf8')).toContain(tokens.refreshToken!);

    await server.revokeRefreshToken(tokens.refreshToken!);
    clock.pastExpiry();
    const events: AuthRequiredEvent[] = [];
    host.onAuthRequired((event) => events.push(event));
    const error = await host.callTool('mcp__protected__whoami', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'AUTH_REQUIRED', serverName: 'protected' });
    expect(host.serverStatus('protected').state).toBe('needs_auth');
    // One event, with the URL of the login that the refusal started.
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'auth_required', server: 'protected' });
    expect(events[0]?.url).toMatch(new RegExp(`^${server.issuer}/auth\\?`));
    expect(server.grants.refresh_token).toBeUndefined();

    // The store file: no tokens any more (neither of them), the registration as it was.
    const file = readFileSync(path, 'utf8');
    expect(file).not.toContain(tokens.refreshToken!);
    expect(file).not.toContain(tokens.accessToken);
    await using reader = new FileTokenStore({ path });
    expect(await reader.loadTokens(key)).toBeUndefined();
    expect(await reader.loadRegistration(server.issuer)).toEqual(registration);

    // The next login uses that client: no second registration at oidc-provider.
    const start = await host.startAuthorization('protected');
    expect(start.url.searchParams.get('client_id')).toBe(registration.clientId);
    const status = await host.completeAuthorization('protected', await server.login(start.url));
    expect(status.state).toBe('ready');
    expect(await call(host, 'whoami')).toBe('user-1');
    expect(server.registrations).toBe(1);
    expect(server.grants.authorization_code).toBe(2);
  });

  it('a refresh that times out -> a typed refresh error, not needs_auth; tokens kept; refreshes once released', async () => {
    await using _guard = leakGuard();
    await using server = await startOidcMcpServer();
    using dir = tempDir();
    const path = `${dir.path}/state.json`;
    const clock = new TestClock();
    const { host, store } = fileStoreHost(server, path, clock, 2_000);
    await using _host = host;
    await using _store = store;
    await loginTwoStep(host, server);
    expect(await call(host, 'whoami')).toBe('user-1');
    const key = (await store.findTokenKey(server.mcpUrl))!;
    const tokens = (await store.loadTokens(key))!;
    const events: AuthRequiredEvent[] = [];
    host.onAuthRequired((event) => events.push(event));

    server.hangTokenEndpoint = true;
    clock.pastExpiry();
    const error = await host.callTool('mcp__protected__whoami', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'AUTH_REFRESH_FAILED',
      serverName: 'protected',
      details: { reason: 'timeout' },
    });
    expect(server.hungTokenRequests).toBeGreaterThanOrEqual(1);
    expect(host.serverStatus('protected').state).not.toBe('needs_auth');
    expect(events).toEqual([]);
    expect(server.grants.refresh_token).toBeUndefined();
    // The tokens are still in the store file, unchanged.
    await using reader = new FileTokenStore({ path });
    expect(await reader.loadTokens(key)).toEqual(tokens);
    expect(readFileSync(path, 'utf8')).toContain(tokens.refreshToken!);

    // Released: the next call refreshes (once) with the kept refresh token and succeeds.
    server.hangTokenEndpoint = false;
    expect(await call(host, 'whoami')).toBe('user-1');
    expect(server.grants.refresh_token).toBe(1);
    expect(server.grants.authorization_code).toBe(1);
    expect((await reader.loadTokens(key))!.accessToken).not.toBe(tokens.accessToken);
    expect(events).toEqual([]);
  });
});
