/**
 * The persistent key-value state of mcp-host (protocol era per server, tool pins, OAuth tokens):
 * the contract every store keeps, and an in-memory store. Platform-neutral.
 */
import { McpHostError } from '../errors/mcp-host-error.js';
import { canonicalJson } from './canonical-json.js';
import {
  acquireLease,
  checkLeaseOptions,
  grantedLease,
  LeaseWakeups,
  type Lease,
  type LeaseOptions,
} from './lease.js';
import { StateWatchers } from './state-watchers.js';

/**
 * Where mcp-host keeps what it must remember between runs. Values live in namespaces (`era`,
 * `pins`, `tokens`) under string keys, and are plain JSON: a value is checked and copied when it
 * is stored (`INVALID_ARGUMENT` for anything `canonicalJson` refuses: NaN, BigInt, functions,
 * cycles, class instances), and every read returns a fresh copy, so mutating a returned value
 * never changes the store. A `Date` is stored as its ISO string, as in JSON.
 *
 * Namespaces and keys are non-empty strings (`INVALID_ARGUMENT` otherwise). After `close()` every
 * method fails with `STATE_CLOSED`.
 */
export interface StateStore {
  /** The value stored under `key`, or undefined. */
  get<T = unknown>(namespace: string, key: string): Promise<T | undefined>;
  /** Stores a JSON-serialisable value; `undefined` deletes the key. */
  set(namespace: string, key: string, value: unknown): Promise<void>;
  /** Removes the key; nothing happens when it is absent. */
  delete(namespace: string, key: string): Promise<void>;
  /**
   * Atomic read-modify-write: fn gets the current value (or undefined) and returns the new one
   * (undefined deletes). No other update of the same store (for a file store: of the same file,
   * in any process) runs in between. fn must be synchronous and quick; if it throws, nothing
   * changes and the error is passed on. Resolves to the value as stored.
   */
  update<T = unknown>(
    namespace: string,
    key: string,
    fn: (current: T | undefined) => T | undefined,
  ): Promise<T | undefined>;
  /** Every key of the namespace with its value, sorted by key. */
  entries(namespace: string): Promise<Array<[string, unknown]>>;
  /**
   * Takes the exclusive lease on (namespace, key), waiting while someone else (in this process or,
   * for a shared store, in another) holds it: for work that must happen once at a time across
   * awaits, such as an OAuth token refresh. Leases live apart from values (a lease and a value may
   * share a name). A lease lasts until released or for `ttlMs`, so a holder that crashed or hung
   * blocks the others for `ttlMs` at most (a file store also takes over at once from a holder
   * process on this host that is dead). Each grant has a generation one higher than the last.
   * Fails with `STATE_LOCK_TIMEOUT` after `timeoutMs` of waiting, `ABORTED` on `signal`,
   * `INVALID_ARGUMENT` for a bad name or `ttlMs`. Optional: a store without it gives only
   * in-process guarantees to code that needs one (see docs/state.md).
   */
  lease?(namespace: string, key: string, options: LeaseOptions): Promise<Lease>;
  /**
   * Calls `listener` with the key after a value of `namespace` was set, updated or deleted: by
   * this store and, for a shared store, by any other process that shares it (a PostgreSQL store:
   * within a second). A listener may be called for a write that changed nothing, and never
   * synchronously inside the write; it reads the new value itself. A listener that throws is
   * ignored. Optional: without it, a process sees others' writes only when it reads.
   */
  watch?(namespace: string, listener: (key: string) => void): Disposable;
  /** Refuses new operations at once (`STATE_CLOSED`) and waits for those under way. Idempotent. */
  close?(): Promise<void>;
}

/** Throws `INVALID_ARGUMENT` unless the namespace is a non-empty string. */
export function checkNamespace(namespace: unknown): void {
  if (typeof namespace !== 'string' || namespace === '')
    throw new McpHostError('INVALID_ARGUMENT', 'state: a namespace must be a non-empty string');
}

/** Throws `INVALID_ARGUMENT` unless namespace and key are non-empty strings. */
export function checkStateKey(namespace: unknown, key: unknown): void {
  checkNamespace(namespace);
  if (typeof key !== 'string' || key === '')
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `state: a key in namespace '${namespace as string}' must be a non-empty string`,
    );
}

/**
 * The JSON text a value is stored as (canonical, RFC 8785), or undefined for undefined. Throws
 * `INVALID_ARGUMENT` for a value without a JSON form.
 */
export function toStoredJson(namespace: string, key: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  try {
    return canonicalJson(value);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `state: the value for '${namespace}/${key}' is not JSON data (${reason})`,
      { cause: error },
    );
  }
}

