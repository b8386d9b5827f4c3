import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  exchangeToken,
  idJagAssertion,
  JWT_BEARER_GRANT_TYPE,
  OAuthProvider,
  TOKEN_EXCHANGE_GRANT_TYPE,
  TOKEN_TYPES,
  type AssertionRequest,
} from '../auth.js';
import type { AuthChallenge } from '../http.js';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { MemoryTokenStore } from '../../test/helpers/memory-token-store.js';
import { startOAuthFixture, type OAuthFixture } from '../../test/helpers/oauth-fixture.js';

const WORKLOAD_JWT = 'workload.jwt.canary-8812';
const ID_TOKEN = 'id.token.canary-3141';
const ID_JAG = 'id.jag.canary-2718';

function challenge(fixture: OAuthFixture): AuthChallenge {
  return {
    status: 401,
    wwwAuthenticate: `Bearer resource_metadata="${fixture.server.origin}/.well-known/oauth-protected-resource/mcp"`,
    url: new URL(fixture.mcpUrl),
    signal: new AbortController().signal,
  };
}

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

describe('the JWT-bearer grant (RFC 7523) through OAuthProvider', () => {
  it('sends the assertion with the resource and scopes; a public client names itself in the body', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture({ prmScopes: ['mcp:read'] });
    const asked: AssertionRequest[] = [];
    const provider = new OAuthProvider({
      serverUrl: fixture.mcpUrl,
      store: new MemoryTokenStore(),
      grant: 'jwt_bearer',
      client: { clientId: 'workload-client' },
      assertion: (request) => {
        asked.push(request);
        return WORKLOAD_JWT;
      },
    });
    expect(await provider.onUnauthorized(challenge(fixture))).toBe(true);
    expect(asked).toEqual([
      {
        issuer: fixture.issuer,
        resource: fixture.mcpUrl,
        scopes: ['mcp:read'],
        signal: expect.any(AbortSignal),
      },
    ]);
    const [request] = fixture.tokenRequests;
    expect(Object.fromEntries(request!.body)).toEqual({
      grant_type: JWT_BEARER_GRANT_TYPE,
      assertion: WORKLOAD_JWT,
      resource: fixture.mcpUrl,
      scope: 'mcp:read',
      client_id: 'workload-client',
    });
    expect(request!.authorization).toBeUndefined();
    expect(await provider.headers()).toEqual({ authorization: 'Bearer access-1' });
  });

  it('authenticates a confidential client with client_secret_basic', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture();
    const provider = new OAuthProvider({
      serverUrl: fixture.mcpUrl,
      store: new MemoryTokenStore(),
      grant: 'jwt_bearer',
      client: { clientId: 'xaa-client', clientSecret: 'xaa-secret-canary' },
      assertion: () => WORKLOAD_JWT,
    });
    await provider.onUnauthorized(challenge(fixture));
    expect(fixture.tokenRequests[0]?.authorization).toBe(basic('xaa-client', 'xaa-secret-canary'));
    expect(fixture.tokenRequests[0]?.body.get('client_secret')).toBeNull();
  });

  it('surfaces a refused assertion as a typed error, once: no retry, no other grant', async () => {
    await using _guard = leakGuard();
    for (const refusal of ['invalid_grant', 'invalid_scope', 'unauthorized_client']) {
      await using fixture = await startOAuthFixture({
        token: () => ({ status: 400, json: { error: refusal, error_description: WORKLOAD_JWT } }),
      });
      const provider = new OAuthProvider({
        serverUrl: fixture.mcpUrl,
        serverName: 'workload',
        store: new MemoryTokenStore(),
        grant: 'jwt_bearer',
        client: { clientId: 'workload-client' },
        assertion: () => WORKLOAD_JWT,
      });
      const error = await provider.onUnauthorized(challenge(fixture)).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'AUTH_FAILED',
        serverName: 'workload',
        details: { step: 'token-request', error: refusal },
      });
      expect(fixture.tokenRequests).toHaveLength(1);
      expect(fixture.authorizeRequests).toHaveLength(0);
      expect(JSON.stringify(error)).not.toContain(WORKLOAD_JWT);
      expect(inspect(error, { depth: 10 })).not.toContain(WORKLOAD_JWT);
    }
  });

  it('types a failing assertion source, and needs one at all', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture();
    const provider = new OAuthProvider({
      serverUrl: fixture.mcpUrl,
      store: new MemoryTokenStore(),
      grant: 'jwt_bearer',
      client: { clientId: 'workload-client' },
      assertion: () => Promise.reject(new Error('metadata service down')),
    });
    const error = await provider.onUnauthorized(challenge(fixture)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'AUTH_FAILED', details: { step: 'assertion' } });
    expect(fixture.tokenRequests).toHaveLength(0);
    expect(
      () =>
        new OAuthProvider({
          serverUrl: fixture.mcpUrl,
          store: new MemoryTokenStore(),
          grant: 'jwt_bearer',
        }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

/** The fixture's server also plays an enterprise IdP's token endpoint at /idp/token. */
function withIdp(
  fixture: OAuthFixture,
  answer: (body: URLSearchParams) => { status?: number; json: unknown } = () => ({
    json: {
      access_token: ID_JAG,
      issued_token_type: TOKEN_TYPES.idJag,
      token_type: 'N_A',
      expires_in: 300,
    },
  }),
): { requests: { body: URLSearchParams; authorization: string | undefined }[]; url: string } {
  const requests: { body: URLSearchParams; authorization: string | undefined }[] = [];
  fixture.options.route = (url, request, res) => {
    if (url.pathname !== '/idp/token') return false;
    const form = new URLSearchParams(request.body);
    requests.push({ body: form, authorization: request.headers.authorization });
    const { status, json } = answer(form);
    res.writeHead(status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    return true;
  };
  return { requests, url: `${fixture.server.origin}/idp/token` };
}

/** A jwt_bearer provider whose assertion is an ID-JAG from the IdP of withIdp(). */
function xaaProvider(fixture: OAuthFixture, idp: { url: string }): OAuthProvider {
  return new OAuthProvider({
    serverUrl: fixture.mcpUrl,
    store: new MemoryTokenStore(),
    grant: 'jwt_bearer',
    client: { clientId: 'xaa-client', clientSecret: 'xaa-secret' },
    assertion: idJagAssertion({
      tokenEndpoint: idp.url,
      clientId: 'idp-client',
      idToken: ID_TOKEN,
    }),
  });
}

describe('token exchange (RFC 8693) and enterprise-managed authorization', () => {
  it('exchangeToken sends the RFC 8693 parameters and accepts an N_A token', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture();
    const idp = withIdp(fixture);
    const exchanged = await exchangeToken({
      tokenEndpoint: idp.url,
      clientId: 'idp-client',
      clientSecret: 'idp-secret-canary',
      subjectToken: ID_TOKEN,
      subjectTokenType: TOKEN_TYPES.idToken,
      requestedTokenType: TOKEN_TYPES.idJag,
      audience: 'https://as.example',
      resource: 'https://mcp.example/mcp',
      scopes: ['a', 'b'],
    });
    expect(exchanged).toEqual({
      token: ID_JAG,
      issuedTokenType: TOKEN_TYPES.idJag,
      tokenType: 'n_a',
      expiresIn: 300,
    });
    expect(Object.fromEntries(idp.requests[0]!.body)).toEqual({
      grant_type: TOKEN_EXCHANGE_GRANT_TYPE,
      subject_token: ID_TOKEN,
      subject_token_type: TOKEN_TYPES.idToken,
      requested_token_type: TOKEN_TYPES.idJag,
      audience: 'https://as.example',
      resource: 'https://mcp.example/mcp',
      scope: 'a b',
    });
    expect(idp.requests[0]!.authorization).toBe(basic('idp-client', 'idp-secret-canary'));
  });

  it('exchangeToken types a refusal and shows no token', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture();
    const idp = withIdp(fixture, () => ({ status: 400, json: { error: 'invalid_grant' } }));
    const error = await exchangeToken({
      tokenEndpoint: idp.url,
      clientId: 'idp-client',
      subjectToken: ID_TOKEN,
      subjectTokenType: TOKEN_TYPES.idToken,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'AUTH_FAILED',
      details: { step: 'token-exchange', error: 'invalid_grant' },
    });
    expect(idp.requests[0]!.body.get('client_id')).toBe('idp-client');
    expect(JSON.stringify(error)).not.toContain(ID_TOKEN);
  });

  it('idJagAssertion: the ID token becomes an ID-JAG for this authorization server and resource, then tokens', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture();
    const idp = withIdp(fixture);
    const provider = xaaProvider(fixture, idp);
    await provider.onUnauthorized(challenge(fixture));
    expect(idp.requests[0]!.body.get('audience')).toBe(fixture.issuer);
    expect(idp.requests[0]!.body.get('resource')).toBe(fixture.mcpUrl);
    expect(fixture.tokenRequests[0]!.body.get('assertion')).toBe(ID_JAG);
    expect(fixture.tokenRequests[0]!.body.get('grant_type')).toBe(JWT_BEARER_GRANT_TYPE);
    expect(await provider.headers()).toEqual({ authorization: 'Bearer access-1' });
  });

  it('idJagAssertion refuses a token that is not an ID-JAG', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture();
    const idp = withIdp(fixture, () => ({
      json: { access_token: 'x', issued_token_type: TOKEN_TYPES.accessToken, token_type: 'Bearer' },
    }));
    const provider = xaaProvider(fixture, idp);
    const error = await provider.onUnauthorized(challenge(fixture)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'AUTH_FAILED', details: { step: 'token-exchange' } });
    expect(fixture.tokenRequests).toHaveLength(0);
  });
});
