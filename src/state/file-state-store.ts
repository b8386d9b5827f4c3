/**
 * A `StateStore` in one JSON file, safe to share between processes (Node only).
 *
 * File format, version 1 (pretty-printed, namespaces and keys sorted):
 * `{ "version": 1, "namespaces": { "<namespace>": { "<key>": <value> } } }`. Unknown top-level
 * members are kept as they are.
 *
 * - Every change (`set`, `delete`, `update`) takes the exclusive lock `<file>.lock` (see
 *   file-lock.ts), reads the file again under it (another process may have changed it), applies
 *   the change and writes a temporary file in the same directory (`<file>.<pid>.<random>.tmp`,
 *   flushed to disk) that then replaces the file with one `rename`: a reader sees the old file or
 *   the new one, never half of one. Operations of one process on one file also queue in memory,
 *   so they never poll for a lock their own process holds.
 * - Reads (`get`, `entries`) take no lock, thanks to the atomic rename. They read the file each
 *   time: no cache, so a change by another process is seen at once.
 * - The file is created with mode 0600 and any directory created for it with mode 0700; every
 *   write replaces the file, so it is 0600 after the first write even if it was not before.
 * - Leases (`lease()`) are kept in the top-level member `leases`
 *   (`{ "<namespace>": { "<key>": { "generation": n, "holder"?: { token, pid, hostname,
 *   expiresAt } } } }`), changed under the same lock as values: a grant is one locked
 *   read-modify-write. Waiters first look without the lock, poll with a pause growing from 5 ms
 *   to 200 ms, and are woken at once by a release in their own process. A holder that is a dead
 *   process on this host is taken over at once; any other holder once its `expiresAt` is past
 *   (clocks of hosts sharing a file over a network file system must agree).
 * - A file written by a newer mcp-host (`version` above 1) is refused (`STATE_VERSION_UNSUPPORTED`)
 *   and never written.
 * - A corrupt file (not JSON, or not this shape) is never overwritten. By default
 *   (`corruptFile: 'quarantine'`) the first operation that meets it takes the lock, reads it again
 *   and, if still corrupt, renames it to `<file>.corrupt-<timestamp>-<pid>` (kept for inspection or
 *   repair; nothing is deleted), logs a warning naming both paths, and carries on with an empty
 *   state. Losing remembered eras, pins or tokens costs a re-negotiation, a re-pin or a login;
 *   refusing to run until someone edits a file by hand costs more. With `corruptFile: 'fail'`
 *   every operation fails with `STATE_CORRUPT` instead and the file stays where it is.
 */
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { McpHostError } from '../errors/mcp-host-error.js';
import { debugLogger } from '../internal/debug-logger.js';
import type { Logger } from '../internal/logger.js';
import { delay } from '../internal/wait.js';
import { canonicalJson } from './canonical-json.js';
import { defaultStatePath } from './default-state-dir.js';
import {
  acquireFileLock,
  errnoOf,
  isProcessAlive,
  randomToken,
  stateIoError,
} from './file-lock.js';
import {
  acquireLease,
  checkLeaseOptions,
  grantedLease,
  LeaseWakeups,
  type Lease,
  type LeaseAttempt,
  type LeaseOptions,
} from './lease.js';
import {
  checkNamespace,
  checkStateKey,
  stateClosedError,
  toStoredJson,
  type StateStore,
} from './state-store.js';

/** The format version this code writes, and the highest it reads. */
export const STATE_FILE_VERSION = 1;
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
export const DEFAULT_STALE_LOCK_MS = 30_000;

export interface FileStateStoreOptions {
  /**
   * The state file. Default: `<defaultStateDir()>/state.json`. A relative path is resolved against
   * the working directory once, when the store is made.
   */
  path?: string;
  /** How long a change waits for the lock held by another process (default 10 s). */
  lockTimeoutMs?: number;
  /** A lock older than this, or whose process on this host is dead, is broken (default 30 s). */
  staleLockMs?: number;
  /** What to do with a corrupt state file (default `quarantine`: move it aside, start empty). */
  corruptFile?: 'quarantine' | 'fail';
  /** Receives the corrupt-file and stale-lock warnings. Default: `NODE_DEBUG=mcp-host`. */
  logger?: Logger;
}

