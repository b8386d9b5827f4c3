/**
 * The watchers of a store's namespaces (`StateStore.watch`): who is told of a write, and the
 * telling. Shared by the stores that watch (memory, PostgreSQL).
 */

/** The listeners of `StateStore.watch`, per namespace. */
export class StateWatchers {
  readonly #byNamespace = new Map<string, Set<(key: string) => void>>();

  /** The namespaces someone watches now. */
  get namespaces(): string[] {
    return [...this.#byNamespace.keys()];
  }

  /** Adds a listener; the same function added twice is called twice. */
  add(namespace: string, listener: (key: string) => void): Disposable {
    let listeners = this.#byNamespace.get(namespace);
    if (listeners === undefined) this.#byNamespace.set(namespace, (listeners = new Set()));
    const entry = (key: string): void => listener(key);
    listeners.add(entry);
    return {
      [Symbol.dispose]: () => {
        listeners.delete(entry);
        if (listeners.size === 0 && this.#byNamespace.get(namespace) === listeners)
          this.#byNamespace.delete(namespace);
      },
    };
  }

  /** Whether anyone watches `namespace`. */
  has(namespace: string): boolean {
    return this.#byNamespace.has(namespace);
  }

  /** Calls the namespace's listeners with each key now; one that throws does not stop the others. */
  tell(namespace: string, keys: readonly string[]): void {
    const listeners = this.#byNamespace.get(namespace);
    if (listeners === undefined) return;
    for (const key of keys)
      for (const listener of [...listeners])
        try {
          listener(key);
        } catch {
          // A watcher's failure is its own: the write has happened, the others are told.
        }
  }

  clear(): void {
    this.#byNamespace.clear();
  }
}
