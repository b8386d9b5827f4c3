import { describe, expect, it } from 'vitest';
import { McpHostError } from '../errors/mcp-host-error.js';
import { MemoryStateStore, type StateStore } from '../state/state-store.js';
import { FileTokenStore } from './file-token-store.js';
import { RefreshCoordinator, type RefreshTokensFunction } from './refresh-coordinator.js';
import type { OAuthTokens } from './token-store.js';
import { rejection } from '../../test/helpers/peer-harness.js';

const key = { issuer: 'https://as.example', clientId: 'c1', resource: 'https://mcp.example/mcp' };

/** A refresh function that answers when told to, counting calls. */
function gatedRefresh() {
  const calls: Array<{
    refreshToken: string;
    signal: AbortSignal;
    answer: (t: OAuthTokens) => void;
    fail: (e: unknown) => void;
  }> = [];
  const refresh: RefreshTokensFunction = (tokens, { signal }) =>
    new Promise<OAuthTokens>((answer, fail) => {
      calls.push({ refreshToken: tokens.refreshToken, signal, answer, fail });
      signal.addEventListener('abort', () => fail(signal.reason as Error), { once: true });
    });
  return { calls, refresh };
}

function memoryTokenStore(withLease = true) {
  const memory = new MemoryStateStore();
  const state: StateStore = withLease
    ? memory
    : {
        get: memory.get.bind(memory),
        set: memory.set.bind(memory),
        delete: memory.delete.bind(memory),
        update: memory.update.bind(memory),
        entries: memory.entries.bind(memory),
      };
  return new FileTokenStore({ stateStore: state });
}

const expired = (): OAuthTokens => ({
  accessToken: 'at-old-1234',
  tokenType: 'Bearer',
  refreshToken: 'rt-old-1234',
  expiresAt: Date.now() - 1,
});

