import { inspect } from 'node:util';
import { gzipSync } from 'node:zlib';
import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { startHttpServer, sendJson } from '../../test/helpers/http-test-server.js';
import { rejectionOf, timed } from '../../test/helpers/timing.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { createEgressFetch, type EgressLookup, type LookupAddress } from './egress-fetch.js';

const TOKEN_CANARY = 'canary-token-3f9a1c7e5b';
const SECRET_CANARY = 'canary-secret-8d2e4b6a0c';

/** A lookup that answers from a table, counting its calls. */
function tableLookup(table: Record<string, readonly string[]>): EgressLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = (hostname: string): Promise<readonly LookupAddress[]> => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (addresses === undefined) return Promise.reject(new Error(`no such host ${hostname}`));
    return Promise.resolve(
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }) as const),
    );
  };
  return Object.assign(lookup, { calls });
}

function expectCode(error: unknown, code: string): McpHostError {
  expect(error).toBeInstanceOf(McpHostError);
  expect((error as McpHostError).code).toBe(code);
  return error as McpHostError;
}

/** Every way an error is shown: none may hold a canary. */
function everyRendering(error: unknown): string {
  return [
    String(error),
    (error as Error).stack ?? '',
    JSON.stringify(error),
    inspect(error, { depth: 8 }),
  ].join('\n');
}

describe('createEgressFetch: redirects', () => {
  it('follows a same-origin redirect with the Authorization header and returns a standard Response', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((request, res) => {
      if (request.url === '/old') res.writeHead(307, { location: '/new' }).end();
      else sendJson(res, { seen: request.headers.authorization, body: request.body });
    });
    const fetch = createEgressFetch({ serverIsLocal: true });
    const response = await fetch(`${server.origin}/old`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN_CANARY}` },
      body: 'a=1',
    });
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(response.url).toBe(`${server.origin}/new`);
    expect(response.redirected).toBe(true);
    expect(await response.json()).toEqual({ seen: `Bearer ${TOKEN_CANARY}`, body: 'a=1' });
    expect(server.requests.map((r) => r.url)).toEqual(['/old', '/new']);
  });

  it('refuses a cross-origin redirect, naming both origins, and sends nothing there', async () => {
    await using _guard = leakGuard();
    await using other = await startHttpServer((_request, res) => sendJson(res, {}));
    await using server = await startHttpServer((_request, res) => {
      res.writeHead(302, { location: `${other.origin}/steal?x=1` }).end();
    });
    const fetch = createEgressFetch({ serverIsLocal: true });
    const { error } = await rejectionOf(
      fetch(`${server.origin}/token?access_token=${TOKEN_CANARY}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN_CANARY}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: `client_secret=${SECRET_CANARY}`,
      }),
    );
    const refused = expectCode(error, 'EGRESS_REFUSED');
    expect(refused.details).toMatchObject({
      reason: 'cross-origin-redirect',
      from: server.origin,
      to: other.origin,
      status: 302,
    });
    expect(refused.message).toContain(server.origin);
    expect(refused.message).toContain(other.origin);
    expect(other.requests).toHaveLength(0);
    expect(server.requests).toHaveLength(1);
    const shown = everyRendering(error);
    expect(shown).not.toContain(TOKEN_CANARY);
    expect(shown).not.toContain(SECRET_CANARY);
  });

  it('refuses a redirect from https to http on the same host (another origin)', async () => {
    await using _guard = leakGuard();
    const lookup = tableLookup({ 'as.test': ['127.0.0.1'] });
    await using server = await startHttpServer((_request, res) => {
      const port = new URL(server.origin).port;
      res.writeHead(301, { location: `https://as.test:${port}/x` }).end();
    });
    const fetch = createEgressFetch({ serverIsLocal: true, lookup });
    const port = new URL(server.origin).port;
    const { error } = await rejectionOf(fetch(`http://as.test:${port}/meta`));
    expect(expectCode(error, 'EGRESS_REFUSED').details).toMatchObject({
      reason: 'cross-origin-redirect',
      to: `https://as.test:${port}`,
    });
  });

  it('stops a same-origin redirect loop at maxRedirects', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((_request, res) => {
      res.writeHead(302, { location: '/again' }).end();
    });
    const fetch = createEgressFetch({ serverIsLocal: true, maxRedirects: 3 });
    const { error } = await rejectionOf(fetch(`${server.origin}/start`));
    expect(expectCode(error, 'EGRESS_REFUSED').details).toMatchObject({
      reason: 'redirect-limit',
    });
    expect(server.requests).toHaveLength(4);
  });

  it("turns a POST into a GET without its body on a 303, as fetch does; `redirect: 'error'` refuses any", async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((request, res) => {
      if (request.url === '/post') res.writeHead(303, { location: '/result' }).end();
      else sendJson(res, { method: request.method, body: request.body });
    });
    const fetch = createEgressFetch({ serverIsLocal: true });
    const response = await fetch(`${server.origin}/post`, { method: 'POST', body: 'x=1' });
    expect(await response.json()).toEqual({ method: 'GET', body: '' });
    const { error } = await rejectionOf(fetch(`${server.origin}/post`, { redirect: 'error' }));
    expect(expectCode(error, 'EGRESS_REFUSED').details).toMatchObject({ reason: 'redirect' });
  });
});

