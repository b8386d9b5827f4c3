import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { rejectionOf, timed } from '../../test/helpers/timing.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { startLoopbackListener } from './loopback-listener.js';

const CODE_CANARY = 'canary-code-5e1d9b3f7a';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request on its own connection, with exactly the Host header given. */
function send(
  port: number,
  options: { path: string; host?: string; method?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: options.path,
        method: options.method ?? 'GET',
        agent: false,
        headers: { host: options.host ?? `127.0.0.1:${port}` },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function portOf(redirectUri: string): number {
  return Number(new URL(redirectUri).port);
}

function expectCode(error: unknown, code: string): McpHostError {
  expect(error).toBeInstanceOf(McpHostError);
  expect((error as McpHostError).code).toBe(code);
  return error as McpHostError;
}

describe('startLoopbackListener', () => {
  it('resolves with the full redirect URL, answers with a page that echoes nothing, and closes', async () => {
    await using _guard = leakGuard();
    await using listener = await startLoopbackListener();
    expect(listener.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const port = portOf(listener.redirectUri);
    const query = `code=${CODE_CANARY}&state=%3Cscript%3Ealert(1)%3C%2Fscript%3E&iss=https%3A%2F%2Fas.example`;
    const answer = await send(port, { path: `/callback?${query}` });
    const url = await listener.redirect;
    expect(url.href).toBe(`${listener.redirectUri}?${query}`);
    expect(url.searchParams.get('code')).toBe(CODE_CANARY);
    expect(url.searchParams.get('iss')).toBe('https://as.example');
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('You can close this tab');
    expect(answer.body).not.toContain(CODE_CANARY);
    expect(answer.body).not.toContain('script>alert');
    expect(answer.headers['content-security-policy']).toContain("default-src 'none'");
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers['referrer-policy']).toBe('no-referrer');
    await listener.closed;
    const refused = await rejectionOf(send(port, { path: `/callback?${query}` }));
    expect((refused.error as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('accepts localhost:<port> as the Host, and an error redirect, without echoing it', async () => {
    await using _guard = leakGuard();
    await using listener = await startLoopbackListener({ path: '/oauth/cb' });
    const port = portOf(listener.redirectUri);
    const answer = await send(port, {
      path: '/oauth/cb?error=access_denied&error_description=%3Cb%3Enope%3C%2Fb%3E&state=s1',
      host: `LOCALHOST:${port}`,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('not completed');
    expect(answer.body).not.toContain('nope');
    expect(answer.body).not.toContain('access_denied');
    expect((await listener.redirect).searchParams.get('error')).toBe('access_denied');
  });

  it('refuses a foreign Host, another path and another method, and keeps waiting', async () => {
    await using _guard = leakGuard();
    await using listener = await startLoopbackListener();
    const port = portOf(listener.redirectUri);
    const path = '/callback?code=stolen&state=x';
    for (const host of [
      `evil.example:${port}`,
      `127.0.0.1:${port + 1}`,
      '127.0.0.1',
      `attacker.localhost:${port}`,
    ]) {
      expect((await send(port, { path, host })).status, host).toBe(400);
    }
    expect((await send(port, { path: '/favicon.ico' })).status).toBe(404);
    expect((await send(port, { path: '/callbackx?code=1' })).status).toBe(404);
    expect((await send(port, { path, method: 'POST' })).status).toBe(405);
    // An absolute-form request line cannot name another origin.
    const absolute = await send(port, { path: 'http://evil.example/callback?code=real&state=y' });
    expect(absolute.status).toBe(200);
    const url = await listener.redirect;
    expect(url.origin).toBe(new URL(listener.redirectUri).origin);
    expect(url.searchParams.get('code')).toBe('real');
  });

  it('is single use: it answers one redirect, then refuses on an open connection and closes', async () => {
    await using _guard = leakGuard();
    await using listener = await startLoopbackListener();
    const port = portOf(listener.redirectUri);
    // A browser's idle preconnect, open before the redirect: the listener must drop it too.
    const idle = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => idle.once('connect', resolve));
    const idleClosed = new Promise<void>((resolve) => idle.once('close', () => resolve()));
    idle.on('error', () => {});
    await send(port, { path: '/callback?code=first&state=a' });
    expect((await listener.redirect).searchParams.get('code')).toBe('first');
    await listener.closed;
    await idleClosed;
    const second = await rejectionOf(send(port, { path: '/callback?code=second&state=b' }));
    expect((second.error as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('times out with REQUEST_TIMEOUT and closes', async () => {
    await using _guard = leakGuard();
    await using listener = await startLoopbackListener({ timeoutMs: 150 });
    const result = await timed(listener.redirect);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(expectCode(result.error, 'REQUEST_TIMEOUT').details).toMatchObject({ kind: 'redirect' });
    // Generous: the deadline ended it, not something minutes long.
    expect(result.ms).toBeLessThan(10_000);
    await listener.closed;
    const refused = await rejectionOf(send(portOf(listener.redirectUri), { path: '/callback' }));
    expect((refused.error as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it("stops on the caller's signal with ABORTED (its reason as the cause), and on close()", async () => {
    await using _guard = leakGuard();
    const controller = new AbortController();
    const listener = await startLoopbackListener({ signal: controller.signal });
    const reason = new Error('user pasted the URL instead');
    controller.abort(reason);
    const { error } = await rejectionOf(listener.redirect);
    expect(expectCode(error, 'ABORTED').cause).toBe(reason);
    await listener.closed;

    const closedEarly = await startLoopbackListener();
    await closedEarly.close();
    await closedEarly.close();
    expectCode((await rejectionOf(closedEarly.redirect)).error, 'CONNECTION_CLOSED');

    await expect(startLoopbackListener({ signal: controller.signal })).rejects.toMatchObject({
      code: 'ABORTED',
    });
  });

  it('refuses unusable options, and a port already in use, with typed errors', async () => {
    await using _guard = leakGuard();
    await expect(startLoopbackListener({ path: 'callback' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(startLoopbackListener({ timeoutMs: 0 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await using taken = await startLoopbackListener();
    const { error } = await rejectionOf(startLoopbackListener({ port: portOf(taken.redirectUri) }));
    const failed = expectCode(error, 'CONNECT_FAILED');
    expect(failed.details).toMatchObject({ errno: 'EADDRINUSE' });
    expect(inspect(failed)).not.toContain(CODE_CANARY);
  });
});
