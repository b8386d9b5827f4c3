import { generateKeyPairSync } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { OAuthProvider } from '../auth.js';
import type { AuthChallenge } from '../http.js';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { MemoryTokenStore } from '../../test/helpers/memory-token-store.js';
import { consent, startOAuthFixture, type OAuthFixture } from '../../test/helpers/oauth-fixture.js';

function challenge(fixture: OAuthFixture, status: 401 | 403, header: string): AuthChallenge {
  return {
    status,
    wwwAuthenticate: header,
    url: new URL(fixture.mcpUrl),
    signal: new AbortController().signal,
  };
}

const prm = (fixture: OAuthFixture): string =>
  `resource_metadata="${fixture.server.origin}/.well-known/oauth-protected-resource/mcp"`;

describe('OAuthProvider', () => {
  it('logs in through onAuthorizationRequired after a 401 and sends the token', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture();
    const store = new MemoryTokenStore();
    const provider = new OAuthProvider({
      serverUrl: fixture.mcpUrl,
      store,
      onAuthorizationRequired: consent,
    });
    expect(await provider.headers()).toEqual({});
    const retry = await provider.onUnauthorized(
      challenge(fixture, 401, `Bearer scope="read", ${prm(fixture)}`),
    );
    expect(retry).toBe(true);
    expect(await provider.headers()).toEqual({ authorization: 'Bearer access-1' });
    // Dynamic registration (no client configured), kept under the issuer.
    expect(store.registrations.get(fixture.issuer)).toMatchObject({
      clientId: 'dynamic-client',
      source: 'dynamic',
    });
    expect(fixture.authorizeRequests[0]?.get('scope')).toBe('read');
    expect(store.tokens.size).toBe(1);
  });

  it('steps up to the union of held and required scopes, then stops at the limit', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture();
    const provider = new OAuthProvider({
      serverUrl: fixture.mcpUrl,
      store: new MemoryTokenStore(),
      onAuthorizationRequired: consent,
      maxStepUps: 1,
    });
    await provider.onUnauthorized(challenge(fixture, 401, `Bearer scope="read", ${prm(fixture)}`));
    const stepUp = `Bearer error="insufficient_scope", scope="write", ${prm(fixture)}`;
    expect(await provider.onUnauthorized(challenge(fixture, 403, stepUp))).toBe(true);
    expect(fixture.authorizeRequests[1]?.get('scope')).toBe('read write');
    expect(await provider.headers()).toEqual({ authorization: 'Bearer access-2' });
    await expect(provider.onUnauthorized(challenge(fixture, 403, stepUp))).rejects.toMatchObject({
      code: 'AUTH_REQUIRED',
      details: { scopes: ['read', 'write'] },
    });
    expect(fixture.authorizeRequests).toHaveLength(2);
  });

  it('ignores a 403 that is not insufficient_scope', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture();
    const provider = new OAuthProvider({
      serverUrl: fixture.mcpUrl,
      store: new MemoryTokenStore(),
    });
    expect(
      await provider.onUnauthorized(challenge(fixture, 403, 'Bearer error="invalid_token"')),
    ).toBe(false);
    expect(fixture.server.requests).toHaveLength(0);
  });

  it('without a callback, fails with AUTH_REQUIRED carrying the URL; the two-step API finishes it', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture();
    const provider = new OAuthProvider({
      serverUrl: fixture.mcpUrl,
      store: new MemoryTokenStore(),
    });
    const error = (await provider
      .onUnauthorized(challenge(fixture, 401, `Bearer ${prm(fixture)}`))
      .catch((caught: unknown) => caught)) as { code: string; details: { url: string } };
    expect(error.code).toBe('AUTH_REQUIRED');
    const url = new URL(error.details.url);
    await provider.completeAuthorization(await consent({ url }));
    expect(await provider.headers()).toEqual({ authorization: 'Bearer access-1' });
    const start = await provider.startAuthorization();
    await provider.completeAuthorization(await consent(start));
    expect(await provider.headers()).toEqual({ authorization: 'Bearer access-2' });
  });

  it.each([
    ['client_secret_basic', ['client_secret_basic']],
    ['client_secret_post', ['client_secret_post']],
  ] as const)('client_credentials with %s', async (method, supported) => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture({
      metadata: { token_endpoint_auth_methods_supported: supported },
    });
    const provider = new OAuthProvider({
      serverUrl: fixture.mcpUrl,
      store: new MemoryTokenStore(),
      grant: 'client_credentials',
      client: { clientId: 'svc', clientSecret: 'canary-client-secret' },
    });
    expect(await provider.onUnauthorized(challenge(fixture, 401, `Bearer ${prm(fixture)}`))).toBe(
      true,
    );
    const [request] = fixture.tokenRequests;
    expect(request?.body.get('grant_type')).toBe('client_credentials');
    expect(request?.body.get('resource')).toBe(fixture.mcpUrl);
    if (method === 'client_secret_basic') {
      expect(request?.authorization).toBe(
        `Basic ${Buffer.from('svc:canary-client-secret').toString('base64')}`,
      );
    } else {
      expect(request?.body.get('client_secret')).toBe('canary-client-secret');
    }
  });

  it('client_credentials with private_key_jwt (a PEM given by reference)', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture({
      metadata: { token_endpoint_auth_methods_supported: ['private_key_jwt'] },
    });
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const provider = new OAuthProvider({
      serverUrl: fixture.mcpUrl,
      store: new MemoryTokenStore(),
      grant: 'client_credentials',
      client: { clientId: 'svc', privateKey: { pem } },
    });
    await provider.onUnauthorized(challenge(fixture, 401, `Bearer ${prm(fixture)}`));
    const body = fixture.tokenRequests[0]?.body;
    expect(body?.get('client_assertion_type')).toBe(
      'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    );
    const [, payload] = (body?.get('client_assertion') ?? '').split('.');
    expect(JSON.parse(Buffer.from(payload ?? '', 'base64url').toString())).toMatchObject({
      iss: 'svc',
      sub: 'svc',
      aud: fixture.issuer,
    });
  });

  it('keeps tokens and secrets out of errors, inspect and JSON', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture({
      accessToken: () => 'canary-access-token-1234',
    });
    const provider = new OAuthProvider({
      serverUrl: fixture.mcpUrl,
      store: new MemoryTokenStore(),
      grant: 'client_credentials',
      client: { clientId: 'svc', clientSecret: 'canary-client-secret' },
      maxStepUps: 0,
    });
    await provider.onUnauthorized(challenge(fixture, 401, `Bearer ${prm(fixture)}`));
    const error = await provider
      .onUnauthorized(challenge(fixture, 403, 'Bearer error="insufficient_scope", scope="x"'))
      .catch((caught: unknown) => caught);
    const shown = `${inspect(provider)} ${JSON.stringify(provider)} ${inspect(error)} ${JSON.stringify(error)}`;
    expect(shown).not.toContain('canary-access-token-1234');
    expect(shown).not.toContain('canary-client-secret');
  });
});
