/**
 * A tiny OAuth token endpoint on 127.0.0.1 for refresh tests: it rotates refresh tokens (each one
 * works once; a spent or revoked one gets `invalid_grant`), counts refresh requests, and can be
 * told to answer the next requests with a fault (503, 429, `invalid_client`, or no answer at all).
 * `oauthRefresh(endpoint)` is a refresh function made with oauth4webapi, as the OAuth core makes
 * it, so the coordinator meets the library's real errors.
 */
import type { ServerResponse } from 'node:http';
import * as oauth from 'oauth4webapi';
import type { OAuthTokens } from '../../src/auth/token-store.js';
import type { RefreshTokensFunction } from '../../src/auth/refresh-coordinator.js';
import { startHttpServer, type TestHttpServer } from './http-test-server.js';

export type TokenFault = '503' | '429' | 'invalid_client' | 'hang';

export interface TokenEndpoint extends AsyncDisposable {
  readonly issuer: string;
  readonly tokenUrl: string;
  readonly server: TestHttpServer;
  /** Refresh requests received (any answer). */
  readonly refreshRequests: number;
  /** Issues a first pair (as a login would): the refresh token is valid once. */
  issue(expiresInS?: number): OAuthTokens;
  /** Makes a refresh token invalid (`invalid_grant` from now on). */
  revoke(refreshToken: string): void;
  /** Answers the next refresh requests with these faults, in order. */
  fail(...faults: TokenFault[]): void;
}

export async function startTokenEndpoint(prefix = 'canary'): Promise<TokenEndpoint> {
  const valid = new Set<string>();
  const faults: TokenFault[] = [];
  const hanging: ServerResponse[] = [];
  let counter = 0;
  let refreshRequests = 0;
  const mint = (expiresInS: number) => {
    counter++;
    const refreshToken = `${prefix}-refresh-${counter}-${Math.random().toString(36).slice(2)}`;
    valid.add(refreshToken);
    return {
      access_token: `${prefix}-access-${counter}-${Math.random().toString(36).slice(2)}`,
      token_type: 'Bearer',
      expires_in: expiresInS,
      refresh_token: refreshToken,
      scope: 'read',
    };
  };
  const server = await startHttpServer((request, res) => {
    const form = new URLSearchParams(request.body);
    if (request.url !== '/token' || form.get('grant_type') !== 'refresh_token') {
      res.writeHead(404).end();
      return;
    }
    refreshRequests++;
    const fault = faults.shift();
    const json = (status: number, body: unknown, headers: Record<string, string> = {}): void =>
      void res
        .writeHead(status, {
          'content-type': 'application/json',
          'cache-control': 'no-store',
          ...headers,
        })
        .end(JSON.stringify(body));
    switch (fault) {
      case 'hang':
        hanging.push(res);
        return;
      case '503':
        res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
        return;
      case '429':
        json(429, { error: 'slow_down' }, { 'retry-after': '0' });
        return;
      case 'invalid_client':
        json(401, { error: 'invalid_client', error_description: 'unknown client' });
        return;
      case undefined:
        break;
    }
    const presented = form.get('refresh_token') ?? '';
    if (!valid.delete(presented)) {
      json(400, { error: 'invalid_grant', error_description: 'refresh token revoked or spent' });
      return;
    }
    json(200, mint(3600));
  });
  return {
    issuer: server.origin,
    tokenUrl: `${server.origin}/token`,
    server,
    get refreshRequests() {
      return refreshRequests;
    },
    issue(expiresInS = 3600) {
      const body = mint(expiresInS);
      return {
        accessToken: body.access_token,
        tokenType: body.token_type,
        refreshToken: body.refresh_token,
        expiresAt: Date.now() + expiresInS * 1000,
        scope: body.scope,
      };
    },
    revoke: (refreshToken) => void valid.delete(refreshToken),
    fail: (...more) => void faults.push(...more),
    async [Symbol.asyncDispose]() {
      for (const res of hanging) res.destroy();
      await server[Symbol.asyncDispose]();
    },
  };
}

/** A refresh function on oauth4webapi against `tokenUrl` (a public client, `client-1` by default). */
export function oauthRefresh(
  issuer: string,
  tokenUrl: string,
  clientId = 'client-1',
): RefreshTokensFunction {
  const as: oauth.AuthorizationServer = { issuer, token_endpoint: tokenUrl };
  const client: oauth.Client = { client_id: clientId };
  return async (tokens, { signal }) => {
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      tokens.refreshToken,
      {
        signal,
        [oauth.allowInsecureRequests]: true,
      },
    );
    const body = await oauth.processRefreshTokenResponse(as, client, response);
    return {
      accessToken: body.access_token,
      tokenType: body.token_type,
      ...(body.refresh_token === undefined ? {} : { refreshToken: body.refresh_token }),
      ...(body.expires_in === undefined ? {} : { expiresAt: Date.now() + body.expires_in * 1000 }),
      ...(body.scope === undefined ? {} : { scope: body.scope }),
    };
  };
}
