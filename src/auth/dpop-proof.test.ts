import { createHash, webcrypto } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { OAuthProvider } from '../auth.js';
import type { AuthChallenge } from '../http.js';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { MemoryTokenStore } from '../../test/helpers/memory-token-store.js';
import { consent, startOAuthFixture, type OAuthFixture } from '../../test/helpers/oauth-fixture.js';

interface Proof {
  header: { typ?: string; alg?: string; jwk?: webcrypto.JsonWebKey };
  payload: { jti?: string; htm?: string; htu?: string; ath?: string; nonce?: string; iat?: number };
}

const part = (text: string): unknown =>
  JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;

/** Decodes a DPoP proof and checks its signature with the key it carries. */
async function verifyProof(jwt: string | undefined): Promise<Proof> {
  expect(typeof jwt).toBe('string');
  const [header, payload, signature] = (jwt as string).split('.');
  const proof = { header: part(header!), payload: part(payload!) } as Proof;
  expect(proof.header.typ).toBe('dpop+jwt');
  expect(proof.header.alg).toBe('ES256');
  expect(proof.header.jwk?.d).toBeUndefined();
  const key = await webcrypto.subtle.importKey(
    'jwk',
    proof.header.jwk!,
    { name: 'ECDSA', namedCurve: 'P-256' },
    false,
    ['verify'],
  );
  const valid = await webcrypto.subtle.verify(
    { name: 'ECDSA', hash: 'SHA-256' },
    key,
    Buffer.from(signature!, 'base64url'),
    Buffer.from(`${header}.${payload}`),
  );
  expect(valid).toBe(true);
  return proof;
}

const ACCESS = 'dpop-access-canary-5150';
const REFRESHED = 'dpop-refreshed-canary-6160';

function dpopFixture(
  token: OAuthFixture['options']['token'] = () => ({
    json: { access_token: ACCESS, token_type: 'DPoP', expires_in: 3600 },
  }),
): Promise<OAuthFixture> {
  return startOAuthFixture({ metadata: { dpop_signing_alg_values_supported: ['ES256'] }, token });
}

function challenge(fixture: OAuthFixture, header: string, dpopNonce?: string): AuthChallenge {
  return {
    status: 401,
    wwwAuthenticate: header,
    url: new URL(fixture.mcpUrl),
    ...(dpopNonce === undefined ? {} : { dpopNonce }),
    signal: new AbortController().signal,
  };
}

const prm = (fixture: OAuthFixture): string =>
  `resource_metadata="${fixture.server.origin}/.well-known/oauth-protected-resource/mcp"`;

function provider(fixture: OAuthFixture, dpop?: boolean): OAuthProvider {
  return new OAuthProvider({
    serverUrl: fixture.mcpUrl,
    store: new MemoryTokenStore(),
    onAuthorizationRequired: consent,
    ...(dpop === undefined ? {} : { dpop }),
  });
}

