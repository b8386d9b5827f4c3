/**
 * Single-flight OAuth refresh across a fleet: 20 processes, each with a token store on one shared
 * PostgreSQL state store, call at once on an expired token with a rotating refresh token: the
 * authorization server sees exactly one refresh request, and every process gets its result.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FileTokenStore } from '../../src/auth/file-token-store.js';
import { PostgresStateStore } from '../../src/postgres/postgres-state-store.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { nextLine, startWorker } from '../helpers/worker-process.js';
import { freshSchemaName, postgresForTests } from '../helpers/postgres-cluster.js';
import { startTokenEndpoint } from '../helpers/token-endpoint.js';

const workerScript = fileURLToPath(
  new URL('../fixtures/token-refresh-worker.mjs', import.meta.url),
);
const PROCESSES = 20;
const CALLS_PER_PROCESS = 5;

const postgres = postgresForTests();

describe('OAuth refresh on a shared PostgreSQL store', () => {
  it(`${PROCESSES} processes, ${CALLS_PER_PROCESS} concurrent calls each on an expired token: exactly one refresh request`, async () => {
    await using guard = leakGuard();
    await using endpoint = await startTokenEndpoint();
    const schema = freshSchemaName('fleet');
    const key = {
      issuer: endpoint.issuer,
      clientId: 'client-1',
      resource: 'https://mcp.example/mcp',
    };
    const state = await PostgresStateStore.open({ connectionString: postgres.url(), schema });
    await using _state = state;
    const store = new FileTokenStore({ stateStore: state });
    await using _store = store;
    const initial = endpoint.issue();
    await store.saveTokens(key, { ...initial, expiresAt: Date.now() - 1_000 }); // expired
    await store.saveRegistration({
      issuer: endpoint.issuer,
      clientId: 'client-1',
      source: 'dynamic',
    });

    const workers = Array.from({ length: PROCESSES }, () =>
      startWorker(guard, workerScript, [
        `postgres:${schema}:${postgres.url()}`,
        endpoint.issuer,
        endpoint.tokenUrl,
        'refresh',
        String(CALLS_PER_PROCESS),
      ]),
    );
    for (const worker of workers) expect(await nextLine(worker)).toBe('ready');
    for (const worker of workers) worker.child.stdin.end('go\n');
    const results = await Promise.all(
      workers.map(async (worker) => {
        const line = JSON.parse(await nextLine(worker)) as {
          accessTokens: string[];
          errors: string[];
        };
        await worker.exited;
        return line;
      }),
    );

    expect(results.flatMap((r) => r.errors)).toEqual([]);
    expect(endpoint.refreshRequests).toBe(1);
    const all = new Set(results.flatMap((r) => r.accessTokens));
    expect(all.size).toBe(1);
    expect([...all][0]).not.toBe(initial.accessToken);
    const stored = await store.loadTokens(key);
    expect(stored?.accessToken).toBe([...all][0]);
    expect(stored?.refreshToken).not.toBe(initial.refreshToken); // rotated and saved once
  }, 120_000);
});