/** The state file, parsed. */
interface StateDocument {
  namespaces: Map<string, Map<string, unknown>>;
  /** Top-level members other than `version` and `namespaces`, kept as found. */
  extra: Map<string, unknown>;
}

/** One lease as the file keeps it. */
interface LeaseRecord {
  generation: number;
  holder?: { token: string; pid: number; hostname: string; expiresAt: number };
}

/** Releases in this process wake the waiters of every store on the same file. */
const leaseWakeups = new LeaseWakeups();

/** One queue per file, so that a process never competes with itself for the file lock. */
const queues = new Map<string, Promise<void>>();

function enqueue<R>(path: string, task: () => Promise<R>): Promise<R> {
  const run = (queues.get(path) ?? Promise.resolve()).then(task);
  const tail = run.then(
    () => {},
    () => {},
  );
  queues.set(path, tail);
  void tail.then(() => {
    if (queues.get(path) === tail) queues.delete(path);
  });
  return run;
}

export class FileStateStore implements StateStore, AsyncDisposable {
  /** The state file, absolute. */
  readonly path: string;
  /** The lock file: `<path>.lock`. */
  readonly lockPath: string;
  readonly #lockTimeoutMs: number;
  readonly #staleLockMs: number;
  readonly #corruptFile: 'quarantine' | 'fail';
  readonly #logger: Logger;
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #heldLeases = new Set<Lease>();
  readonly #closing = new AbortController();
  #closed = false;

