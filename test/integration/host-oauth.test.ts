import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { McpHost, type AuthRequiredEvent, type ServerOAuthOptions } from '../../src/index.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { MemoryTokenStore } from '../helpers/memory-token-store.js';
import { consent } from '../helpers/oauth-fixture.js';
import {
  startProtectedMcpServer,
  type ProtectedMcpServer,
} from '../helpers/protected-mcp-server.js';

/** A host with the one OAuth server 'tracker' of the protected world. */
function trackerHost(
  world: ProtectedMcpServer,
  tokenStore = new MemoryTokenStore(),
  oauth: ServerOAuthOptions = {},
): McpHost {
  return new McpHost({
    tokenStore,
    servers: [{ name: 'tracker', transport: { type: 'http', url: world.mcp.url }, oauth }],
  });
}

describe('McpHost with OAuth servers', () => {
  it('goes to needs_auth with an auth_required event, then logs in with the two-step API', async () => {
    await using _guard = leakGuard();
    await using world = await startProtectedMcpServer();
    const tokenStore = new MemoryTokenStore();
    await using host = trackerHost(world, tokenStore);
    const events: AuthRequiredEvent[] = [];
    host.onAuthRequired((event) => events.push(event));
    const summary = await host.start();
    expect(summary.failed).toMatchObject([
      { server: 'tracker', state: 'needs_auth', error: { code: 'AUTH_REQUIRED' } },
    ]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'auth_required', server: 'tracker', scopes: ['read'] });
    expect(events[0]?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/as\/authorize\?/);

    const start = await host.startAuthorization('tracker');
    expect(start.url.searchParams.get('state')).toBe(start.state);
    expect(start.expiresAt).toBeGreaterThan(Date.now());
    const redirect = await consent(start);
    const status = await host.completeAuthorization('tracker', redirect);
    expect(status.state).toBe('ready');
    expect(host.tools().map((tool) => tool.name)).toEqual(['mcp__tracker__work']);
    const result = await host.callTool('mcp__tracker__work', {});
    expect(result.isError).not.toBe(true);
    expect(tokenStore.tokens.size).toBe(1);
    // The token went only in the Authorization header, and shows nowhere.
    const token = [...world.accepted][0]!;
    expect(inspect(host.status(), { depth: 10 })).not.toContain(token);
    expect(JSON.stringify(events)).not.toContain(token);
  });

  it('refuses a redirect with another state, and the server stays needs_auth', async () => {
    await using _guard = leakGuard();
    await using world = await startProtectedMcpServer();
    await using host = trackerHost(world);
    await host.start();
    const start = await host.startAuthorization('tracker');
    const redirect = new URL(await consent(start));
    redirect.searchParams.set('state', 'forged');
    await expect(host.completeAuthorization('tracker', redirect)).rejects.toMatchObject({
      code: 'AUTH_FAILED',
      serverName: 'tracker',
    });
    expect(world.oauth.tokenRequests).toHaveLength(0);
    expect(host.serverStatus('tracker').state).toBe('needs_auth');
  });

  it('a server without oauth keeps a 401 final: needs_auth, no discovery, no event', async () => {
    await using _guard = leakGuard();
    await using world = await startProtectedMcpServer();
    await using host = new McpHost({
      servers: [{ name: 'plain', transport: { type: 'http', url: world.mcp.url } }],
    });
    const events: AuthRequiredEvent[] = [];
    host.onAuthRequired((event) => events.push(event));
    await host.start();
    expect(host.serverStatus('plain').state).toBe('needs_auth');
    expect(world.oauth.server.requests).toHaveLength(0);
    expect(events).toHaveLength(0);
    await expect(host.startAuthorization('plain')).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('a revoked token that cannot be refreshed brings the server back to needs_auth', async () => {
    await using _guard = leakGuard();
    await using world = await startProtectedMcpServer();
    const tokenStore = new MemoryTokenStore();
    await using host = trackerHost(world, tokenStore);
    await host.start();
    await host.completeAuthorization(
      'tracker',
      await consent(await host.startAuthorization('tracker')),
    );
    expect(host.serverStatus('tracker').state).toBe('ready');
    world.accepted.clear();
    const events: AuthRequiredEvent[] = [];
    const seen = new Promise<void>((resolve) =>
      host.onAuthRequired((event) => {
        events.push(event);
        resolve();
      }),
    );
    await host.restartServer('tracker');
    await seen;
    expect(host.serverStatus('tracker').state).toBe('needs_auth');
    expect(events[0]).toMatchObject({ server: 'tracker' });
    expect(events[0]?.url).toContain('/as/authorize');
  });

  describe('oauth.authorizationServer', () => {
    /** Logs 'tracker' in with the two-step API; resolves with its status. */
    async function login(host: McpHost) {
      await host.start();
      return host.completeAuthorization(
        'tracker',
        await consent(await host.startAuthorization('tracker')),
      );
    }

    it('picks the configured issuer among several the resource metadata lists', async () => {
      await using _guard = leakGuard();
      // The first one listed is a dead end: without the setting, discovery would go there.
      await using world = await startProtectedMcpServer({
        prmAuthorizationServers: (issuer) => [`${new URL(issuer).origin}/other-as`, issuer],
      });
      const unset = trackerHost(world);
      await unset.start();
      await expect(unset.startAuthorization('tracker')).rejects.toMatchObject({
        code: 'AUTH_FAILED',
        serverName: 'tracker',
      });
      await unset.close();
      await using host = trackerHost(world, new MemoryTokenStore(), {
        authorizationServer: `${world.oauth.issuer}/`,
      });
      expect((await login(host)).state).toBe('ready');
      expect(world.oauth.tokenRequests).toHaveLength(1);
    });

    it('uses the configured issuer when the resource metadata lists none', async () => {
      await using _guard = leakGuard();
      await using world = await startProtectedMcpServer({ prmAuthorizationServers: () => [] });
      await using host = trackerHost(world, new MemoryTokenStore(), {
        authorizationServer: world.oauth.issuer,
      });
      expect((await login(host)).state).toBe('ready');
    });

    it('refuses a server whose resource metadata does not list it, naming server and key', async () => {
      await using _guard = leakGuard();
      await using world = await startProtectedMcpServer();
      await using host = trackerHost(world, new MemoryTokenStore(), {
        authorizationServer: 'https://as.example/elsewhere',
      });
      const events: AuthRequiredEvent[] = [];
      host.onAuthRequired((event) => events.push(event));
      await host.start();
      expect(host.serverStatus('tracker').state).not.toBe('ready');
      const error = await host.startAuthorization('tracker').catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'AUTH_FAILED',
        serverName: 'tracker',
        details: {
          step: 'resource-metadata',
          key: 'oauth.authorizationServer',
          authorizationServer: 'https://as.example/elsewhere',
          listed: [world.oauth.issuer],
        },
      });
      expect((error as Error).message).toContain('oauth.authorizationServer');
      // Nothing was asked of the authorization server it does list.
      expect(world.oauth.server.requests).toHaveLength(0);
    });
  });
});