describe('createEgressFetch: addresses', () => {
  it('refuses a metadata URL whose name resolves to a private address, before connecting', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((_request, res) => sendJson(res, {}));
    const port = new URL(server.origin).port;
    const lookup = tableLookup({
      'as.example.com': ['10.1.2.3'],
      'metadata.example.com': ['169.254.169.254'],
      'here.example.com': ['127.0.0.1'],
      'cgnat.example.com': ['100.64.0.9'],
      'mixed.example.com': ['93.184.216.34', '192.168.1.1'],
      'mapped.example.com': ['::ffff:10.0.0.1'],
    });
    const fetch = createEgressFetch({ lookup });
    const ranges: Record<string, string> = {
      'as.example.com': 'private',
      'metadata.example.com': 'link-local',
      'here.example.com': 'loopback',
      'cgnat.example.com': 'private',
      'mixed.example.com': 'private',
      'mapped.example.com': 'private',
    };
    for (const [host, range] of Object.entries(ranges)) {
      const { error } = await rejectionOf(
        fetch(`http://${host}:${port}/.well-known/oauth-authorization-server`),
      );
      const refused = expectCode(error, 'EGRESS_REFUSED');
      expect(refused.details).toMatchObject({ reason: 'address', host, range });
      expect(refused.message).toContain(host);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('refuses private addresses written as IP literals in any encoding', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((_request, res) => sendJson(res, {}));
    const port = new URL(server.origin).port;
    const fetch = createEgressFetch();
    for (const host of [
      '127.0.0.1',
      '0x7f.0.0.1',
      '2130706433',
      '127.1',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[::ffff:a9fe:a9fe]',
      '[64:ff9b::a9fe:a9fe]',
      '[fe80::1]',
      '[fd00::1]',
      '0.0.0.0',
      '[::]',
    ]) {
      const { error } = await rejectionOf(fetch(`http://${host}:${port}/token`));
      expect(expectCode(error, 'EGRESS_REFUSED').details, host).toMatchObject({
        reason: 'address',
      });
    }
    expect(server.requests).toHaveLength(0);
  });

  it('allows loopback when the MCP server is local, but never the link-local metadata address', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((request, res) =>
      sendJson(res, { host: request.headers.host }),
    );
    const port = new URL(server.origin).port;
    const lookup = tableLookup({
      'as.local.test': ['127.0.0.1'],
      'metadata.test': ['169.254.169.254'],
    });
    const fetch = createEgressFetch({ serverIsLocal: true, lookup });
    const response = await fetch(`http://as.local.test:${port}/meta`);
    expect(await response.json()).toEqual({ host: `as.local.test:${port}` });
    expect(await (await fetch(`${server.origin}/meta`)).json()).toEqual({
      host: `127.0.0.1:${port}`,
    });
    const { error } = await rejectionOf(fetch(`http://metadata.test:${port}/latest`));
    expect(expectCode(error, 'EGRESS_REFUSED').details).toMatchObject({ range: 'link-local' });
  });

  it('allows what allowHosts lists: a host name, or a CIDR range', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((_request, res) => sendJson(res, { ok: true }));
    const port = new URL(server.origin).port;
    const lookup = tableLookup({ 'as.corp.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] });
    const byName = createEgressFetch({ allowHosts: ['AS.corp.test'], lookup });
    expect((await byName(`http://as.corp.test:${port}/`)).status).toBe(200);
    expectCode((await rejectionOf(byName(`http://other.test:${port}/`))).error, 'EGRESS_REFUSED');
    const byRange = createEgressFetch({ allowHosts: ['127.0.0.0/8'], lookup });
    expect((await byRange(`http://other.test:${port}/`)).status).toBe(200);
    expect((await byRange(`${server.origin}/`)).status).toBe(200);
    expect(() => createEgressFetch({ allowHosts: ['10.0.0.0/33'] })).toThrow(/prefix length/);
  });

  it('connects to the address it checked, and checks every connection again', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((request, res) => {
      if (request.url === '/a') res.writeHead(302, { location: '/b' }).end();
      else sendJson(res, { ok: true });
    });
    const port = new URL(server.origin).port;
    // The name exists only in this lookup: reaching the server proves the socket used its answer.
    const pinned = tableLookup({ 'pinned.test': ['127.0.0.1'] });
    const fetch = createEgressFetch({ allowHosts: ['127.0.0.1'], lookup: pinned });
    expect((await fetch(`http://pinned.test:${port}/b`)).status).toBe(200);
    expect(pinned.calls).toEqual(['pinned.test']);
    // A rebinding name: loopback (allowed) for the first call's connection, then a private address.
    let answers = 0;
    const rebinding: EgressLookup = () =>
      Promise.resolve([{ address: answers++ === 0 ? '127.0.0.1' : '10.9.9.9', family: 4 }]);
    const rebound = createEgressFetch({ allowHosts: ['127.0.0.1'], lookup: rebinding });
    expect((await rebound(`http://rebind.test:${port}/b`)).status).toBe(200);
    const { error } = await rejectionOf(rebound(`http://rebind.test:${port}/b`));
    expect(expectCode(error, 'EGRESS_REFUSED').details).toMatchObject({
      reason: 'address',
      address: '10.9.9.9',
    });
    expect(server.requests.map((r) => r.url)).toEqual(['/b', '/b']);
  });

  it('checks https hosts the same way, and reports a failed TLS handshake as CONNECT_FAILED', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((_request, res) => sendJson(res, {}));
    const port = new URL(server.origin).port;
    const lookup = tableLookup({ 'secure.test': ['10.0.0.1'], 'plain.test': ['127.0.0.1'] });
    const fetch = createEgressFetch({ lookup, allowHosts: ['plain.test'], timeoutMs: 5_000 });
    const refused = await rejectionOf(
      fetch('https://secure.test/.well-known/openid-configuration'),
    );
    expect(expectCode(refused.error, 'EGRESS_REFUSED').details).toMatchObject({
      reason: 'address',
      address: '10.0.0.1',
    });
    // TLS to a plain HTTP server: the handshake fails, typed.
    const tls = await rejectionOf(fetch(`https://plain.test:${port}/token`));
    expectCode(tls.error, 'CONNECT_FAILED');
    expect(lookup.calls).toEqual(['secure.test', 'plain.test']);
  });

  it('takes a Request as its input, with its method, headers, body and signal', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((request, res) =>
      sendJson(res, {
        method: request.method,
        type: request.headers['content-type'],
        body: request.body,
      }),
    );
    const fetch = createEgressFetch({ serverIsLocal: true });
    const request = new Request(`${server.origin}/register`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    expect(await (await fetch(request)).json()).toEqual({
      method: 'POST',
      type: 'application/x-www-form-urlencoded;charset=UTF-8',
      body: 'grant_type=client_credentials',
    });
    const controller = new AbortController();
    controller.abort(new Error('never mind'));
    const aborted = await rejectionOf(
      fetch(new Request(`${server.origin}/x`, { signal: controller.signal })),
    );
    expectCode(aborted.error, 'ABORTED');
  });

  it('refuses URLs that are not http(s)', async () => {
    await using _guard = leakGuard();
    const fetch = createEgressFetch();
    for (const url of ['file:///etc/passwd', 'ftp://example.com/x', 'data:text/plain,hi']) {
      const { error } = await rejectionOf(fetch(url));
      expect(error).toBeInstanceOf(McpHostError);
      expect(['EGRESS_REFUSED', 'INVALID_ARGUMENT']).toContain((error as McpHostError).code);
    }
  });
});

