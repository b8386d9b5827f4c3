/**
 * A map that keeps at most `maxEntries` entries, dropping the least recently used one first.
 * `get` and `set` count as uses. With `maxEntries` 0 it keeps nothing.
 *
 * A hit on the most recent entry moves nothing: a tool called again and again (the hot path of a
 * schema check) costs one lookup, not a delete and an insert (which, on a map of one entry, makes
 * V8 shrink and regrow its table: an allocation per call).
 */
const NONE: unique symbol = Symbol('none');

export class LruMap<K, V> {
  readonly #entries = new Map<K, V>();
  /** The most recently used key (the map's last), or NONE. */
  #newest: K | typeof NONE = NONE;

  constructor(readonly maxEntries: number) {}

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    if (this.#newest === key) return value;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    this.#newest = key;
    return value;
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    if (this.maxEntries <= 0) return;
    this.#entries.set(key, value);
    this.#newest = key;
    while (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }

  clear(): void {
    this.#entries.clear();
    this.#newest = NONE;
  }
}
