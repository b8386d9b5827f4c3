/**
 * A real authorization server (`oidc-provider`) on 127.0.0.1 for refresh tests: one public client
 * (`token_endpoint_auth_method: none`, so refresh tokens rotate and a spent one revokes the
 * grant), refresh requests counted, and `issue()` to mint a first refresh token the way a login
 * would have (a grant with `offline_access`), without driving the interactive flow.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import Provider from 'oidc-provider';
import type { OAuthTokens } from '../../src/auth/token-store.js';
import { signingJwk } from './signing-key.js';

export interface OidcRefreshProvider extends AsyncDisposable {
  readonly issuer: string;
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly refreshRequests: number;
  /** A first token set (an expired access token and a fresh refresh token). */
  issue(): Promise<OAuthTokens>;
}

export async function startOidcRefreshProvider(): Promise<OidcRefreshProvider> {
  const sockets = new Set<Socket>();
  let refreshRequests = 0;
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const issuer = `http://127.0.0.1:${address.port}`;
  const clientId = 'mcp-host-test';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: ['http://127.0.0.1/callback'],
      },
    ],
    scopes: ['openid', 'offline_access'],
    cookies: { keys: [randomBytes(32).toString('hex')] },
    jwks: {
      keys: [signingJwk()],
    },
    ttl: { AccessToken: 3600, RefreshToken: 86_400, Grant: 86_400, IdToken: 3600 },
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    features: { devInteractions: { enabled: false } },
  });
  for (const event of ['grant.success', 'grant.error'])
    provider.on(event, (ctx) => {
      if (ctx.oidc?.params?.grant_type === 'refresh_token') refreshRequests++;
    });
  const callback = provider.callback();
  server.on('request', callback);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return {
    issuer,
    tokenUrl: `${issuer}/token`,
    clientId,
    get refreshRequests() {
      return refreshRequests;
    },
    async issue() {
      const client = await provider.Client.find(clientId);
      const grant = new provider.Grant({ accountId: 'user-1', clientId });
      grant.addOIDCScope('openid offline_access');
      const grantId = await grant.save();
      const refresh = new provider.RefreshToken({
        client: client!,
        accountId: 'user-1',
        grantId,
        gty: 'authorization_code',
        scope: 'openid offline_access',
        authTime: Math.floor(Date.now() / 1000),
      });
      const refreshToken = await refresh.save();
      return {
        accessToken: `expired-${grantId}`,
        tokenType: 'Bearer',
        refreshToken,
        expiresAt: Date.now() - 1000,
        scope: 'openid offline_access',
      };
    },
    async [Symbol.asyncDispose]() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