describe('RefreshCoordinator', () => {
  it('is due min(margin, 10% of the lifetime) before expiry; never without expiresAt', () => {
    const c = new RefreshCoordinator({
      store: memoryTokenStore(),
      refresh: gatedRefresh().refresh,
    });
    const now = 1_000_000_000;
    const hour = {
      accessToken: 'a',
      tokenType: 'Bearer',
      issuedAt: now - 3_000_000,
      expiresAt: now + 600_000,
    };
    expect(c.isDue(hour, now)).toBe(false);
    expect(c.isDue(hour, now + 540_001)).toBe(true); // 59.999 s left of an hour
    const short = { accessToken: 'a', tokenType: 'Bearer', issuedAt: now, expiresAt: now + 30_000 };
    expect(c.isDue(short, now + 26_000)).toBe(false);
    expect(c.isDue(short, now + 27_000)).toBe(true); // 3 s (10%) left
    expect(c.isDue({ accessToken: 'a', tokenType: 'Bearer', expiresAt: now + 59_000 }, now)).toBe(
      true,
    );
    expect(c.isDue({ accessToken: 'a', tokenType: 'Bearer' }, now)).toBe(false);
  });

  it('shares one flight between coordinators on one store, even without leases', async () => {
    const store = memoryTokenStore(false);
    expect(store.lease).toBeUndefined();
    await store.saveTokens(key, expired());
    const gate = gatedRefresh();
    const a = new RefreshCoordinator({ store, refresh: gate.refresh });
    const b = new RefreshCoordinator({ store, refresh: gate.refresh });
    const pending = [a.tokens(key), b.tokens(key), a.tokens(key)];
    await expect.poll(() => gate.calls.length).toBe(1);
    gate.calls[0]!.answer({
      accessToken: 'at-new-5678',
      tokenType: 'Bearer',
      expiresAt: Date.now() + 3_600_000,
    });
    const results = await Promise.all(pending);
    expect(results.map((r) => r?.accessToken)).toEqual([
      'at-new-5678',
      'at-new-5678',
      'at-new-5678',
    ]);
    expect(gate.calls).toHaveLength(1);
    // No new refresh token in the answer: the old one is kept (RFC 6749 §6), the scope too.
    expect((await store.loadTokens(key))?.refreshToken).toBe('rt-old-1234');
  });

  it('a caller that gives up is answered ABORTED / REQUEST_TIMEOUT; the flight goes on for others', async () => {
    const store = memoryTokenStore();
    await store.saveTokens(key, expired());
    const gate = gatedRefresh();
    const c = new RefreshCoordinator({ store, refresh: gate.refresh });
    const controller = new AbortController();
    // Each rejection is caught from the start: the 20 ms one may come before it is awaited.
    const aborted = rejection(c.tokens(key, { signal: controller.signal }));
    const timedOut = rejection(c.tokens(key, { timeoutMs: 20 }));
    const patient = c.tokens(key);
    await expect.poll(() => gate.calls.length).toBe(1);
    controller.abort(new Error('bye'));
    expect((await aborted).code).toBe('ABORTED');
    expect((await timedOut).code).toBe('REQUEST_TIMEOUT');
    gate.calls[0]!.answer({
      accessToken: 'at-new-9999',
      tokenType: 'Bearer',
      refreshToken: 'rt-new-9999',
    });
    expect((await patient)?.accessToken).toBe('at-new-9999');
  });

  it('aborts the request when the lease runs out, keeps the tokens, and says timeout', async () => {
    const store = memoryTokenStore();
    await store.saveTokens(key, expired());
    const gate = gatedRefresh();
    const c = new RefreshCoordinator({
      store,
      refresh: gate.refresh,
      leaseTtlMs: 100,
      requestTimeoutMs: 60_000,
      maxAttempts: 1,
    });
    const error = await rejection(c.tokens(key));
    expect(gate.calls[0]!.signal.aborted).toBe(true);
    expect(error.code).toBe('AUTH_REFRESH_FAILED');
    expect(error.details).toMatchObject({ reason: 'timeout', attempts: 1 });
    expect((await store.loadTokens(key))?.refreshToken).toBe('rt-old-1234');
  });

  it('expired tokens without a refresh token, or no tokens: AUTH_LOGIN_REQUIRED, nothing cleared', async () => {
    const store = memoryTokenStore();
    const c = new RefreshCoordinator({ store, refresh: gatedRefresh().refresh, serverName: 'srv' });
    expect(await c.tokens(key)).toBeUndefined();
    expect((await rejection(c.refresh(key))).details).toMatchObject({ reason: 'no_tokens' });
    await store.saveTokens(key, {
      accessToken: 'at-x-0000',
      tokenType: 'Bearer',
      expiresAt: Date.now() - 1,
    });
    const error = await rejection(c.tokens(key));
    expect(error.code).toBe('AUTH_LOGIN_REQUIRED');
    expect(error.message).toMatch(/^server 'srv': /);
    expect(error.details).toMatchObject({ reason: 'no_refresh_token' });
    expect(await store.loadTokens(key)).toBeDefined();
  });

  it('refuses a malformed answer without saving it', async () => {
    const store = memoryTokenStore();
    await store.saveTokens(key, expired());
    const c = new RefreshCoordinator({
      store,
      refresh: () => Promise.resolve({ accessToken: '', tokenType: 'Bearer' }),
    });
    const error = await rejection(c.tokens(key));
    expect(error.details).toMatchObject({ reason: 'rejected', attempts: 1 });
    expect((await store.loadTokens(key))?.accessToken).toBe('at-old-1234');
  });

  it('refuses bad options with INVALID_ARGUMENT', () => {
    const store = memoryTokenStore();
    expect(
      () => new RefreshCoordinator({ store, refresh: gatedRefresh().refresh, leaseTtlMs: 0 }),
    ).toThrow(McpHostError);
    expect(() => new RefreshCoordinator({ store } as never)).toThrow(McpHostError);
  });
});