  constructor(options: FileStateStoreOptions = {}) {
    this.path = resolve(options.path ?? defaultStatePath());
    this.lockPath = `${this.path}.lock`;
    this.#lockTimeoutMs = checkMs(
      'lockTimeoutMs',
      options.lockTimeoutMs,
      DEFAULT_LOCK_TIMEOUT_MS,
      0,
    );
    this.#staleLockMs = checkMs('staleLockMs', options.staleLockMs, DEFAULT_STALE_LOCK_MS, 1);
    const corruptFile = options.corruptFile ?? 'quarantine';
    if (corruptFile !== 'quarantine' && corruptFile !== 'fail')
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `FileStateStore: corruptFile must be 'quarantine' or 'fail'`,
      );
    this.#corruptFile = corruptFile;
    this.#logger = options.logger ?? debugLogger;
  }

  get<T = unknown>(namespace: string, key: string): Promise<T | undefined> {
    return this.#track(async () => {
      checkStateKey(namespace, key);
      const document = await this.#read();
      return document.namespaces.get(namespace)?.get(key) as T | undefined;
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
    return this.#track(async () => {
      checkStateKey(namespace, key);
      return this.#locked((document) => {
        const values = document.namespaces.get(namespace);
        const current = values?.get(key);
        const before = canonicalOrNull(current);
        const after = toStoredJson(namespace, key, fn(current as T | undefined));
        if (after === before) return { result: current as T | undefined, changed: false };
        if (after === undefined) {
          values?.delete(key);
          if (values?.size === 0) document.namespaces.delete(namespace);
          return { result: undefined, changed: true };
        }
        const stored = JSON.parse(after) as T;
        if (values === undefined) document.namespaces.set(namespace, new Map([[key, stored]]));
        else values.set(key, stored);
        // The caller gets its own copy: the document is about to be written, not shared.
        return { result: JSON.parse(after) as T, changed: true };
      });
    });
  }

  entries(namespace: string): Promise<Array<[string, unknown]>> {
    return this.#track(async () => {
      checkNamespace(namespace);
      const values = (await this.#read()).namespaces.get(namespace);
      if (values === undefined) return [];
      return [...values.keys()].sort().map((key): [string, unknown] => [key, values.get(key)]);
    });
  }

  async lease(namespace: string, key: string, options: LeaseOptions): Promise<Lease> {
    if (this.#closed) throw stateClosedError(`state file '${this.path}'`);
    checkStateKey(namespace, key);
    const { ttlMs, timeoutMs } = checkLeaseOptions(options);
    const token = await randomToken();
    const wakeName = JSON.stringify([this.path, namespace, key]);
    const { generation, expiresAt } = await acquireLease({
      namespace,
      key,
      where: `state file '${this.path}'`,
      timeoutMs,
      signal: options.signal,
      closing: {
        signal: this.#closing.signal,
        error: () => stateClosedError(`state file '${this.path}'`),
      },
      wakeName,
      wakeups: leaseWakeups,
      poll: true,
      attempt: () => this.#track(() => this.#tryLease(namespace, key, token, ttlMs)),
    });
    const lease = grantedLease(namespace, key, generation, expiresAt, async () => {
      this.#heldLeases.delete(lease);
      try {
        await this.#locked((document) => {
          const leases = readLeases(document);
          const record = leases.get(namespace)?.get(key);
          if (record?.holder?.token !== token) return { result: undefined, changed: false };
          leases.get(namespace)!.set(key, { generation: record.generation });
          writeLeases(document, leases);
          return { result: undefined, changed: true };
        });
      } finally {
        leaseWakeups.notify(wakeName);
      }
    });
    this.#heldLeases.add(lease);
    return lease;
  }

  /** Refuses new operations at once (`STATE_CLOSED`), releases the leases it holds, and waits for those under way. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    // Released in the queue before it is shut: another process need not wait for their expiry.
    const releases = [...this.#heldLeases].map((lease) => lease.release().catch(() => {}));
    await Promise.allSettled([...this.#inFlight, ...releases]);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #track<R>(operation: () => Promise<R>): Promise<R> {
    if (this.#closed) return Promise.reject(stateClosedError(`state file '${this.path}'`));
    const promise = operation();
    this.#inFlight.add(promise);
    const forget = (): void => void this.#inFlight.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  /** One attempt to take a lease: a look without the lock, then a grant under it. */
  async #tryLease(
    namespace: string,
    key: string,
    token: string,
    ttlMs: number,
  ): Promise<LeaseAttempt> {
    if (this.#closed) throw stateClosedError(`state file '${this.path}'`);
    const busy = leaseBusy(
      readLeases(await this.#read())
        .get(namespace)
        ?.get(key),
    );
    if (busy !== undefined) return busy;
    return this.#locked((document): { result: LeaseAttempt; changed: boolean } => {
      const leases = readLeases(document);
      const record = leases.get(namespace)?.get(key);
      const stillBusy = leaseBusy(record);
      if (stillBusy !== undefined) return { result: stillBusy, changed: false };
      const generation = (record?.generation ?? 0) + 1;
      const expiresAt = Date.now() + ttlMs;
      const holder = { token, pid: process.pid, hostname: hostname(), expiresAt };
      let table = leases.get(namespace);
      if (table === undefined) leases.set(namespace, (table = new Map<string, LeaseRecord>()));
      table.set(key, { generation, holder });
      writeLeases(document, leases);
      return { result: { granted: true, generation, expiresAt }, changed: true };
    });
  }

  /** The current state, read without the lock (writes are atomic renames). */
  async #read(): Promise<StateDocument> {
    const text = await this.#readText();
    if (text === undefined) return emptyDocument();
    try {
      return parseStateFile(text, this.path);
    } catch (error) {
      if (!(error instanceof McpHostError) || error.code !== 'STATE_CORRUPT') throw error;
      if (this.#corruptFile === 'fail') throw error;
      // Quarantine under the lock, where the file is read again: someone may have fixed it.
      return this.#locked((document) => ({ result: document, changed: false }));
    }
  }

  /** Runs a read-modify-write under this process's queue and the file lock. */
  #locked<R>(change: (document: StateDocument) => { result: R; changed: boolean }): Promise<R> {
    return enqueue(this.path, async () => {
      await this.#ensureDirectory();
      const lock = await acquireFileLock(this.lockPath, {
        timeoutMs: this.#lockTimeoutMs,
        staleMs: this.#staleLockMs,
        logger: this.#logger,
        guardedPath: this.path,
      });
      try {
        const document = await this.#readUnderLock();
        const { result, changed } = change(document);
        if (changed) await this.#writeAtomically(serializeStateFile(document));
        return result;
      } finally {
        await lock.release();
      }
    });
  }

  async #readUnderLock(): Promise<StateDocument> {
    const text = await this.#readText();
    if (text === undefined) return emptyDocument();
    try {
      return parseStateFile(text, this.path);
    } catch (error) {
      if (!(error instanceof McpHostError) || error.code !== 'STATE_CORRUPT') throw error;
      if (this.#corruptFile === 'fail') throw error;
      await this.#quarantine(error);
      return emptyDocument();
    }
  }

  async #quarantine(problem: McpHostError): Promise<void> {
    const stamp = new Date().toISOString().replace(/[-:.]/g, '');
    const aside = `${this.path}.corrupt-${stamp}-${process.pid}`;
    try {
      await rename(this.path, aside);
    } catch (error) {
      throw stateIoError(this.path, aside, 'move the corrupt state file aside', error);
    }
    this.#logger.warn('state file was corrupt: moved it aside and started empty', {
      path: this.path,
      movedTo: aside,
      problem: problem.message,
    });
  }

  async #readText(): Promise<string | undefined> {
    try {
      return await readFile(this.path, 'utf8');
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return undefined;
      throw stateIoError(this.path, this.path, 'read it', error);
    }
  }

  async #ensureDirectory(): Promise<void> {
    const directory = dirname(this.path);
    try {
      await mkdir(directory, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw stateIoError(this.path, directory, 'create its directory', error);
    }
  }

  /** Writes a temporary file next to the state file, flushes it, and renames it over the file. */
  async #writeAtomically(text: string): Promise<void> {
    const temporary = `${this.path}.${process.pid}.${(await randomToken()).slice(0, 8)}.tmp`;
    try {
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.chmod(0o600); // exactly 0600, whatever the umask
        await handle.writeFile(text);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await renameWithRetry(temporary, this.path);
    } catch (error) {
      await unlink(temporary).catch(() => {});
      throw stateIoError(this.path, this.path, 'write it', error);
    }
  }
}

