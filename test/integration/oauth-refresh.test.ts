/**
 * Single-flight OAuth refresh against a real token endpoint on 127.0.0.1 that rotates refresh
 * tokens: one refresh for many callers in one process and in two, failures classified (tokens
 * kept or cleared), a lease holder that dies or hangs, and no token in any output.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FileTokenStore } from '../../src/auth/file-token-store.js';
import {
  RefreshCoordinator,
  type RefreshCoordinatorOptions,
} from '../../src/auth/refresh-coordinator.js';
import type { TokenKey } from '../../src/auth/token-store.js';
import { McpHostError } from '../../src/errors/mcp-host-error.js';
import type { Logger } from '../../src/internal/logger.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { nextLine, startWorker, type WorkerProcess } from '../helpers/worker-process.js';
import { startOidcRefreshProvider } from '../helpers/oidc-refresh-provider.js';
import { tempDir } from '../helpers/scratch.js';
import { now } from '../helpers/timing.js';
import { oauthRefresh, startTokenEndpoint, type TokenEndpoint } from '../helpers/token-endpoint.js';
import { rejection } from '../helpers/peer-harness.js';

const workerScript = fileURLToPath(
  new URL('../fixtures/token-refresh-worker.mjs', import.meta.url),
);
const RESOURCE = 'https://mcp.example/mcp';

function keyOf(endpoint: TokenEndpoint): TokenKey {
  return { issuer: endpoint.issuer, clientId: 'client-1', resource: RESOURCE };
}

/**
 * Starts the workers' calls at once (each said `ready`), then reads what each got and waits for
 * it to exit.
 */
async function runTogether(
  workers: WorkerProcess[],
): Promise<Array<{ accessTokens: string[]; errors: string[] }>> {
  for (const worker of workers) expect(await nextLine(worker)).toBe('ready');
  for (const worker of workers) worker.child.stdin.end('go\n');
  return Promise.all(
    workers.map(async (worker) => {
      const line = JSON.parse(await nextLine(worker)) as {
        accessTokens: string[];
        errors: string[];
      };
      await worker.exited;
      return line;
    }),
  );
}

