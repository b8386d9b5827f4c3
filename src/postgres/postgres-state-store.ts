/**
 * A `StateStore` in PostgreSQL, shared by every process (gateway replica, host, CLI) that opens the
 * same database and schema: values, leases and change notifications (Node only; needs `pg`).
 *
 * - `open()` connects, applies the schema's migrations (migrations.ts: versioned, under an advisory
 *   lock, so replicas starting at once do not race) and starts listening; it fails, typed, when
 *   the server cannot be reached (`STATE_IO_FAILED` naming host, port and database, never the
 *   password) or the schema is newer than this code (`STATE_VERSION_UNSUPPORTED`).
 * - Values: `<schema>.state_values (namespace, key, value)`, the value as the same canonical JSON
 *   text the other stores keep. Every write is one transaction that takes a transaction-level
 *   advisory lock on (namespace, key), reads, writes and sends `pg_notify` (delivered on commit):
 *   writes of one key, from any process, run one after another; reads take no lock.
 * - Leases: `<schema>.leases (namespace, key, generation, holder, holder_pid, holder_host,
 *   expires_at)`. A grant is one `INSERT … ON CONFLICT DO UPDATE … WHERE holder IS NULL OR
 *   expires_at <= now()` that adds one to the generation; a release clears the holder only while it
 *   is still ours and notifies. Expiry uses the database's clock; the holder's `expiresAt` and
 *   `signal` count from just before its grant, so they end no later than the database's.
 *   Waiters are woken by the release's notification (any process) and poll as a fallback.
 * - Watch: one listening connection per store (change-feed.ts) receives every write's
 *   notification, this store's own included, and calls the namespace's watchers. After that
 *   connection dropped and came back, every watcher is called once for every key its namespace
 *   holds then (a key deleted meanwhile is not reported), and lease waiters poll as usual.
 * - Namespace and key: besides the usual checks, no NUL character or lone surrogate (PostgreSQL
 *   text cannot hold them), at most 2,000 bytes together (the index) and 7,000 escaped as JSON (the
 *   notification): `INVALID_ARGUMENT`.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { McpHostError } from '../errors/mcp-host-error.js';
import { addSecret } from '../errors/redact.js';
import { debugLogger } from '../internal/debug-logger.js';
import type { Logger } from '../internal/logger.js';
import {
  acquireLease,
  checkLeaseOptions,
  grantedLease,
  LeaseWakeups,
  type Lease,
  type LeaseAttempt,
  type LeaseOptions,
} from '../state/lease.js';
import {
  checkNamespace,
  checkStateKey,
  stateClosedError,
  toStoredJson,
  type StateStore,
} from '../state/state-store.js';
import { StateWatchers } from '../state/state-watchers.js';
import { ChangeFeed } from './change-feed.js';
import { migrate, quoteIdentifier } from './migrations.js';
import { parsePostgresTarget, toStoreError, type PostgresTarget } from './postgres-target.js';

export const DEFAULT_POSTGRES_SCHEMA = 'mcp_host';
export const DEFAULT_POSTGRES_MAX_CONNECTIONS = 10;
export const DEFAULT_POSTGRES_CONNECT_TIMEOUT_MS = 10_000;
/** The server-side bound of one statement (`statement_timeout`). */
const STATEMENT_TIMEOUT_MS = 30_000;
/** Namespace and key together, in UTF-8 bytes: well within a btree index entry. */
const MAX_NAME_BYTES = 2_000;
const MAX_NOTIFY_NAME_BYTES = 7_000;

export interface PostgresStateStoreOptions {
  /**
   * `postgres://user:password@host:port/database` or libpq `key=value` pairs. A secret: its
   * password is registered with the redactor and never appears in errors or logs.
   */
  connectionString: string;
  /** The schema the store's tables live in (created when missing; default `mcp_host`). */
  schema?: string;
  /** Shown in `pg_stat_activity` (default `mcp-host`; the listening connection adds ` listen`). */
  applicationName?: string;
  /** Pool size for queries (default 10), plus one listening connection. */
  maxConnections?: number;
  /** How long to wait for a new connection (default 10 s). */
  connectTimeoutMs?: number;
  /** Receives connection warnings. Default: `NODE_DEBUG=mcp-host`. */
  logger?: Logger;
}