function checkMs(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min)
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `FileStateStore: ${name} must be a finite number of milliseconds, at least ${min}`,
    );
  return value;
}

/** The canonical text of a value found in the file; null if it has none (a lone surrogate). */
function canonicalOrNull(value: unknown): string | undefined | null {
  if (value === undefined) return undefined;
  try {
    return canonicalJson(value);
  } catch {
    return null;
  }
}

/**
 * Windows refuses to replace a file that another process has open for a moment (EPERM, EACCES,
 * EBUSY); a reader holds it only briefly, so retry a few times there. Elsewhere rename is atomic
 * and never blocked by readers.
 */
async function renameWithRetry(from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rename(from, to);
      return;
    } catch (error) {
      const errno = errnoOf(error);
      const transient = errno === 'EPERM' || errno === 'EACCES' || errno === 'EBUSY';
      if (process.platform !== 'win32' || !transient || attempt >= 10) throw error;
      await delay(10 * (attempt + 1), { ref: true });
    }
  }
}

/** Refusal when a live, unexpired holder has the lease; undefined when it can be taken. */
function leaseBusy(record: LeaseRecord | undefined): LeaseAttempt | undefined {
  const holder = record?.holder;
  if (holder === undefined || holder.expiresAt <= Date.now()) return undefined;
  if (holder.hostname === hostname() && !isProcessAlive(holder.pid)) return undefined;
  return { granted: false, expiresAt: holder.expiresAt, holderPid: holder.pid };
}