/** Every log line, as text, to search for canaries. */
function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (level: string) => (message: string, fields?: object) =>
    void lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  return { lines, debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

async function setup(options: Partial<RefreshCoordinatorOptions> = {}, expiresInS = -1) {
  const dir = tempDir();
  const endpoint = await startTokenEndpoint();
  const logger = recordingLogger();
  const path = join(dir.path, 'state', 'state.json');
  const store = new FileTokenStore({ path, logger });
  const key = keyOf(endpoint);
  const initial = endpoint.issue();
  // Expired already (or expiring soon): due for refresh.
  await store.saveTokens(key, { ...initial, expiresAt: Date.now() + expiresInS * 1000 });
  await store.saveRegistration({
    issuer: endpoint.issuer,
    clientId: 'client-1',
    source: 'dynamic',
  });
  const coordinator = new RefreshCoordinator({
    store,
    refresh: oauthRefresh(endpoint.issuer, endpoint.tokenUrl),
    serverName: 'remote',
    logger,
    retryBaseDelayMs: 10,
    retryMaxDelayMs: 50,
    ...options,
  });
  return {
    dir,
    endpoint,
    store,
    key,
    initial,
    coordinator,
    logger,
    path,
    async [Symbol.asyncDispose]() {
      await store.close();
      await endpoint[Symbol.asyncDispose]();
      dir[Symbol.dispose]();
    },
  };
}

describe('RefreshCoordinator with a rotating token endpoint', () => {
  it('refreshes an expired token once for 20 concurrent callers in one process', async () => {
    await using _guard = leakGuard();
    await using t = await setup();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => t.coordinator.tokens(t.key)),
    );
    expect(t.endpoint.refreshRequests).toBe(1);
    const tokens = new Set(results.map((r) => r?.accessToken));
    expect(tokens.size).toBe(1);
    expect([...tokens][0]).not.toBe(t.initial.accessToken);
    const stored = await t.store.loadTokens(t.key);
    expect(stored?.accessToken).toBe(results[0]?.accessToken);
    expect(stored?.refreshToken).not.toBe(t.initial.refreshToken); // rotated and saved
    // Fresh now: no further request.
    await t.coordinator.tokens(t.key);
    expect(t.endpoint.refreshRequests).toBe(1);
  });

  it('two processes sharing one store, 20 concurrent calls each on an expired token: exactly one refresh request', async () => {
    await using guard = leakGuard();
    await using t = await setup();
    const workers = [0, 1].map(() =>
      startWorker(guard, workerScript, [
        t.path,
        t.endpoint.issuer,
        t.endpoint.tokenUrl,
        'refresh',
        '20',
      ]),
    );
    const results = await runTogether(workers);
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    expect(t.endpoint.refreshRequests).toBe(1);
    // Both processes ended up with the one new access token.
    const all = new Set(results.flatMap((r) => r.accessTokens));
    expect(all.size).toBe(1);
    expect((await t.store.loadTokens(t.key))?.accessToken).toBe([...all][0]);
  });

  it('a revoked refresh token (invalid_grant): tokens cleared, registration kept, AUTH_LOGIN_REQUIRED', async () => {
    await using _guard = leakGuard();
    await using t = await setup();
    t.endpoint.revoke(t.initial.refreshToken!);
    const error = await rejection(t.coordinator.tokens(t.key));
    expect(error.code).toBe('AUTH_LOGIN_REQUIRED');
    expect(error.permanent).toBe(true);
    expect(error.serverName).toBe('remote');
    expect(error.details).toMatchObject({ reason: 'invalid_grant', issuer: t.endpoint.issuer });
    expect(await t.store.loadTokens(t.key)).toBeUndefined();
    expect(await t.store.loadRegistration(t.endpoint.issuer)).toMatchObject({
      clientId: 'client-1',
    });
    expect(t.endpoint.refreshRequests).toBe(1); // never retried
    // Asked again: no tokens, a login is needed, and no request is made.
    expect((await rejection(t.coordinator.refresh(t.key))).details).toMatchObject({
      reason: 'no_tokens',
    });
    expect(t.endpoint.refreshRequests).toBe(1);
  });

  it('a refresh that times out (the endpoint never answers) keeps the tokens', async () => {
    await using _guard = leakGuard();
    await using t = await setup({ requestTimeoutMs: 300, maxAttempts: 2 });
    t.endpoint.fail('hang', 'hang');
    const started = now();
    const error = await rejection(t.coordinator.tokens(t.key));
    expect(now() - started).toBeLessThan(10_000);
    expect(error.code).toBe('AUTH_REFRESH_FAILED');
    expect(error.details).toMatchObject({ reason: 'timeout', attempts: 2 });
    expect(t.endpoint.refreshRequests).toBe(2);
    expect((await t.store.loadTokens(t.key))?.refreshToken).toBe(t.initial.refreshToken);
    // The endpoint answers again: the same refresh token still works.
    expect((await t.coordinator.tokens(t.key))?.accessToken).not.toBe(t.initial.accessToken);
  });

  it('503 and 429 keep the tokens and are retried with backoff until one succeeds', async () => {
    await using _guard = leakGuard();
    await using t = await setup({ maxAttempts: 3 });
    t.endpoint.fail('503', '429');
    const tokens = await t.coordinator.tokens(t.key);
    expect(t.endpoint.refreshRequests).toBe(3);
    expect(tokens?.accessToken).not.toBe(t.initial.accessToken);
    const debug = t.logger.lines.filter((line) => line.includes('oauth refresh failed'));
    expect(debug).toHaveLength(2);
    expect(debug[0]).toContain('"status":503');
    expect(debug[1]).toContain('"status":429');
  });

  it('503 past maxAttempts: AUTH_REFRESH_FAILED, tokens kept; a still-valid access token is used meanwhile', async () => {
    await using _guard = leakGuard();
    await using t = await setup({ maxAttempts: 2 });
    t.endpoint.fail('503', '503');
    const error = await rejection(t.coordinator.tokens(t.key));
    expect(error.code).toBe('AUTH_REFRESH_FAILED');
    expect(error.permanent).toBe(false);
    expect(error.details).toMatchObject({ reason: 'status', status: 503, attempts: 2 });
    expect((await t.store.loadTokens(t.key))?.refreshToken).toBe(t.initial.refreshToken);

    // Due (30 s left of an hour: margin 60 s) but still valid: a failing refresh returns it.
    await t.store.saveTokens(t.key, {
      ...t.initial,
      issuedAt: Date.now() - 3_570_000,
      expiresAt: Date.now() + 30_000,
    });
    t.endpoint.fail('503', '503');
    expect((await t.coordinator.tokens(t.key))?.accessToken).toBe(t.initial.accessToken);
    expect(t.endpoint.refreshRequests).toBe(4);
    // And it waits a while before trying again, rather than on every call.
    expect((await t.coordinator.tokens(t.key))?.accessToken).toBe(t.initial.accessToken);
    expect(t.endpoint.refreshRequests).toBe(4);
  });

  it('invalid_client is reported as AUTH_CLIENT_INVALID; tokens and registration kept', async () => {
    await using _guard = leakGuard();
    await using t = await setup();
    t.endpoint.fail('invalid_client');
    const error = await rejection(t.coordinator.tokens(t.key));
    expect(error.code).toBe('AUTH_CLIENT_INVALID');
    expect(error.message).toContain('unknown client');
    expect(t.endpoint.refreshRequests).toBe(1);
    expect((await t.store.loadTokens(t.key))?.refreshToken).toBe(t.initial.refreshToken);
    expect(await t.store.loadRegistration(t.endpoint.issuer)).toBeDefined();
  });

  it('refresh() after a 401 uses tokens someone else already refreshed', async () => {
    await using _guard = leakGuard();
    await using t = await setup({}, 3600);
    const first = await t.coordinator.refresh(t.key, {
      rejectedAccessToken: t.initial.accessToken,
    });
    expect(t.endpoint.refreshRequests).toBe(1);
    // A second caller that saw the old token rejected gets the new one, without a request.
    const second = await t.coordinator.refresh(t.key, {
      rejectedAccessToken: t.initial.accessToken,
    });
    expect(second.accessToken).toBe(first.accessToken);
    expect(t.endpoint.refreshRequests).toBe(1);
  });

  it('a lease holder that dies: the next process takes over at once', async () => {
    await using guard = leakGuard();
    await using t = await setup();
    const holder = startWorker(guard, workerScript, [
      t.path,
      t.endpoint.issuer,
      t.endpoint.tokenUrl,
      'hold',
      '600000',
    ]);
    expect(await nextLine(holder)).toBe('holding');
    holder.child.kill('SIGKILL');
    await holder.exited;
    const started = now();
    const tokens = await t.coordinator.tokens(t.key);
    expect(now() - started).toBeLessThan(10_000); // not the 10-minute lease
    expect(tokens?.accessToken).not.toBe(t.initial.accessToken);
    expect(t.endpoint.refreshRequests).toBe(1);
  });

  it('a lease holder that hangs: the next process takes over after ttlMs, not before', async () => {
    await using guard = leakGuard();
    await using t = await setup();
    const ttlMs = 1_000;
    const holder = startWorker(guard, workerScript, [
      t.path,
      t.endpoint.issuer,
      t.endpoint.tokenUrl,
      'hold',
      String(ttlMs),
    ]);
    const held = now();
    expect(await nextLine(holder)).toBe('holding');
    const tokens = await t.coordinator.tokens(t.key);
    const waited = now() - held;
    expect(waited).toBeGreaterThanOrEqual(ttlMs - 50);
    expect(waited).toBeLessThan(ttlMs + 10_000);
    expect(tokens?.accessToken).not.toBe(t.initial.accessToken);
    expect(t.endpoint.refreshRequests).toBe(1);
    holder.child.kill('SIGKILL');
    await holder.exited;
  });

  it('the token file is 0600, and canary tokens appear in no error, log, inspect or JSON output', async () => {
    await using _guard = leakGuard();
    await using t = await setup();
    await t.store.saveRegistration({
      issuer: t.endpoint.issuer,
      clientId: 'client-1',
      clientSecret: 'canary-client-secret-0451',
      source: 'dynamic',
    });
    expect(statSync(t.path).mode & 0o777).toBe(0o600);
    expect(statSync(join(t.dir.path, 'state')).mode & 0o777).toBe(0o700);
    const fresh = await t.coordinator.tokens(t.key);
    t.endpoint.fail('503', '503', '503');
    await t.store.saveTokens(t.key, { ...fresh!, expiresAt: Date.now() - 1 });
    const failed = await rejection(t.coordinator.tokens(t.key));
    t.endpoint.revoke((await t.store.loadTokens(t.key))!.refreshToken!);
    const revoked = await rejection(t.coordinator.tokens(t.key));
    const canaries = [
      t.initial.accessToken,
      t.initial.refreshToken!,
      fresh!.accessToken,
      fresh!.refreshToken!,
      'canary-client-secret-0451',
    ];
    const outputs = [
      ...t.logger.lines,
      ...[failed, revoked].flatMap((e) => [
        e.message,
        e.stack ?? '',
        JSON.stringify(e),
        inspect(e, { depth: 8 }),
      ]),
      inspect(t.store, { depth: 8 }),
      inspect(t.coordinator, { depth: 8 }),
      JSON.stringify(t.store),
      JSON.stringify(t.coordinator),
    ];
    for (const output of outputs)
      for (const canary of canaries) expect(output).not.toContain(canary);
    // A secret that turns up in a message is masked: the store registered them.
    const echoed = new McpHostError(
      'INTERNAL',
      `server said ${fresh!.refreshToken} and canary-client-secret-0451`,
    );
    expect(echoed.message).not.toContain(fresh!.refreshToken);
    expect(echoed.message).not.toContain('canary-client-secret-0451');
    expect(statSync(t.path).mode & 0o777).toBe(0o600);
  });
});

