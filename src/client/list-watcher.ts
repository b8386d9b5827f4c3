import type { Emitter } from '../internal/emitter.js';

/** What changed in a list between two fetches, by key (a tool's or prompt's name, a resource's URI). */
export interface ListChange<T> {
  kind: 'tools' | 'resources' | 'prompts';
  added: T[];
  removed: T[];
  changed: T[];
  /** The whole list after the change. */
  items: T[];
}

export interface ListWatcherOptions<T> {
  kind: ListChange<T>['kind'];
  keyOf: (item: T) => string;
  fetch: () => Promise<T[]>;
  debounceMs: number;
  onError: (error: unknown) => void;
  /** Where the changes go: the client's `onToolsChanged` (or resources', prompts') emitter. */
  emitter: Emitter<ListChange<T>>;
}

/**
 * Turns a server's `list_changed` notifications into "what changed" events. Notifications are
 * debounced (a flood of 10,000 costs one refetch, not 10,000), at most one refetch runs at a time
 * (a notification during it schedules exactly one more), and nothing is fetched while nobody
 * listens. The last snapshot exists only to diff against; it answers nothing, and a listing that
 * seeds it does not pay for it: its items are indexed when the next refetch diffs against them.
 */
export class ListWatcher<T> {
  readonly #options: ListWatcherOptions<T>;
  readonly #emitter: Emitter<ListChange<T>>;
  #snapshot: Map<string, { item: T; text: string }> | undefined;
  /** A seeded listing not indexed yet (see `seed`). */
  #seeded: T[] | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running = false;
  #again = false;
  #closed = false;

  constructor(options: ListWatcherOptions<T>) {
    this.#options = options;
    this.#emitter = options.emitter;
  }

  /** Seeds the snapshot (after a listing the caller made anyway); indexed when first needed. */
  seed(items: T[]): void {
    this.#seeded = items;
    this.#snapshot = undefined;
  }

  /** A list_changed notification arrived. */
  notify(): void {
    if (this.#closed || this.#emitter.listenerCount === 0) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#refetch();
    }, this.#options.debounceMs);
  }

  /** No more refetches (the client's close clears its emitters). */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #refetch(): Promise<void> {
    this.#running = true;
    try {
      do {
        this.#again = false;
        const items = await this.#options.fetch();
        if (this.#closed) return;
        const previous = this.#previous();
        const next = this.#index(items);
        this.#snapshot = next;
        this.#seeded = undefined;
        const added: T[] = [];
        const changed: T[] = [];
        for (const [key, entry] of next) {
          const before = previous.get(key);
          if (before === undefined) added.push(entry.item);
          else if (before.text !== entry.text) changed.push(entry.item);
        }
        const removed = [...previous]
          .filter(([key]) => !next.has(key))
          .map(([, entry]) => entry.item);
        if (added.length + removed.length + changed.length > 0) {
          this.#emitter.fire({ kind: this.#options.kind, added, removed, changed, items });
        }
      } while (this.#again && !this.#closed);
    } catch (error) {
      if (!this.#closed) this.#options.onError(error);
    } finally {
      this.#running = false;
    }
  }

  /** The snapshot to diff against: the last refetch's, or the seeded listing's, indexed now. */
  #previous(): Map<string, { item: T; text: string }> {
    if (this.#seeded !== undefined) return this.#index(this.#seeded);
    return this.#snapshot ?? new Map<string, { item: T; text: string }>();
  }

  #index(items: T[]): Map<string, { item: T; text: string }> {
    return new Map(
      items.map((item) => [this.#options.keyOf(item), { item, text: stableText(item) }]),
    );
  }
}

/** JSON text with object keys sorted, so a reordered but equal definition is not "changed". */
function stableText(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0,
          ),
        )
      : v,
  );
}