/** The error of an operation on a closed store. */
export function stateClosedError(what: string): McpHostError {
  return new McpHostError('STATE_CLOSED', `${what}: the state store is closed`);
}

/**
 * A `StateStore` that lives in memory only: for tests, and for hosts that want no state on disk.
 * Values are kept as canonical JSON text, so it accepts and returns exactly what `FileStateStore`
 * does.
 */
export class MemoryStateStore implements StateStore, AsyncDisposable {
  readonly #namespaces = new Map<string, Map<string, string>>();
  /** Per lease name: its generation and, while held, the holder's token and expiry. */
  readonly #leases = new Map<string, { generation: number; holder?: symbol; expiresAt: number }>();
  readonly #wakeups = new LeaseWakeups();
  readonly #watchers = new StateWatchers();
  readonly #closing = new AbortController();
  #closed = false;

  get<T = unknown>(namespace: string, key: string): Promise<T | undefined> {
    return this.#run(() => {
      checkStateKey(namespace, key);
      const text = this.#namespaces.get(namespace)?.get(key);
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
    return this.#run(() => {
      checkStateKey(namespace, key);
      // Read, call and write without an await in between: nothing else can run meanwhile.
      const values = this.#namespaces.get(namespace);
      const current = values?.get(key);
      const text = toStoredJson(
        namespace,
        key,
        fn(current === undefined ? undefined : (JSON.parse(current) as T)),
      );
      this.#changed(namespace, key);
      if (text === undefined) {
        values?.delete(key);
        if (values?.size === 0) this.#namespaces.delete(namespace);
        return undefined;
      }
      if (values === undefined) this.#namespaces.set(namespace, new Map([[key, text]]));
      else values.set(key, text);
      return JSON.parse(text) as T;
    });
  }

  watch(namespace: string, listener: (key: string) => void): Disposable {
    checkNamespace(namespace);
    if (this.#closed) throw stateClosedError('state');
    return this.#watchers.add(namespace, listener);
  }

  /** Tells the namespace's watchers about a write, after it (never inside the write). */
  #changed(namespace: string, key: string): void {
    if (this.#watchers.has(namespace)) queueMicrotask(() => this.#watchers.tell(namespace, [key]));
  }

  entries(namespace: string): Promise<Array<[string, unknown]>> {
    return this.#run(() => {
      checkNamespace(namespace);
      const values = this.#namespaces.get(namespace);
      if (values === undefined) return [];
      return [...values.keys()]
        .sort()
        .map((key): [string, unknown] => [key, JSON.parse(values.get(key)!) as unknown]);
    });
  }

  async lease(namespace: string, key: string, options: LeaseOptions): Promise<Lease> {
    if (this.#closed) throw stateClosedError('state');
    checkStateKey(namespace, key);
    const { ttlMs, timeoutMs } = checkLeaseOptions(options);
    const name = JSON.stringify([namespace, key]);
    const token = Symbol(name);
    const { generation, expiresAt } = await acquireLease({
      namespace,
      key,
      where: 'memory state',
      timeoutMs,
      signal: options.signal,
      closing: { signal: this.#closing.signal, error: () => stateClosedError('state') },
      wakeName: name,
      wakeups: this.#wakeups,
      poll: false, // every holder is in this process: a release always wakes the waiters
      // eslint-disable-next-line @typescript-eslint/require-await
      attempt: async () => {
        if (this.#closed) throw stateClosedError('state');
        const now = Date.now();
        const record = this.#leases.get(name) ?? { generation: 0, expiresAt: 0 };
        if (record.holder !== undefined && record.expiresAt > now)
          return { granted: false, expiresAt: record.expiresAt };
        const granted = {
          generation: record.generation + 1,
          holder: token,
          expiresAt: now + ttlMs,
        };
        this.#leases.set(name, granted);
        return { granted: true, generation: granted.generation, expiresAt: granted.expiresAt };
      },
    });
    return grantedLease(namespace, key, generation, expiresAt, () => {
      const record = this.#leases.get(name);
      if (record?.holder === token) this.#leases.set(name, { generation, expiresAt: 0 });
      this.#wakeups.notify(name);
      return Promise.resolve();
    });
  }

  /** Refuses further operations (they fail with `STATE_CLOSED`) and drops the data. Idempotent. */
  close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    this.#namespaces.clear();
    this.#leases.clear();
    this.#watchers.clear();
    return Promise.resolve();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * Runs a synchronous operation as a promise, so that every failure is a rejection. An async
   * function runs synchronously up to its first await, and there is none: nothing interleaves.
   */
  // eslint-disable-next-line @typescript-eslint/require-await
  async #run<R>(operation: () => R): Promise<R> {
    if (this.#closed) throw stateClosedError('state');
    return operation();
  }
}
