import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { OAuthFlow, discoverAuthorizationServer, discoverOAuth, type OAuthFetch } from '../auth.js';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { consent, startOAuthFixture, type OAuthFixture } from '../../test/helpers/oauth-fixture.js';
import * as oauth from 'oauth4webapi';

const fetchFn: OAuthFetch = (url, init) => fetch(url, init);

async function flowFor(fixture: OAuthFixture, resource?: string): Promise<OAuthFlow> {
  const discovery = await discoverOAuth(new URL(fixture.mcpUrl), undefined, fetchFn);
  return new OAuthFlow({
    authorizationServer: discovery.authorizationServer,
    clientId: 'client-1',
    clientAuth: oauth.None(),
    redirectUri: 'http://127.0.0.1:9/callback',
    resource: resource ?? discovery.resource,
    scopes: ['a'],
    fetch: fetchFn,
  });
}

describe('OAuthFlow (authorization code with PKCE S256)', () => {
  it('starts with S256, a random state and the resource verbatim, then redeems the code once', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture({ prmResource: (origin) => origin });
    const flow = await flowFor(fixture);
    const start = await flow.start();
    expect(start.url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(start.url.searchParams.get('resource')).toBe(fixture.server.origin);
    expect(start.state.length).toBeGreaterThan(20);
    expect(start.expiresAt).toBeGreaterThan(Date.now());
    const redirect = await consent(start);
    const tokens = await flow.complete(redirect);
    expect(tokens.access_token).toBe('access-1');
    const [token] = fixture.tokenRequests;
    // Sent verbatim: no trailing slash added to an origin-only resource.
    expect(token?.body.get('resource')).toBe(fixture.server.origin);
    expect(token?.body.get('code_verifier')).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    // Replay of the same redirect: refused, no second token request.
    await expect(flow.complete(redirect)).rejects.toMatchObject({ code: 'AUTH_FAILED' });
    expect(fixture.tokenRequests).toHaveLength(1);
  });

  it('refuses a redirect with another state, and redeems nothing', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture();
    const flow = await flowFor(fixture);
    const redirect = new URL(await consent(await flow.start()));
    redirect.searchParams.set('state', 'forged-state');
    await expect(flow.complete(redirect)).rejects.toMatchObject({
      code: 'AUTH_FAILED',
      details: { step: 'authorization-response' },
    });
    expect(fixture.tokenRequests).toHaveLength(0);
  });

  it('refuses a wrong iss (RFC 9207) before the code is redeemed', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture({ iss: 'wrong' });
    const flow = await flowFor(fixture);
    const redirect = await consent(await flow.start());
    await expect(flow.complete(redirect)).rejects.toMatchObject({ code: 'AUTH_FAILED' });
    expect(fixture.tokenRequests).toHaveLength(0);
  });

  it('refuses a missing iss when the server advertises it', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture({ iss: 'omit' });
    const flow = await flowFor(fixture);
    await expect(flow.complete(await consent(await flow.start()))).rejects.toMatchObject({
      code: 'AUTH_FAILED',
    });
    expect(fixture.tokenRequests).toHaveLength(0);
  });

  it('refuses to start when the server does not advertise S256', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture({
      metadata: { code_challenge_methods_supported: ['plain'] },
    });
    await expect(flowFor(fixture)).rejects.toMatchObject({ code: 'AUTH_FAILED' });
  });

  it('keeps the code and verifier out of errors, inspect and JSON', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture({ iss: 'wrong' });
    const flow = await flowFor(fixture);
    const redirect = await consent(await flow.start());
    const error = await flow.complete(redirect).catch((caught: unknown) => caught);
    const shown = `${inspect(error)} ${JSON.stringify(error)} ${inspect(flow)} ${JSON.stringify(flow)}`;
    expect(shown).not.toContain('code-1-canary');
    expect(shown).not.toMatch(/code_verifier/);
  });
});

describe('discovery', () => {
  it('refuses protected resource metadata naming another resource', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture({
      prmResource: () => 'https://evil.example/mcp',
    });
    await expect(discoverOAuth(new URL(fixture.mcpUrl), undefined, fetchFn)).rejects.toMatchObject({
      code: 'AUTH_FAILED',
      details: { step: 'resource-metadata' },
    });
    expect(
      fixture.server.requests.some((r) => r.url.startsWith('/.well-known/oauth-authorization')),
    ).toBe(false);
  });

  it('refuses authorization server metadata whose issuer is another', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture({
      metadata: { issuer: 'https://attacker.example' },
    });
    await expect(discoverAuthorizationServer(fixture.issuer, fetchFn)).rejects.toMatchObject({
      code: 'AUTH_FAILED',
    });
  });

  it('tries the RFC 8414 path-inserted URL first for an issuer with a path', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture();
    const as = await discoverAuthorizationServer(fixture.issuer, fetchFn);
    expect(as?.issuer).toBe(fixture.issuer);
    expect(fixture.server.requests.map((r) => r.url)).toEqual([
      '/.well-known/oauth-authorization-server/as',
    ]);
  });

  it('falls back to /authorize, /token and /register for a server without metadata', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture();
    const discovery = await discoverOAuth(
      new URL(`${fixture.server.origin}/other`),
      undefined,
      fetchFn,
    );
    expect(discovery.source).toBe('fallback');
    expect(discovery.authorizationServer.token_endpoint).toBe(`${fixture.server.origin}/token`);
    expect(discovery.resource).toBe(`${fixture.server.origin}/other`);
  });
});
