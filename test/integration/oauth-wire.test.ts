/**
 * OAuthProvider wired end to end: a real authorization server (oidc-provider) protecting an MCP
 * server built with the official SDK, reached through McpClient and the Streamable HTTP
 * transport. Logins are headless (the authorization URL driven with fetch, consent automatic).
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FileTokenStore, OAuthProvider, type TokenStore } from '../../src/auth.js';
import { StreamableHttpTransport } from '../../src/http.js';
import { McpClient } from '../../src/index.js';
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
});