describe('DPoP (RFC 9449) through OAuthProvider', () => {
  it('binds the token at the token request and sends it as DPoP with a fresh proof per request, never as Bearer', async () => {
    await using _guard = leakGuard();
    await using fixture = await dpopFixture();
    const oauth = provider(fixture);
    expect(await oauth.onUnauthorized(challenge(fixture, `DPoP ${prm(fixture)}`))).toBe(true);
    const tokenProof = await verifyProof(fixture.tokenRequests[0]?.dpop);
    expect(tokenProof.payload.htm).toBe('POST');
    expect(tokenProof.payload.htu).toBe(`${fixture.issuer}/token`);
    expect(tokenProof.payload.ath).toBeUndefined();

    const url = new URL(`${fixture.mcpUrl}?ignored=1`);
    const first = await oauth.headers({ url, method: 'POST' });
    const second = await oauth.headers({ url, method: 'GET' });
    expect(first.authorization).toBe(`DPoP ${ACCESS}`);
    expect(second.authorization).toBe(`DPoP ${ACCESS}`);
    const a = await verifyProof(first.dpop);
    const b = await verifyProof(second.dpop);
    expect(a.payload).toMatchObject({ htm: 'POST', htu: fixture.mcpUrl });
    expect(b.payload).toMatchObject({ htm: 'GET', htu: fixture.mcpUrl });
    const ath = createHash('sha256').update(ACCESS).digest('base64url');
    expect(a.payload.ath).toBe(ath);
    expect(a.payload.jti).not.toBe(b.payload.jti);
    // The same key signs the token request and every resource request.
    expect(a.header.jwk).toEqual(tokenProof.header.jwk);
    expect(JSON.stringify([first, second])).not.toMatch(/Bearer/);
  });

  it('retries the token request once with the nonce the authorization server asks for', async () => {
    await using _guard = leakGuard();
    await using fixture = await dpopFixture((request) => {
      const nonce = (part(request.dpop!.split('.')[1]!) as Proof['payload']).nonce;
      if (nonce !== 'as-nonce-7') {
        return {
          status: 400,
          json: { error: 'use_dpop_nonce' },
          headers: { 'dpop-nonce': 'as-nonce-7' },
        };
      }
      return { json: { access_token: ACCESS, token_type: 'DPoP', expires_in: 3600 } };
    });
    const oauth = provider(fixture);
    await oauth.onUnauthorized(challenge(fixture, `DPoP ${prm(fixture)}`));
    expect(fixture.tokenRequests).toHaveLength(2);
    expect((await verifyProof(fixture.tokenRequests[1]?.dpop)).payload.nonce).toBe('as-nonce-7');
    expect((await oauth.headers()).authorization).toBe(`DPoP ${ACCESS}`);
  });

  it('asks with a nonce only once: a server that keeps refusing gets a typed error', async () => {
    await using _guard = leakGuard();
    await using fixture = await dpopFixture(() => ({
      status: 400,
      json: { error: 'use_dpop_nonce' },
      headers: { 'dpop-nonce': `n-${Math.random()}` },
    }));
    const oauth = provider(fixture);
    const error = await oauth
      .onUnauthorized(challenge(fixture, `DPoP ${prm(fixture)}`))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'AUTH_FAILED',
      details: { step: 'token-request', error: 'use_dpop_nonce' },
    });
    expect(fixture.tokenRequests).toHaveLength(2);
  });

  it('puts the resource server nonce of a 401 use_dpop_nonce into the next proof', async () => {
    await using _guard = leakGuard();
    await using fixture = await dpopFixture();
    const oauth = provider(fixture);
    await oauth.onUnauthorized(challenge(fixture, `DPoP ${prm(fixture)}`));
    const retry = await oauth.onUnauthorized(
      challenge(fixture, 'DPoP error="use_dpop_nonce"', 'rs-nonce-9'),
    );
    expect(retry).toBe(true);
    expect(fixture.tokenRequests).toHaveLength(1);
    const headers = await oauth.headers({ url: new URL(fixture.mcpUrl), method: 'POST' });
    expect((await verifyProof(headers.dpop)).payload.nonce).toBe('rs-nonce-9');
  });

  it('does not use a DPoP token another process left in the store: it logs in for its own', async () => {
    await using _guard = leakGuard();
    await using fixture = await dpopFixture();
    const store = new MemoryTokenStore();
    await store.saveTokens(
      { issuer: fixture.issuer, clientId: 'dynamic-client', resource: fixture.mcpUrl },
      { accessToken: 'other-process-dpop-token', tokenType: 'DPoP' },
    );
    const oauth = new OAuthProvider({
      serverUrl: fixture.mcpUrl,
      store,
      onAuthorizationRequired: consent,
    });
    expect(await oauth.onUnauthorized(challenge(fixture, `DPoP ${prm(fixture)}`))).toBe(true);
    expect(fixture.tokenRequests).toHaveLength(1);
    expect((await oauth.headers()).authorization).toBe(`DPoP ${ACCESS}`);
  });

  it('refreshes a DPoP-bound token through the refresh coordinator with a proof, retrying once with the nonce', async () => {
    await using _guard = leakGuard();
    await using fixture = await dpopFixture((request) => {
      if (request.body.get('grant_type') !== 'refresh_token') {
        return {
          json: {
            access_token: ACCESS,
            token_type: 'DPoP',
            expires_in: 3600,
            refresh_token: 'rt-1',
          },
        };
      }
      const nonce =
        request.dpop === undefined
          ? undefined
          : (part(request.dpop.split('.')[1]!) as Proof['payload']).nonce;
      if (nonce !== 'as-nonce-r') {
        return {
          status: 400,
          json: { error: 'use_dpop_nonce' },
          headers: { 'dpop-nonce': 'as-nonce-r' },
        };
      }
      return {
        json: {
          access_token: REFRESHED,
          token_type: 'DPoP',
          expires_in: 3600,
          refresh_token: 'rt-2',
        },
      };
    });
    const store = new MemoryTokenStore();
    const oauth = new OAuthProvider({
      serverUrl: fixture.mcpUrl,
      store,
      onAuthorizationRequired: consent,
    });
    await oauth.onUnauthorized(challenge(fixture, `DPoP ${prm(fixture)}`));
    const loginProof = await verifyProof(fixture.tokenRequests[0]?.dpop);
    // The server refuses the token: one refresh, by the coordinator, with proofs of the same key.
    expect(
      await oauth.onUnauthorized(challenge(fixture, `DPoP error="invalid_token", ${prm(fixture)}`)),
    ).toBe(true);
    expect(fixture.tokenRequests).toHaveLength(3);
    const [, first, second] = fixture.tokenRequests;
    expect(first?.body.get('grant_type')).toBe('refresh_token');
    expect(first?.body.get('refresh_token')).toBe('rt-1');
    expect(second?.body.get('refresh_token')).toBe('rt-1');
    const retried = await verifyProof(second?.dpop);
    expect(retried.payload).toMatchObject({ htm: 'POST', htu: `${fixture.issuer}/token` });
    expect(retried.payload.nonce).toBe('as-nonce-r');
    expect(retried.header.jwk).toEqual(loginProof.header.jwk);
    const headers = await oauth.headers({ url: new URL(fixture.mcpUrl), method: 'POST' });
    expect(headers.authorization).toBe(`DPoP ${REFRESHED}`);
    const proof = await verifyProof(headers.dpop);
    expect(proof.payload.ath).toBe(createHash('sha256').update(REFRESHED).digest('base64url'));
    expect(proof.header.jwk).toEqual(loginProof.header.jwk);
    expect(
      await store.loadTokens({
        issuer: fixture.issuer,
        clientId: 'dynamic-client',
        resource: fixture.mcpUrl,
      }),
    ).toMatchObject({ accessToken: REFRESHED, tokenType: 'DPoP', refreshToken: 'rt-2' });
  });

  it("a fresh process that finds another process's DPoP token through the store's index sends and refreshes nothing", async () => {
    await using _guard = leakGuard();
    await using fixture = await dpopFixture();
    const store = new MemoryTokenStore();
    const key = { issuer: fixture.issuer, clientId: 'dynamic-client', resource: fixture.mcpUrl };
    await store.saveTokens(key, {
      accessToken: 'other-process-dpop-token',
      tokenType: 'DPoP',
      refreshToken: 'other-process-refresh-token',
      expiresAt: Date.now() - 1000,
    });
    await store.indexTokenKey(fixture.mcpUrl, key);
    const oauth = new OAuthProvider({
      serverUrl: fixture.mcpUrl,
      store,
      onAuthorizationRequired: consent,
    });
    expect(await oauth.headers({ url: new URL(fixture.mcpUrl), method: 'POST' })).toEqual({});
    expect(fixture.tokenRequests).toHaveLength(0);
    expect(await store.loadTokens(key)).toMatchObject({ accessToken: 'other-process-dpop-token' });
    // The 401 that follows logs in for a token of its own key.
    expect(await oauth.onUnauthorized(challenge(fixture, `DPoP ${prm(fixture)}`))).toBe(true);
    expect(fixture.tokenRequests).toHaveLength(1);
    expect(fixture.tokenRequests[0]?.body.get('grant_type')).toBe('authorization_code');
    expect((await oauth.headers()).authorization).toBe(`DPoP ${ACCESS}`);
  });

  it('stores the key with the tokens: a second provider on the store uses both; logout retires it', async () => {
    await using _guard = leakGuard();
    await using fixture = await dpopFixture();
    const store = new MemoryTokenStore();
    const first = new OAuthProvider({
      serverUrl: fixture.mcpUrl,
      store,
      onAuthorizationRequired: consent,
    });
    await first.onUnauthorized(challenge(fixture, `DPoP ${prm(fixture)}`));
    const request = { url: new URL(fixture.mcpUrl), method: 'POST' };
    const firstProof = await verifyProof((await first.headers(request)).dpop);
    const [stored] = store.tokens.values();
    expect(stored?.dpopKey).toMatchObject({ kty: 'EC', crv: 'P-256', d: expect.any(String) });
    expect(stored?.dpopKey?.x).toBe(firstProof.header.jwk?.x);

    const second = new OAuthProvider({
      serverUrl: fixture.mcpUrl,
      store,
      onAuthorizationRequired: consent,
    });
    const headers = await second.headers(request);
    expect(headers.authorization).toBe(`DPoP ${ACCESS}`);
    expect((await verifyProof(headers.dpop)).header.jwk).toEqual(firstProof.header.jwk);
    expect(fixture.tokenRequests).toHaveLength(1);
    expect(inspect(second, { depth: 10, showHidden: true })).not.toContain(stored!.dpopKey!.d);
    expect(JSON.stringify(second)).not.toContain(stored!.dpopKey!.d);

    // After a logout the tokens and their key are gone; the next login binds to a new key.
    await second.logout();
    await second.onUnauthorized(challenge(fixture, `DPoP ${prm(fixture)}`));
    const next = await verifyProof((await second.headers(request)).dpop);
    expect(next.header.jwk?.x).not.toBe(firstProof.header.jwk?.x);
    expect([...store.tokens.values()][0]?.dpopKey?.x).toBe(next.header.jwk?.x);
  });

  it('with dpop: false, asks for and sends Bearer tokens even where DPoP is offered', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture({
      metadata: { dpop_signing_alg_values_supported: ['ES256'] },
    });
    const oauth = provider(fixture, false);
    await oauth.onUnauthorized(challenge(fixture, `Bearer ${prm(fixture)}`));
    expect(fixture.tokenRequests[0]?.dpop).toBeUndefined();
    expect(await oauth.headers()).toEqual({ authorization: 'Bearer access-1' });
  });

  it('refuses a DPoP token it did not ask for (no key to use it with)', async () => {
    await using _guard = leakGuard();
    await using fixture = await startOAuthFixture({
      token: () => ({ json: { access_token: ACCESS, token_type: 'DPoP', expires_in: 60 } }),
    });
    const oauth = provider(fixture);
    const error = await oauth
      .onUnauthorized(challenge(fixture, `Bearer ${prm(fixture)}`))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'AUTH_FAILED', details: { step: 'token-request' } });
    expect(fixture.tokenRequests[0]?.dpop).toBeUndefined();
    expect(await oauth.headers()).toEqual({});
  });

  it('shows the DPoP-bound token nowhere: inspect, JSON, errors', async () => {
    await using _guard = leakGuard();
    await using fixture = await dpopFixture();
    const oauth = provider(fixture);
    await oauth.onUnauthorized(challenge(fixture, `DPoP ${prm(fixture)}`));
    await oauth.headers();
    expect(inspect(oauth, { depth: 10, showHidden: true })).not.toContain(ACCESS);
    expect(JSON.stringify(oauth)).not.toContain(ACCESS);
    fixture.options.token = () => ({
      status: 400,
      json: { error: 'invalid_grant', error_description: `bad ${ACCESS}` },
    });
    fixture.options.expiresIn = 1;
    const error = await oauth
      .logout()
      .then(() =>
        oauth.onUnauthorized(challenge(fixture, `DPoP ${prm(fixture)}`)).catch((e: unknown) => e),
      );
    expect(error).toMatchObject({ code: 'AUTH_FAILED' });
    expect(JSON.stringify(error)).not.toContain(ACCESS);
    expect(inspect(error)).not.toContain(ACCESS);
  });
});