describe('RefreshCoordinator against oidc-provider (rotation on, reuse revokes the grant)', () => {
  async function providerSetup() {
    const dir = tempDir();
    const provider = await startOidcRefreshProvider();
    const path = join(dir.path, 'state.json');
    const store = new FileTokenStore({ path });
    const key = { issuer: provider.issuer, clientId: provider.clientId, resource: RESOURCE };
    const initial = await provider.issue();
    await store.saveTokens(key, initial);
    await store.saveRegistration({
      issuer: provider.issuer,
      clientId: provider.clientId,
      source: 'dynamic',
    });
    const coordinator = new RefreshCoordinator({
      store,
      refresh: oauthRefresh(provider.issuer, provider.tokenUrl, provider.clientId),
    });
    return {
      provider,
      store,
      key,
      initial,
      coordinator,
      path,
      async [Symbol.asyncDispose]() {
        await store.close();
        await provider[Symbol.asyncDispose]();
        dir[Symbol.dispose]();
      },
    };
  }

  it('two processes, 20 concurrent calls each on an expired token: one refresh request, nobody logged out', async () => {
    await using guard = leakGuard();
    await using t = await providerSetup();
    const workers = [0, 1].map(() =>
      startWorker(guard, workerScript, [
        t.path,
        t.provider.issuer,
        t.provider.tokenUrl,
        'refresh',
        '20',
        t.provider.clientId,
      ]),
    );
    const results = await runTogether(workers);
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    expect(t.provider.refreshRequests).toBe(1);
    expect(new Set(results.flatMap((r) => r.accessTokens)).size).toBe(1);
    // The rotated refresh token saved by the winner still works: the grant was not revoked.
    const stored = await t.store.loadTokens(t.key);
    expect(stored?.refreshToken).not.toBe(t.initial.refreshToken);
    const again = await t.coordinator.refresh(t.key);
    expect(again.accessToken).not.toBe(stored?.accessToken);
    expect(t.provider.refreshRequests).toBe(2);
  });

  it('a spent refresh token (invalid_grant): tokens cleared, registration kept, AUTH_LOGIN_REQUIRED', async () => {
    await using _guard = leakGuard();
    await using t = await providerSetup();
    // Someone else spends the refresh token behind the store's back (a non-single-flight client).
    await oauthRefresh(
      t.provider.issuer,
      t.provider.tokenUrl,
      t.provider.clientId,
    )(t.initial as Parameters<ReturnType<typeof oauthRefresh>>[0], {
      key: t.key,
      signal: AbortSignal.timeout(10_000),
    });
    const error = await rejection(t.coordinator.tokens(t.key));
    expect(error.code).toBe('AUTH_LOGIN_REQUIRED');
    expect(await t.store.loadTokens(t.key)).toBeUndefined();
    expect(await t.store.loadRegistration(t.provider.issuer)).toBeDefined();
  });
});
