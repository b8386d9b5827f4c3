import { afterEach, describe, expect, it, vi } from 'vitest';
import type { McpHost } from '../../host/mcp-host.js';
import { UpstreamLogins } from './upstream-logins.js';

/** A host whose logins are scripted: each start gets a new state; completion as `outcome` says. */
function fakeHost(outcome: { state: string; lastError?: { code: string; message: string } }) {
  let started = 0;
  const completed: string[] = [];
  const host = {
    startAuthorization: () => {
      started++;
      return Promise.resolve({
        url: new URL(`https://as.example/authorize?state=s${started}`),
        state: `s${started}`,
        expiresAt: Date.now() + 60_000,
      });
    },
    completeAuthorization: (_server: string, redirect: URL) => {
      completed.push(redirect.href);
      return Promise.resolve({ name: 'tracker', ...outcome });
    },
  } as unknown as McpHost;
  return { host, completed, started: () => started };
}

const callback = (state: string) =>
  new URL(`http://127.0.0.1:1/oauth/callback?code=the-code&state=${state}`);

afterEach(() => {
  vi.useRealTimers();
});

describe('UpstreamLogins', () => {
  it('gives a second call of the same client and server the login that waits; the callback ends it once', async () => {
    const logins = new UpstreamLogins();
    logins.useCallback('http://127.0.0.1:8808');
    logins.useCallback('http://127.0.0.1:9999');
    expect(logins.redirectUri).toBe('http://127.0.0.1:8808/oauth/callback');
    const { host, completed, started } = fakeHost({ state: 'ready' });
    const done: string[] = [];
    logins.onComplete((id) => done.push(id));
    const first = await logins.start(host, 'tracker', 'carol');
    const again = await logins.start(host, 'tracker', 'carol');
    const other = await logins.start(host, 'tracker', 'dave');
    expect(again).toBe(first);
    expect(other.elicitationId).not.toBe(first.elicitationId);
    expect(started()).toBe(2);
    expect(first.url).toBe('https://as.example/authorize?state=s1');

    expect(await logins.complete(callback('s1'))).toMatchObject({ status: 200 });
    await first.done;
    expect(done).toEqual([first.elicitationId]);
    // Used: the same state again, and an unknown one, are refused without reaching the host.
    expect(await logins.complete(callback('s1'))).toMatchObject({ status: 400 });
    expect(await logins.complete(callback('nope'))).toMatchObject({ status: 400 });
    expect(completed).toHaveLength(1);
    logins.close();
    await expect(other.done).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    await expect(logins.start(host, 'tracker', 'carol')).rejects.toMatchObject({
      code: 'CONNECTION_CLOSED',
    });
  });

  it('fails a login whose server does not come up, naming why, without the code', async () => {
    const logins = new UpstreamLogins();
    const { host } = fakeHost({
      state: 'failed',
      lastError: { code: 'CONNECT_FAILED', message: 'connection refused' },
    });
    const login = await logins.start(host, 'tracker', 'carol');
    const answer = await logins.complete(callback('s1'));
    expect(answer.status).toBe(400);
    expect(answer.message).toContain('connection refused');
    expect(answer.message).not.toContain('the-code');
    await expect(login.done).rejects.toMatchObject({ code: 'AUTH_FAILED' });
  });

  it('gives up a login its flow no longer waits for', async () => {
    vi.useFakeTimers();
    const logins = new UpstreamLogins();
    const { host } = fakeHost({ state: 'ready' });
    const login = await logins.start(host, 'tracker', 'carol');
    const failed = expect(login.done).rejects.toMatchObject({ code: 'REQUEST_TIMEOUT' });
    await vi.advanceTimersByTimeAsync(60_001);
    await failed;
    expect(await logins.complete(callback('s1'))).toMatchObject({ status: 400 });
  });
});
