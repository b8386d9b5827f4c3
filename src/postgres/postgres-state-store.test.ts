/**
 * PostgresStateStore on a throwaway cluster: the store and lease contracts every store keeps, then
 * what only a shared store has: two store instances on one schema act as two replicas.
 */
import { inspect } from 'node:util';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { leaseContract } from '../../test/helpers/lease-contract.js';
import { rejection, testLogger } from '../../test/helpers/peer-harness.js';
import { freshSchemaName, postgresForTests } from '../../test/helpers/postgres-cluster.js';
import { stateStoreContract, watchRecorder } from '../../test/helpers/state-store-contract.js';
import { now } from '../../test/helpers/timing.js';
import { canonicalJson } from '../state/canonical-json.js';
import { POSTGRES_SCHEMA_VERSION } from './migrations.js';
import { PostgresStateStore, type PostgresStateStoreOptions } from './postgres-state-store.js';

const postgres = postgresForTests();

const freshSchema = (): string => freshSchemaName('t');

function open(options: Partial<PostgresStateStoreOptions> = {}): Promise<PostgresStateStore> {
  return PostgresStateStore.open({
    connectionString: postgres.url(),
    schema: freshSchema(),
    ...options,
  });
}

async function fresh(): Promise<{ store: PostgresStateStore } & AsyncDisposable> {
  const store = await open();
  return { store, [Symbol.asyncDispose]: () => store.close() };
}