describe('createEgressFetch: bounds', () => {
  it('cuts off an oversized response with MESSAGE_TOO_LARGE and closes its connection', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((request, res) => {
      if (request.url === '/gzip') {
        res
          .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
          .end(gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x20)));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      // Streams without a length, until the client goes away.
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const fetch = createEgressFetch({ serverIsLocal: true, maxResponseBytes: 64 * 1024 });
    const { error } = await rejectionOf(fetch(`${server.origin}/meta`));
    expect(expectCode(error, 'MESSAGE_TOO_LARGE').details).toMatchObject({
      maxResponseBytes: 64 * 1024,
    });
    await server.socketsClosed();
    // A compressed bomb is counted decoded.
    const gzip = await rejectionOf(
      fetch(`${server.origin}/gzip`, { headers: { 'accept-encoding': 'gzip' } }),
    );
    expectCode(gzip.error, 'MESSAGE_TOO_LARGE');
  });

  it('gives up on a hanging server at the deadline, before and after the headers', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((request, res) => {
      if (request.url === '/half') res.writeHead(200).write('{"issuer":');
      // '/silent' never answers.
    });
    const fetch = createEgressFetch({ serverIsLocal: true, timeoutMs: 300 });
    for (const path of ['/silent', '/half']) {
      const result = await timed(
        fetch(`${server.origin}${path}`, { headers: { authorization: `Bearer ${TOKEN_CANARY}` } }),
      );
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      const timedOut = expectCode(result.error, 'REQUEST_TIMEOUT');
      expect(timedOut.details).toMatchObject({ kind: 'total' });
      expect(everyRendering(timedOut)).not.toContain(TOKEN_CANARY);
      // Generous: proves the deadline ended it, not a default timeout of minutes.
      expect(result.ms).toBeLessThan(10_000);
    }
  });

  it("honours the caller's signal, with its reason as the cause", async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer(() => {});
    const fetch = createEgressFetch({ serverIsLocal: true });
    const controller = new AbortController();
    const pending = fetch(`${server.origin}/slow`, { signal: controller.signal });
    await server.requestsSeen(1);
    const reason = new Error('user gave up');
    controller.abort(reason);
    const { error } = await rejectionOf(pending);
    expect(expectCode(error, 'ABORTED').cause).toBe(reason);
    const early = await rejectionOf(fetch(`${server.origin}/x`, { signal: controller.signal }));
    expectCode(early.error, 'ABORTED');
  });

  it('names the URL without its query or user info', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer(() => {});
    const fetch = createEgressFetch({ serverIsLocal: true, timeoutMs: 100 });
    const { error } = await rejectionOf(
      fetch(`${server.origin}/token?code=${SECRET_CANARY}&state=${TOKEN_CANARY}`),
    );
    const timedOut = expectCode(error, 'REQUEST_TIMEOUT');
    expect(timedOut.message).toContain(`${server.origin}/token?…`);
    const shown = everyRendering(timedOut);
    expect(shown).not.toContain(SECRET_CANARY);
    expect(shown).not.toContain(TOKEN_CANARY);
  });
});

describe('createEgressFetch with oauth4webapi', () => {
  it('serves as its customFetch for discovery, same-origin redirect included', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((request, res) => {
      if (request.url === '/.well-known/oauth-authorization-server')
        res.writeHead(308, { location: '/.well-known/oauth-authorization-server/' }).end();
      else
        sendJson(res, {
          issuer: server.origin,
          token_endpoint: `${server.origin}/token`,
          code_challenge_methods_supported: ['S256'],
        });
    });
    const issuer = new URL(server.origin);
    const options = {
      [oauth.customFetch]: createEgressFetch({ serverIsLocal: true }),
      [oauth.allowInsecureRequests]: true,
    };
    const response = await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oauth2' });
    const metadata = await oauth.processDiscoveryResponse(issuer, response);
    expect(metadata.token_endpoint).toBe(`${server.origin}/token`);
  });
});
