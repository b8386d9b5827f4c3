/**
 * Requests in flight, by their ids, which a peer issues in sequence (1, 2, 3, ...). A request
 * sits in an array slot picked by its id's low bits; a request still waiting when a newer id needs
 * its slot moves to a map of the few long-running ones.
 *
 * Why not a `Map`: one that lives long sits in V8's old generation, and each time it rehashes (a
 * map with entries coming and going does, every few dozen requests) its new table is allocated
 * there too, while the dropped table still points at the requests it held. Those pointers keep
 * young requests, their promises and their results alive through minor collections until a full
 * one: about half of a request's memory was promoted that way. A slot set back to `undefined`
 * points at nothing.
 */
export class PendingById<T extends { readonly id: number }> {
  #slots: (T | undefined)[] = emptySlots(MIN_SLOTS);
  #mask = MIN_SLOTS - 1;
  /** Waiting requests whose slot a newer id took (rare: a request slower than many others). */
  readonly #displaced = new Map<number, T>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  get(id: number): T | undefined {
    const item = this.#slots[id & this.#mask];
    if (item !== undefined && item.id === id) return item;
    return this.#displaced.size === 0 ? undefined : this.#displaced.get(id);
  }

  /** Adds a request whose id is not waiting already. */
  add(item: T): void {
    if (this.#size >= this.#slots.length >> 1) this.#resize(this.#slots.length * 2);
    this.#place(item);
    this.#size++;
  }

  /** Removes `item` if it is the one waiting under its id; false if it was not there. */
  delete(item: T): boolean {
    const index = item.id & this.#mask;
    if (this.#slots[index] === item) {
      this.#slots[index] = undefined;
    } else if (this.#displaced.size > 0 && this.#displaced.get(item.id) === item) {
      this.#displaced.delete(item.id);
    } else {
      return false;
    }
    // An idle peer that once had many requests in flight gives the large array back.
    if (--this.#size === 0 && this.#slots.length > MAX_IDLE_SLOTS) this.#resize(MIN_SLOTS);
    return true;
  }

  /** The waiting requests, in no set order (a copy: the caller may settle them while iterating). */
  values(): T[] {
    const items: T[] = [...this.#displaced.values()];
    for (const item of this.#slots) if (item !== undefined) items.push(item);
    return items;
  }

  #place(item: T): void {
    const index = item.id & this.#mask;
    const taken = this.#slots[index];
    if (taken !== undefined) this.#displaced.set(taken.id, taken);
    this.#slots[index] = item;
  }

  #resize(length: number): void {
    const items = this.values();
    this.#slots = emptySlots(length);
    this.#mask = length - 1;
    this.#displaced.clear();
    // In id order, so that where two collide the newer one keeps the slot.
    items.sort((a, b) => a.id - b.id);
    for (const item of items) this.#place(item);
  }
}

const MIN_SLOTS = 16;
const MAX_IDLE_SLOTS = 1024;

function emptySlots<T>(length: number): (T | undefined)[] {
  // Filled, not holey: the array keeps V8's fast packed elements.
  return new Array<T | undefined>(length).fill(undefined);
}
