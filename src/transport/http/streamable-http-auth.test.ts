import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import { sendJson, startHttpServer } from '../../../test/helpers/http-test-server.js';
import type { McpHostError } from '../../errors/mcp-host-error.js';
import { bearerToken, type AuthProvider } from './auth-provider.js';
import { open, request, result } from './streamable-http-test-helpers.js';

describe('StreamableHttpTransport auth and redirects', () => {
  it('retries once after a 401 when the auth provider has a new token', async () => {
    await using _guard = leakGuard();
    const tokens = ['token-expired-1111', 'token-fresh-2222'];
    let next = 0;
    await using server = await startHttpServer((req, res) => {
      if (req.headers.authorization !== 'Bearer token-fresh-2222') {
        return void res.writeHead(401, { 'www-authenticate': 'Bearer scope="tools"' }).end();
      }
      sendJson(res, result(JSON.parse(req.body).id));
    });
    const challenges: unknown[] = [];
    const inner = bearerToken(() => tokens[next]!);
    const auth: AuthProvider = {
      headers: (r) => inner.headers(r),
      onUnauthorized: (challenge) => {
        challenges.push(challenge.wwwAuthenticate);
        next++;
        return inner.onUnauthorized!(challenge);
      },
    };
    await using t = await open(server, { auth });
    t.send(request(1));
    await t.until(() => t.messages.length === 1);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer token-expired-1111',
      'Bearer token-fresh-2222',
    ]);
    expect(challenges).toEqual(['Bearer scope="tools"']);
  });

  it('does not retry a 401 with a static bearer token, and masks the token', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((req, res) => {
      res
        .writeHead(401, { 'www-authenticate': 'Bearer' })
        .end(`bad token ${req.headers.authorization}`);
    });
    await using t = await open(server, { auth: bearerToken('static-secret-token-42') });
    t.send(request(1));
    await t.until(() => t.problems.length === 1);
    expect(server.requests).toHaveLength(1);
    const error: McpHostError = t.problems[0]!.error;
    expect(error.code).toBe('HTTP_STATUS');
    expect(error.details?.status).toBe(401);
    expect(JSON.stringify(error)).not.toContain('static-secret-token-42');
  });

  it('after a new token, tries once more for a 401 carrying a DPoP-Nonce, and hands the nonce over', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((req, res) => {
      if (req.headers.authorization === undefined) {
        return void res.writeHead(401, { 'www-authenticate': 'DPoP' }).end();
      }
      if (req.headers.dpop !== 'proof-with-nonce') {
        return void res
          .writeHead(401, {
            'www-authenticate': 'DPoP error="use_dpop_nonce"',
            'dpop-nonce': 'rs-nonce-1',
          })
          .end();
      }
      sendJson(res, result(JSON.parse(req.body).id));
    });
    let token: string | undefined;
    let nonce: string | undefined;
    const nonces: (string | undefined)[] = [];
    const auth: AuthProvider = {
      headers: (): Record<string, string> =>
        token === undefined
          ? {}
          : {
              authorization: `DPoP ${token}`,
              dpop: nonce === undefined ? 'proof' : 'proof-with-nonce',
            },
      onUnauthorized: (challenge) => {
        nonces.push(challenge.dpopNonce);
        if (token === undefined) token = 'dpop-token';
        else nonce = challenge.dpopNonce;
        return true;
      },
    };
    await using t = await open(server, { auth });
    t.send(request(1));
    await t.until(() => t.messages.length === 1);
    expect(server.requests.map((r) => r.headers.dpop)).toEqual([
      undefined,
      'proof',
      'proof-with-nonce',
    ]);
    expect(nonces).toEqual([undefined, 'rs-nonce-1']);
  });

  it('stops after that one more try when the server keeps asking for a nonce', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((_req, res) => {
      res
        .writeHead(401, {
          'www-authenticate': 'DPoP error="use_dpop_nonce"',
          'dpop-nonce': 'rs-nonce-again',
        })
        .end();
    });
    let calls = 0;
    const auth: AuthProvider = {
      headers: () => ({ authorization: 'DPoP dpop-token-loop', dpop: 'proof' }),
      onUnauthorized: () => {
        calls++;
        return true;
      },
    };
    await using t = await open(server, { auth });
    t.send(request(1));
    await t.until(() => t.problems.length === 1);
    expect(server.requests).toHaveLength(3);
    expect(calls).toBe(2);
    expect(t.problems[0]?.error.code).toBe('HTTP_STATUS');
    expect(t.problems[0]?.error.details?.status).toBe(401);
  });

  it('does not follow a redirect to another origin, and never sends credentials there', async () => {
    await using _guard = leakGuard();
    await using other = await startHttpServer((_req, res) => sendJson(res, result(1)));
    await using server = await startHttpServer((_req, res) => {
      res.writeHead(307, { location: other.url }).end();
    });
    await using t = await open(server, { auth: bearerToken('redirect-secret-token') });
    t.send(request(1));
    await t.until(() => t.problems.length === 1);
    expect(t.problems[0]?.error.code).toBe('HTTP_STATUS');
    expect(t.problems[0]?.error.details?.status).toBe(307);
    expect(t.problems[0]?.error.message).toContain('another origin');
    expect(other.requests).toEqual([]);
  });

  it('follows a same-origin 307 for a POST', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((req, res) => {
      if (req.url === '/mcp') return void res.writeHead(307, { location: '/mcp2' }).end();
      sendJson(res, result(JSON.parse(req.body).id));
    });
    await using t = await open(server);
    t.send(request(1));
    await t.until(() => t.messages.length === 1);
    expect(server.requests.map((r) => r.url)).toEqual(['/mcp', '/mcp2']);
  });
});
