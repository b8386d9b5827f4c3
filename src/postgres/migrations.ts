/**
 * The PostgreSQL state store's schema, as numbered migrations applied in order by
 * `PostgresStateStore.open()`. The table `<schema>.schema_migrations` records each version applied
 * (version, name, when). All of it runs in one transaction under a transaction-level advisory
 * lock keyed by the schema name, so replicas that start at once queue up: the first applies what
 * is missing, the others then find nothing to do. A database whose highest version is above the
 * code's (written by a newer mcp-host) is refused with `STATE_VERSION_UNSUPPORTED` and left as it
 * is. A migration is never edited once released: a change is a new migration.
 */
import type pg from 'pg';
import { McpHostError } from '../errors/mcp-host-error.js';

/** One step of the schema. `sql` gets the quoted schema name. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: (schema: string) => readonly string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'values and leases',
    sql: (s) => [
      // Values as the canonical JSON text every store keeps (byte-equal with the file store's).
      `CREATE TABLE ${s}.state_values (
         namespace text NOT NULL,
         key text NOT NULL,
         value text NOT NULL,
         updated_at timestamptz NOT NULL DEFAULT now(),
         PRIMARY KEY (namespace, key))`,
      // One row per lease ever taken: its generation survives releases.
      `CREATE TABLE ${s}.leases (
         namespace text NOT NULL,
         key text NOT NULL,
         generation bigint NOT NULL,
         holder text,
         holder_pid integer,
         holder_host text,
         expires_at timestamptz,
         PRIMARY KEY (namespace, key))`,
    ],
  },
];

/** The schema version this code writes, and the highest it reads. */
export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/**
 * Brings `schema` up to `POSTGRES_SCHEMA_VERSION` on `client` (a connection of its own, not in a
 * transaction). Returns the versions it applied (none when the schema was current).
 */
export async function migrate(
  client: pg.ClientBase,
  schema: string,
  where: string,
): Promise<number[]> {
  const s = quoteIdentifier(schema);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `mcp-host migrations ${schema}`,
    ]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
         version integer PRIMARY KEY,
         name text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      `SELECT max(version) AS version FROM ${s}.schema_migrations`,
    );
    const current = rows[0]?.version ?? 0;
    if (current > POSTGRES_SCHEMA_VERSION)
      throw new McpHostError(
        'STATE_VERSION_UNSUPPORTED',
        `${where}: schema '${schema}' is at version ${current}, written by a newer mcp-host; this one knows versions up to ${POSTGRES_SCHEMA_VERSION}. Upgrade mcp-host; the database was left as it is`,
        { details: { schema, version: current, supportedVersion: POSTGRES_SCHEMA_VERSION } },
      );
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      for (const statement of migration.sql(s)) await client.query(statement);
      await client.query(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** `name` as a quoted SQL identifier. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