/** The `leases` member of the file, checked: a malformed entry counts as a free lease. */
function readLeases(document: StateDocument): Map<string, Map<string, LeaseRecord>> {
  const leases = new Map<string, Map<string, LeaseRecord>>();
  const raw = document.extra.get('leases');
  if (!isRecord(raw)) return leases;
  for (const [namespace, keys] of Object.entries(raw)) {
    if (!isRecord(keys)) continue;
    const table = new Map<string, LeaseRecord>();
    for (const [key, value] of Object.entries(keys)) {
      if (!isRecord(value)) continue;
      const generation = Number.isSafeInteger(value.generation) ? (value.generation as number) : 0;
      const holder = value.holder;
      const validHolder =
        isRecord(holder) &&
        typeof holder.token === 'string' &&
        Number.isSafeInteger(holder.pid) &&
        typeof holder.hostname === 'string' &&
        typeof holder.expiresAt === 'number';
      table.set(
        key,
        validHolder
          ? { generation, holder: holder as NonNullable<LeaseRecord['holder']> }
          : { generation },
      );
    }
    if (table.size > 0) leases.set(namespace, table);
  }
  return leases;
}

function writeLeases(
  document: StateDocument,
  leases: ReadonlyMap<string, ReadonlyMap<string, LeaseRecord>>,
): void {
  // Objects without a prototype, so that a name "__proto__" is just a name.
  const out = Object.create(null) as Record<string, Record<string, LeaseRecord>>;
  for (const [namespace, table] of leases) {
    const keys = Object.create(null) as Record<string, LeaseRecord>;
    for (const [key, record] of table) keys[key] = record;
    out[namespace] = keys;
  }
  document.extra.set('leases', out);
}

function emptyDocument(): StateDocument {
  return { namespaces: new Map(), extra: new Map() };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses the state file: `STATE_VERSION_UNSUPPORTED` or `STATE_CORRUPT` when it cannot. */
function parseStateFile(text: string, path: string): StateDocument {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    throw corrupt(path, `not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!isRecord(root)) throw corrupt(path, 'not a JSON object');
  const version = root.version;
  if (typeof version === 'number' && Number.isInteger(version) && version > STATE_FILE_VERSION)
    throw new McpHostError(
      'STATE_VERSION_UNSUPPORTED',
      `state file '${path}' has format version ${version}, written by a newer mcp-host; this one reads up to version ${STATE_FILE_VERSION}. It was left untouched; upgrade mcp-host or point it at another state file.`,
      { details: { path, version, supportedVersion: STATE_FILE_VERSION } },
    );
  if (version !== STATE_FILE_VERSION)
    throw corrupt(path, `its "version" is ${JSON.stringify(version) ?? 'missing'}`);
  const namespaces = root.namespaces;
  if (!isRecord(namespaces)) throw corrupt(path, '"namespaces" is not an object');
  const document = emptyDocument();
  for (const [namespace, values] of Object.entries(namespaces)) {
    if (!isRecord(values))
      throw corrupt(path, `namespace ${JSON.stringify(namespace)} is not an object`);
    const map = new Map(Object.entries(values));
    if (map.size > 0) document.namespaces.set(namespace, map);
  }
  for (const [name, value] of Object.entries(root))
    if (name !== 'version' && name !== 'namespaces') document.extra.set(name, value);
  return document;
}

function corrupt(path: string, reason: string): McpHostError {
  return new McpHostError('STATE_CORRUPT', `state file '${path}' is corrupt: ${reason}`, {
    details: { path },
  });
}

/** The file text: pretty-printed, namespaces and keys sorted, ending with a newline. */
function serializeStateFile(document: StateDocument): string {
  // Objects without a prototype, so that a key named "__proto__" is just a key.
  const namespaces = Object.create(null) as Record<string, Record<string, unknown>>;
  for (const namespace of [...document.namespaces.keys()].sort()) {
    const values = document.namespaces.get(namespace)!;
    const out = Object.create(null) as Record<string, unknown>;
    for (const key of [...values.keys()].sort()) out[key] = values.get(key);
    namespaces[namespace] = out;
  }
  const root = Object.create(null) as Record<string, unknown>;
  root.version = STATE_FILE_VERSION;
  for (const [name, value] of document.extra) root[name] = value;
  root.namespaces = namespaces;
  return `${JSON.stringify(root, null, 2)}\n`;
}
