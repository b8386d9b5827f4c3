/**
 * The device authorization grant (RFC 8628) against a real authorization server (`oidc-provider`
 * with its `deviceFlow` feature) on 127.0.0.1: OAuthProvider shows the user code, the test
 * approves it the way the server's device pages would (the device code's account and grant, set
 * through the provider's model API), and the poll ends with tokens; with DPoP enabled at the
 * server too, the tokens come back DPoP-bound. A denial ends the poll with a typed error.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { inspect } from 'node:util';
import Provider from 'oidc-provider';
import { describe, expect, it } from 'vitest';
import { OAuthProvider } from '../../src/auth.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { approveDeviceCode, denyDeviceCode } from '../helpers/oidc-interactions.js';
import { MemoryTokenStore } from '../helpers/memory-token-store.js';
import { startHttpServer, sendJson, type TestHttpServer } from '../helpers/http-test-server.js';
import { signingJwk } from '../helpers/signing-key.js';

const CLIENT_ID = 'tv-client';

interface World extends AsyncDisposable {
  issuer: string;
  mcp: TestHttpServer;
  mcpUrl: string;
  approve(userCode: string): Promise<void>;
  deny(userCode: string): Promise<void>;
}

async function startWorld(dpop: boolean): Promise<World> {
  const sockets = new Set<Socket>();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const issuer = `http://127.0.0.1:${address.port}`;
  const mcp = await startHttpServer();
  const mcpUrl = `${mcp.origin}/mcp`;
  mcp.handle((request, res) => {
    if (request.url === '/.well-known/oauth-protected-resource/mcp') {
      sendJson(res, {
        resource: mcpUrl,
        authorization_servers: [issuer],
        scopes_supported: ['mcp:read'],
      });
    } else {
      res.writeHead(404).end();
    }
  });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'],
        response_types: ['code'],
        redirect_uris: ['http://127.0.0.1/callback'],
        id_token_signed_response_alg: 'ES256',
      },
    ],
    scopes: ['openid'],
    cookies: { keys: [randomBytes(32).toString('hex')] },
    jwks: {
      keys: [signingJwk('ec')],
    },
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    features: {
      devInteractions: { enabled: false },
      deviceFlow: { enabled: true },
      ...(dpop ? { dPoP: { enabled: true } } : {}),
      resourceIndicators: {
        enabled: true,
        defaultResource: () => mcpUrl,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (resource !== mcpUrl) throw new Error(`unknown resource ${resource}`);
          return { scope: 'mcp:read', accessTokenFormat: 'opaque' };
        },
      },
    },
  });
  server.on('request', provider.callback());
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return {
    issuer,
    mcp,
    mcpUrl,
    approve: (userCode) =>
      approveDeviceCode(provider, userCode, {
        clientId: CLIENT_ID,
        resource: mcpUrl,
        resourceScope: 'mcp:read',
      }),
    deny: (userCode) => denyDeviceCode(provider, userCode),
    async [Symbol.asyncDispose]() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await mcp[Symbol.asyncDispose]();
    },
  };
}

function oauthFor(world: World): OAuthProvider {
  return new OAuthProvider({
    serverUrl: world.mcpUrl,
    serverName: 'tv',
    store: new MemoryTokenStore(),
    client: { clientId: CLIENT_ID },
    // The user decides before the wait starts: no need to sit out oidc-provider's 5 s interval.
    sleep: () => Promise.resolve(),
  });
}

describe('the device grant against oidc-provider', () => {
  for (const dpop of [false, true]) {
    it(`logs in once the user approves the code${dpop ? ' (DPoP-bound tokens)' : ''}`, async () => {
      await using _guard = leakGuard();
      await using world = await startWorld(dpop);
      const oauth = oauthFor(world);
      const shown = await oauth.startDeviceAuthorization();
      expect(shown.verificationUri).toBe(`${world.issuer}/device`);
      expect(shown.verificationUriComplete).toBe(
        `${world.issuer}/device?user_code=${encodeURIComponent(shown.userCode)}`,
      );
      expect(shown.expiresAt).toBeGreaterThan(Date.now());
      await world.approve(shown.userCode);
      await oauth.waitForDeviceAuthorization();
      const headers = await oauth.headers({ url: new URL(world.mcpUrl), method: 'POST' });
      const [scheme, token] = (headers.authorization ?? '').split(' ');
      expect(scheme).toBe(dpop ? 'DPoP' : 'Bearer');
      expect(token).toMatch(/\S{20,}/);
      expect(headers.dpop !== undefined).toBe(dpop);
      expect(oauth.grantedScopes).toEqual(['mcp:read']);
      expect(inspect(oauth, { depth: 10, showHidden: true })).not.toContain(token);
    }, 60_000);
  }

  it('ends with a typed access_denied when the user refuses', async () => {
    await using _guard = leakGuard();
    await using world = await startWorld(false);
    const oauth = oauthFor(world);
    const shown = await oauth.startDeviceAuthorization();
    await world.deny(shown.userCode);
    await expect(oauth.waitForDeviceAuthorization()).rejects.toMatchObject({
      code: 'AUTH_FAILED',
      serverName: 'tv',
      details: { step: 'device-poll', error: 'access_denied' },
    });
    expect(await oauth.headers()).toEqual({});
  }, 60_000);
});