/** A plain connection to the test database, for looking behind the store's back. */
async function sql<R extends pg.QueryResultRow>(
  text: string,
  values: unknown[] = [],
  connectionString = postgres.url(),
): Promise<R[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe('PostgresStateStore: the store contract', () => {
  stateStoreContract(fresh, { watch: true });
});

describe('PostgresStateStore: the lease contract', () => {
  leaseContract(fresh);
});

describe('PostgresStateStore: two instances on one schema (two replicas)', () => {
  async function pair(): Promise<
    { a: PostgresStateStore; b: PostgresStateStore; schema: string } & AsyncDisposable
  > {
    const schema = freshSchema();
    const a = await open({ schema });
    const b = await open({ schema });
    return {
      a,
      b,
      schema,
      [Symbol.asyncDispose]: async () => {
        await Promise.all([a.close(), b.close()]);
      },
    };
  }

  it('runs updates from both one after another: none of 80 is lost', async () => {
    await using t = await pair();
    const results = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        (i % 2 === 0 ? t.a : t.b).update<number>('ns', 'counter', (n) => (n ?? 0) + 1),
      ),
    );
    expect(await t.a.get('ns', 'counter')).toBe(80);
    expect([...results].sort((x, y) => x! - y!)).toEqual(
      Array.from({ length: 80 }, (_, i) => i + 1),
    );
  });

  it('a lease is single-flight across both: never two holders, generations 1..20', async () => {
    await using t = await pair();
    let holding = 0;
    let maxHolding = 0;
    const generations: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const lease = await (i % 2 === 0 ? t.a : t.b).lease('oauth-refresh', 'k', {
          ttlMs: 60_000,
        });
        holding++;
        maxHolding = Math.max(maxHolding, holding);
        generations.push(lease.generation);
        await new Promise((resolve) => setTimeout(resolve, 10)); // work, not a wait for an event
        holding--;
        await lease.release();
      }),
    );
    expect(maxHolding).toBe(1);
    expect(generations).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it("a release on one wakes the other's waiter at once, and close() releases what it holds", async () => {
    await using t = await pair();
    const held = await t.a.lease('oauth-refresh', 'k', { ttlMs: 60_000 });
    const waiting = t.b.lease('oauth-refresh', 'k', { ttlMs: 60_000 });
    const releasedAt = now();
    await held.release();
    const next = await waiting;
    expect(next.generation).toBe(2);
    expect(now() - releasedAt).toBeLessThan(5_000);
    const third = t.a.lease('oauth-refresh', 'k', { ttlMs: 60_000 });
    const closedAt = now();
    await t.b.close(); // b still held generation 2
    expect((await third).generation).toBe(3);
    expect(now() - closedAt).toBeLessThan(5_000);
    await (await third).release();
  });

  it("a write on one reaches the other's watcher within 1 s", async () => {
    await using t = await pair();
    const seen = watchRecorder();
    using _watching = t.b.watch('pins', seen.listener);
    for (const key of ['tool-a', 'tool-b']) {
      // Counted before the write: the notification may reach b before the commit's answer a.
      const expected = seen.keys.length + 1;
      const started = now();
      await t.a.set('pins', key, { approved: true });
      await seen.until(expected);
      expect(now() - started).toBeLessThan(1_000);
    }
    expect(seen.keys).toEqual(['tool-a', 'tool-b']);
    expect(await t.b.get('pins', 'tool-b')).toEqual({ approved: true });
  });

  it('after its listening connection dropped, it reconnects and tells watchers every key', async () => {
    const logger = testLogger();
    const schema = freshSchema();
    const applicationName = `drop-${schema}`;
    const a = await open({ schema });
    const b = await open({ schema, applicationName, logger });
    try {
      const seen = watchRecorder();
      using _watching = b.watch('pins', seen.listener);
      await a.set('pins', 'before', 1);
      expect(await seen.until(1)).toEqual(['before']);
      const killed = await sql<{ ok: boolean }>(
        'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1',
        [`${applicationName} listen`],
      );
      expect(killed).toEqual([{ ok: true }]);
      // Back: every key it holds is announced, and later writes arrive as before.
      expect(await seen.until(2, 15_000)).toEqual(['before', 'before']);
      await a.set('pins', 'after', 2);
      expect(await seen.until(3)).toEqual(['before', 'before', 'after']);
      expect(JSON.stringify(logger.warnings)).toContain('listening connection dropped');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('PostgresStateStore: storage', () => {
  it('keeps each value as the canonical JSON text the other stores keep', async () => {
    await using t = await fresh();
    const value = { z: [1, 'é 😀'], a: { y: null, b: 1e21 }, n: -0.5 };
    await t.store.set('pins', 'k', value);
    const rows = await sql<{ value: string }>(
      `SELECT value FROM ${t.store.schema}.state_values WHERE namespace = 'pins' AND key = 'k'`,
    );
    expect(rows).toEqual([{ value: canonicalJson(value) }]);
  });

  it('refuses names PostgreSQL cannot hold with INVALID_ARGUMENT', async () => {
    await using t = await fresh();
    for (const [namespace, key] of [
      ['ns', 'a\u0000b'],
      ['ns\ud800', 'k'],
      ['ns', 'x'.repeat(3_000)],
      ['ns', '\u0001'.repeat(1_500)], // 1,500 bytes, but 9,000 escaped in a notification
    ] as const) {
      expect((await rejection(t.store.set(namespace, key, 1))).code).toBe('INVALID_ARGUMENT');
      expect((await rejection(t.store.get(namespace, key))).code).toBe('INVALID_ARGUMENT');
    }
    expect((await rejection(t.store.lease('ns', 'a\u0000', { ttlMs: 1 }))).code).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('close() leaves no connection, socket or timer behind', async () => {
    await using _guard = leakGuard();
    const store = await open();
    await store.set('ns', 'k', 1);
    const lease = await store.lease('ns', 'k', { ttlMs: 60_000 });
    using _watching = store.watch('ns', () => {});
    await store.close();
    expect(lease.held).toBe(false);
    expect((await rejection(store.get('ns', 'k'))).code).toBe('STATE_CLOSED');
    expect(() => store.watch('ns', () => {})).toThrow(/closed/);
  });
});

describe('PostgresStateStore: migrations', () => {
  it('are applied once: a second open finds the schema current', async () => {
    const schema = freshSchema();
    await (await open({ schema })).close();
    await (await open({ schema })).close();
    const rows = await sql<{ version: number }>(
      `SELECT version FROM ${schema}.schema_migrations ORDER BY version`,
    );
    expect(rows.map((row) => row.version)).toEqual(
      Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, i) => i + 1),
    );
  });

  it('3 instances opened at once on a fresh database: all open, each migration applied once', async () => {
    const database = await postgres.cluster().createDatabase();
    const stores = await Promise.all(
      [1, 2, 3].map(() => PostgresStateStore.open({ connectionString: database })),
    );
    try {
      await stores[0]!.set('ns', 'k', 'shared');
      for (const store of stores) expect(await store.get('ns', 'k')).toBe('shared');
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
    const rows = await sql<{ version: number }>(
      'SELECT version FROM mcp_host.schema_migrations ORDER BY version',
      [],
      database,
    );
    expect(rows).toHaveLength(POSTGRES_SCHEMA_VERSION);
  });

  it('a schema written by a newer mcp-host: STATE_VERSION_UNSUPPORTED naming both versions', async () => {
    const schema = freshSchema();
    await (await open({ schema })).close();
    const newer = POSTGRES_SCHEMA_VERSION + 1;
    await sql(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, 'future')`, [
      newer,
    ]);
    const error = await rejection(open({ schema }));
    expect(error.code).toBe('STATE_VERSION_UNSUPPORTED');
    expect(error.message).toContain(`version ${newer}`);
    expect(error.message).toContain(`up to ${POSTGRES_SCHEMA_VERSION}`);
    expect(error.details).toMatchObject({ schema, version: newer });
  });
});

describe('PostgresStateStore: failures', () => {
  it('an unreachable server: STATE_IO_FAILED naming host:port/database, never the password', async () => {
    await using _guard = leakGuard();
    const password = 'pg-canary-s3cret-9f2c';
    // The cluster's own port with nothing behind it once stopped would race; a closed port:
    const port = await closedPort();
    const logger = testLogger();
    const error = await rejection(
      PostgresStateStore.open({
        connectionString: `postgresql://mcp:${password}@127.0.0.1:${port}/fleet`,
        logger,
        connectTimeoutMs: 5_000,
      }),
    );
    expect(error.code).toBe('STATE_IO_FAILED');
    expect(error.message).toContain(`'127.0.0.1:${port}/fleet'`);
    expect(error.details).toMatchObject({ host: '127.0.0.1', port, database: 'fleet' });
    for (const shown of [
      error.message,
      JSON.stringify(error),
      inspect(error, { depth: 5 }),
      JSON.stringify(logger.warnings),
    ])
      expect(shown).not.toContain(password);
  });

  it('refuses bad options with INVALID_ARGUMENT, without quoting the connection string', async () => {
    for (const options of [
      { connectionString: '' },
      { connectionString: 'mysql://user:pw-canary-1@h/db' },
      { connectionString: postgres.url(), schema: 'Bad-Schema' },
      { connectionString: postgres.url(), maxConnections: 0 },
    ]) {
      const error = await rejection(PostgresStateStore.open(options));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).not.toContain('pw-canary-1');
    }
  });
});

function closedPort(): Promise<number> {
  return import('node:net').then(
    ({ createServer }) =>
      new Promise((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => {
          const address = server.address();
          server.close(() => resolve(typeof address === 'object' && address ? address.port : 1));
        });
      }),
  );
}