interface Internals {
  pool: pg.Pool;
  sockets: () => Promise<void>;
  target: PostgresTarget;
  schema: string;
  logger: Logger;
  secrets: Array<{ [Symbol.dispose](): void }>;
}

export class PostgresStateStore implements StateStore, AsyncDisposable {
  /** The schema the tables live in. */
  readonly schema: string;
  /** `PostgreSQL state store '<host>:<port>/<database>'`, for messages. */
  readonly where: string;
  readonly #pool: pg.Pool;
  readonly #sockets: () => Promise<void>;
  readonly #target: PostgresTarget;
  readonly #logger: Logger;
  readonly #secrets: Array<{ [Symbol.dispose](): void }>;
  readonly #tables: { values: string; leases: string };
  readonly #channel: string;
  readonly #feed: ChangeFeed;
  readonly #watchers = new StateWatchers();
  readonly #wakeups = new LeaseWakeups();
  readonly #heldLeases = new Set<Lease>();
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #closing = new AbortController();
  #closed: Promise<void> | undefined;

  /**
   * Connects to the database, creates or migrates the schema and starts listening for changes.
   * Fails with `INVALID_ARGUMENT` (bad options), `STATE_IO_FAILED` (cannot connect or query) or
   * `STATE_VERSION_UNSUPPORTED` (the schema is newer than this code).
   */
  static async open(options: PostgresStateStoreOptions): Promise<PostgresStateStore> {
    const target = parsePostgresTarget(options?.connectionString);
    const secrets = target.secrets.map((secret) => addSecret(secret));
    const schema = options.schema ?? DEFAULT_POSTGRES_SCHEMA;
    const dispose = (): void => secrets.forEach((secret) => secret[Symbol.dispose]());
    try {
      if (typeof schema !== 'string' || !/^[a-z_][a-z0-9_]{0,46}$/.test(schema))
        throw new McpHostError(
          'INVALID_ARGUMENT',
          `${target.where}: schema must be a lower-case SQL name (letters, digits, _; at most 47)`,
        );
      const maxConnections = options.maxConnections ?? DEFAULT_POSTGRES_MAX_CONNECTIONS;
      if (!Number.isInteger(maxConnections) || maxConnections < 1)
        throw new McpHostError(
          'INVALID_ARGUMENT',
          `${target.where}: maxConnections must be an integer ≥ 1`,
        );
      const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_POSTGRES_CONNECT_TIMEOUT_MS;
      if (!Number.isFinite(connectTimeoutMs) || connectTimeoutMs < 1)
        throw new McpHostError(
          'INVALID_ARGUMENT',
          `${target.where}: connectTimeoutMs must be a finite number ≥ 1`,
        );
      const applicationName = options.applicationName ?? 'mcp-host';
      const logger = options.logger ?? debugLogger;
      const config = {
        connectionString: options.connectionString,
        application_name: applicationName,
        connectionTimeoutMillis: connectTimeoutMs,
        statement_timeout: STATEMENT_TIMEOUT_MS,
        // TCP keep-alive: a server that vanished without a reset is noticed, not waited on forever.
        keepAlive: true,
      };
      const pool = new pg.Pool({ ...config, max: maxConnections, idleTimeoutMillis: 10_000 });
      const sockets = poolSockets(pool);
      // An idle connection that breaks reports here; the next query gets a fresh one.
      pool.on('error', (error) =>
        logger.warn(`${target.where}: an idle connection failed`, {
          reason: toStoreError(target, 'idle', error).message,
        }),
      );
      try {
        const client = await pool.connect().catch((error: unknown) => {
          throw toStoreError(target, 'connect', error);
        });
        try {
          await migrate(client, schema, target.where);
        } catch (error) {
          throw toStoreError(target, 'migrate', error);
        } finally {
          client.release();
        }
        const store = new PostgresStateStore(
          { pool, sockets, target, schema, logger, secrets },
          { ...config, application_name: `${applicationName} listen` },
        );
        await store.#feed.start();
        return store;
      } catch (error) {
        await pool.end().catch(() => {});
        await sockets();
        throw error;
      }
    } catch (error) {
      dispose();
      throw error;
    }
  }

