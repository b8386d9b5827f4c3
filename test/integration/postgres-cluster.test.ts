/** The throwaway PostgreSQL cluster the PostgreSQL tests use: starts, serves, stops, leaves nothing. */
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../helpers/leak-guard.js';
import { startPostgres } from '../helpers/postgres-cluster.js';

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('startPostgres', () => {
  it('runs a server on 127.0.0.1 with separate databases, and stop() removes it all', async () => {
    await using _guard = leakGuard();
    const cluster = await startPostgres();
    try {
      expect(cluster.url).toMatch(/^postgresql:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
      const url = await cluster.createDatabase();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query<{ db: string; addr: string }>(
        'SELECT current_database() AS db, inet_server_addr()::text AS addr',
      );
      await client.end();
      expect(url.endsWith(`/${rows[0]!.db}`)).toBe(true);
      expect(rows[0]!.addr).toBe('127.0.0.1/32');
      expect(existsSync(cluster.dataDir)).toBe(true);
    } finally {
      await cluster.stop();
    }
    await cluster.stop(); // idempotent
    expect(existsSync(cluster.dataDir)).toBe(false);
    expect(await refused(cluster.port)).toBe(true);
  });
});