  private constructor(internals: Internals, listenConfig: pg.ClientConfig) {
    this.#pool = internals.pool;
    this.#sockets = internals.sockets;
    this.#target = internals.target;
    this.#logger = internals.logger;
    this.#secrets = internals.secrets;
    this.schema = internals.schema;
    this.where = internals.target.where;
    const s = quoteIdentifier(internals.schema);
    this.#tables = { values: `${s}.state_values`, leases: `${s}.leases` };
    this.#channel = `${internals.schema}_changes`;
    this.#feed = new ChangeFeed({
      config: listenConfig,
      channel: this.#channel,
      target: internals.target,
      logger: internals.logger,
      onNotification: (payload) => this.#notified(payload),
      onReconnected: () => void this.#announceAll(),
    });
  }

  get<T = unknown>(namespace: string, key: string): Promise<T | undefined> {
    return this.#run('get', async () => {
      this.#checkKey(namespace, key);
      const { rows } = await this.#pool.query<{ value: string }>(
        `SELECT value FROM ${this.#tables.values} WHERE namespace = $1 AND key = $2`,
        [namespace, key],
      );
      const text = rows[0]?.value;
      return text === undefined ? undefined : (JSON.parse(text) as T);
    });
  }

  async set(namespace: string, key: string, value: unknown): Promise<void> {
    await this.update(namespace, key, () => value);
  }

  async delete(namespace: string, key: string): Promise<void> {
    await this.update(namespace, key, () => undefined);
  }

  update<T = unknown>(
    namespace: string,
    key: string,
    fn: (current: T | undefined) => T | undefined,
  ): Promise<T | undefined> {
    return this.#run('update', async () => {
      this.#checkKey(namespace, key);
      const client = await this.#pool.connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [
          namespace,
          key,
        ]);
        const { rows } = await client.query<{ value: string }>(
          `SELECT value FROM ${this.#tables.values} WHERE namespace = $1 AND key = $2`,
          [namespace, key],
        );
        const current = rows[0]?.value;
        let text: string | undefined;
        try {
          text = toStoredJson(
            namespace,
            key,
            fn(current === undefined ? undefined : (JSON.parse(current) as T)),
          );
        } catch (error) {
          await client.query('ROLLBACK');
          throw new CallerError(error);
        }
        const payload = JSON.stringify({ t: 'value', n: namespace, k: key });
        if (text === undefined)
          await client.query(
            `WITH gone AS (DELETE FROM ${this.#tables.values} WHERE namespace = $1 AND key = $2)
             SELECT pg_notify($3, $4)`,
            [namespace, key, this.#channel, payload],
          );
        else
          await client.query(
            `WITH written AS (
               INSERT INTO ${this.#tables.values} (namespace, key, value) VALUES ($1, $2, $3)
               ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now())
             SELECT pg_notify($4, $5)`,
            [namespace, key, text, this.#channel, payload],
          );
        await client.query('COMMIT');
        return text === undefined ? undefined : (JSON.parse(text) as T);
      } catch (error) {
        if (error instanceof CallerError) throw error; // rolled back already
        await client.query('ROLLBACK').catch(() => void (broken = true));
        throw error;
      } finally {
        client.release(broken);
      }
    });
  }

  entries(namespace: string): Promise<Array<[string, unknown]>> {
    return this.#run('entries', async () => {
      checkNamespace(namespace);
      this.#checkKey(namespace, '-');
      const { rows } = await this.#pool.query<{ key: string; value: string }>(
        `SELECT key, value FROM ${this.#tables.values} WHERE namespace = $1`,
        [namespace],
      );
      const values = new Map(rows.map((row) => [row.key, row.value]));
      // Sorted here, by UTF-16 code units as the other stores do (SQL collations differ).
      return [...values.keys()]
        .sort()
        .map((key): [string, unknown] => [key, JSON.parse(values.get(key)!) as unknown]);
    });
  }

  /** Calls `listener` with the key after each write of `namespace`, by any process (see above). */
  watch(namespace: string, listener: (key: string) => void): Disposable {
    checkNamespace(namespace);
    if (this.#closed !== undefined) throw stateClosedError(this.where);
    return this.#watchers.add(namespace, listener);
  }

  async lease(namespace: string, key: string, options: LeaseOptions): Promise<Lease> {
    if (this.#closed !== undefined) throw stateClosedError(this.where);
    checkStateKey(namespace, key);
    this.#checkKey(namespace, key);
    const { ttlMs, timeoutMs } = checkLeaseOptions(options);
    const wakeName = JSON.stringify([namespace, key]);
    const token = randomUUID();
    const { generation, expiresAt } = await acquireLease({
      namespace,
      key,
      where: this.where,
      timeoutMs,
      signal: options.signal,
      closing: { signal: this.#closing.signal, error: () => stateClosedError(this.where) },
      wakeName,
      wakeups: this.#wakeups,
      poll: true,
      attempt: () => this.#run('lease', () => this.#attemptLease(namespace, key, token, ttlMs)),
    });
    if (this.#closed !== undefined) {
      // Granted just as the store began to close: give it back, the caller gets nothing.
      await this.#releaseLease(namespace, key, token);
      throw stateClosedError(this.where);
    }
    const lease = grantedLease(namespace, key, generation, expiresAt, async () => {
      this.#heldLeases.delete(lease);
      await this.#releaseLease(namespace, key, token);
      this.#wakeups.notify(wakeName);
    });
    this.#heldLeases.add(lease);
    return lease;
  }

  /** One atomic grant; refused, it says when the current hold ends and by which process. */
  async #attemptLease(
    namespace: string,
    key: string,
    token: string,
    ttlMs: number,
  ): Promise<LeaseAttempt> {
    const sentAt = Date.now();
    const { rows } = await this.#pool.query<{
      generation: string | null;
      holder_pid: number | null;
      remaining_ms: number | null;
    }>(
      `WITH granted AS (
         INSERT INTO ${this.#tables.leases} AS l
           (namespace, key, generation, holder, holder_pid, holder_host, expires_at)
         VALUES ($1, $2, 1, $3, $4, $5, now() + make_interval(secs => $6::float8 / 1000))
         ON CONFLICT (namespace, key) DO UPDATE
           SET generation = l.generation + 1, holder = EXCLUDED.holder,
               holder_pid = EXCLUDED.holder_pid, holder_host = EXCLUDED.holder_host,
               expires_at = EXCLUDED.expires_at
           WHERE l.holder IS NULL OR l.expires_at <= now()
         RETURNING generation)
       SELECT (SELECT generation FROM granted) AS generation, l.holder_pid,
              GREATEST(0, EXTRACT(EPOCH FROM (l.expires_at - now())) * 1000)::float8 AS remaining_ms
         FROM (SELECT 1) AS one
         LEFT JOIN ${this.#tables.leases} AS l ON l.namespace = $1 AND l.key = $2`,
      [namespace, key, token, process.pid, hostname(), ttlMs],
    );
    const row = rows[0];
    if (row?.generation !== null && row?.generation !== undefined) {
      if (this.#closed !== undefined) {
        // Granted while the store closed: give it back at once, the waiter fails.
        await this.#releaseLease(namespace, key, token);
        throw stateClosedError(this.where);
      }
      return { granted: true, generation: Number(row.generation), expiresAt: sentAt + ttlMs };
    }
    return {
      granted: false,
      expiresAt: Date.now() + (row?.remaining_ms ?? 0),
      ...(row?.holder_pid === null || row?.holder_pid === undefined
        ? {}
        : { holderPid: row.holder_pid }),
    };
  }

  /** Clears the holder if it is still `token`, and wakes waiters everywhere. Never throws. */
  async #releaseLease(namespace: string, key: string, token: string): Promise<void> {
    try {
      await this.#pool.query(
        `WITH released AS (
           UPDATE ${this.#tables.leases} SET holder = NULL, holder_pid = NULL, holder_host = NULL,
                  expires_at = NULL
            WHERE namespace = $1 AND key = $2 AND holder = $3 RETURNING 1)
         SELECT pg_notify($4, $5) FROM released`,
        [
          namespace,
          key,
          token,
          this.#channel,
          JSON.stringify({ t: 'lease', n: namespace, k: key }),
        ],
      );
    } catch (error) {
      // It lapses after its ttlMs instead.
      this.#logger.warn(`${this.where}: releasing the lease '${namespace}/${key}' failed`, {
        reason: toStoreError(this.#target, 'release', error).message,
      });
    }
  }

  /** A notification from the listening connection: a write (tell watchers) or a release. */
  #notified(payload: string): void {
    let message: { t?: unknown; n?: unknown; k?: unknown };
    try {
      message = JSON.parse(payload) as typeof message;
    } catch {
      return;
    }
    if (typeof message.n !== 'string' || typeof message.k !== 'string') return;
    if (message.t === 'lease') this.#wakeups.notify(JSON.stringify([message.n, message.k]));
    else if (message.t === 'value') this.#watchers.tell(message.n, [message.k]);
  }

  /** After the listening connection came back: every watched key may have changed meanwhile. */
  async #announceAll(): Promise<void> {
    for (const namespace of this.#watchers.namespaces) {
      try {
        const entries = await this.entries(namespace);
        this.#watchers.tell(
          namespace,
          entries.map(([key]) => key),
        );
      } catch {
        return; // closed or unreachable again: the next reconnect tries again
      }
    }
  }

  /** Refuses new operations at once, waits for those under way, releases held leases. Idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#closing.abort();
      while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
      await Promise.allSettled([...this.#heldLeases].map((lease) => lease.release()));
      this.#watchers.clear();
      await this.#feed.close();
      await this.#pool.end().catch(() => {});
      await this.#sockets(); // pool.end() resolves before its connections' sockets are closed
      for (const secret of this.#secrets) secret[Symbol.dispose]();
    })();
    return this.#closed;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** PostgreSQL text holds no NUL and no lone surrogate; the primary key bounds the size. */
  #checkKey(namespace: string, key: string): void {
    checkStateKey(namespace, key);
    // eslint-disable-next-line no-control-regex
    const unstorable = /\u0000|\p{Cs}/u;
    if (unstorable.test(namespace) || unstorable.test(key))
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `${this.where}: a namespace or key holds a NUL character or a lone surrogate, which PostgreSQL cannot store`,
      );
    if (
      Buffer.byteLength(namespace) + Buffer.byteLength(key) > MAX_NAME_BYTES ||
      // The notification names both, JSON-escaped, within NOTIFY's 8,000 bytes.
      Buffer.byteLength(JSON.stringify([namespace, key])) > MAX_NOTIFY_NAME_BYTES
    )
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `${this.where}: namespace and key are longer than ${MAX_NAME_BYTES} bytes together (or 7,000 escaped as JSON)`,
      );
  }

  /** Runs an operation unless closed; tracked for close(); failures typed. */
  #run<R>(operation: string, task: () => Promise<R>): Promise<R> {
    if (this.#closed !== undefined) return Promise.reject(stateClosedError(this.where));
    const running = task().catch((error: unknown) => {
      if (error instanceof CallerError) throw error.error;
      throw toStoreError(this.#target, operation, error);
    });
    this.#inFlight.add(running);
    const forget = (): void => void this.#inFlight.delete(running);
    running.then(forget, forget);
    return running;
  }
}

/** Carries the update function's own error out of the transaction, to be passed on untouched. */
class CallerError extends Error {
  constructor(readonly error: unknown) {
    super('the update function failed');
  }
}

/**
 * Follows the pool's connections until their sockets close: the returned function resolves once
 * every connection the pool made has ended (the pool's `remove` comes after the socket's close).
 */
function poolSockets(pool: pg.Pool): () => Promise<void> {
  const open = new Set<pg.PoolClient>();
  let wake: (() => void) | undefined;
  pool.on('connect', (client) => open.add(client));
  pool.on('remove', (client) => {
    open.delete(client);
    if (open.size === 0) wake?.();
  });
  return () =>
    open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (wake = resolve));
}
