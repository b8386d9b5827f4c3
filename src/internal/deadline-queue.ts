/** One scheduled expiry. `cancel()` is O(1); the entry is dropped lazily. */
export interface Deadline {
  readonly at: number;
  cancel(): void;
}

const MAX_TIMER_DELAY_MS = 2_147_483_647;

/**
 * A class, not an object literal with a closure: one small allocation per deadline. A cancelled
 * entry forgets its value at once: the queue may hold the entry itself a while longer (dropped
 * lazily), and it must not keep a settled request, its promise and its result alive with it.
 */
class Entry<T> implements Deadline {
  live = true;
  value: T | undefined;

  constructor(
    readonly at: number,
    value: T,
    private readonly release: (entry: Entry<T>) => void,
  ) {
    this.value = value;
  }

  cancel(): void {
    if (!this.live) return;
    this.live = false;
    this.value = undefined;
    this.release(this);
  }
}

/**
 * Many deadlines behind one timer, with one `setTimeout` armed for the earliest entry. Adding a
 * deadline that is not the earliest touches no timer at all. Deadlines mostly arrive in time order
 * (requests with the same timeout, one after another): those go to the end of a list kept in
 * order, an O(1) append; one earlier than the list's last goes to a binary min-heap. Cancelled
 * entries are skipped when they surface and compacted away when they outnumber live ones, and the
 * timer is cleared as soon as nothing live is left, so an idle queue holds no timer.
 */
export class DeadlineQueue<T> {
  /** Entries in expiry order, from `#head` on. */
  #ordered: Entry<T>[] = [];
  #head = 0;
  #heap: Entry<T>[] = [];
  #live = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Infinity;

  constructor(
    private readonly onExpire: (value: T) => void,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.#live;
  }

  /** True while a timer is armed (for leak tests). */
  get armed(): boolean {
    return this.#timer !== undefined;
  }

  add(delayMs: number, value: T): Deadline {
    return this.addAt(this.now() + Math.max(0, delayMs), value);
  }

  /** Adds a deadline at an absolute time (on the queue's clock). */
  addAt(at: number, value: T): Deadline {
    const entry = new Entry(at, value, this.#release);
    const ordered = this.#ordered;
    if (ordered.length === this.#head || ordered[ordered.length - 1]!.at <= at) ordered.push(entry);
    else this.#push(entry);
    this.#live++;
    if (at < this.#timerAt) this.#arm(at);
    return entry;
  }

  readonly #release = (_entry: Entry<T>): void => {
    if (--this.#live === 0) {
      this.#reset();
      return;
    }
    // Answers mostly come in the order the requests went out: drop the dead from the list's head.
    const ordered = this.#ordered;
    while (this.#head < ordered.length && !ordered[this.#head]!.live) this.#head++;
    if (this.#head > 1024 && this.#head * 2 > ordered.length) {
      this.#ordered = ordered.slice(this.#head);
      this.#head = 0;
    }
    if (this.#heap.length + this.#ordered.length - this.#head > 64 + 4 * this.#live)
      this.#compact();
  };

  clear(): void {
    for (const entry of this.#heap) forget(entry);
    for (let i = this.#head; i < this.#ordered.length; i++) forget(this.#ordered[i]!);
    this.#live = 0;
    this.#reset();
  }

  #reset(): void {
    this.#heap = [];
    this.#ordered = [];
    this.#head = 0;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = at;
    // A deadline at Infinity never expires: it needs no timer (one would keep the process alive).
    if (at === Infinity) return;
    // setTimeout treats delays past 2^31-1 ms as 1 ms; a longer deadline re-arms when it fires.
    const delay = Math.min(MAX_TIMER_DELAY_MS, Math.max(0, at - this.now()));
    this.#timer = setTimeout(this.#fire, delay);
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = this.now();
    const expired: Entry<T>[] = [];
    const take = (top: Entry<T>): void => {
      if (!top.live) return;
      top.live = false;
      this.#live--;
      expired.push(top);
    };
    const ordered = this.#ordered;
    while (this.#head < ordered.length) {
      const top = ordered[this.#head]!;
      if (top.live && top.at > now) break;
      this.#head++;
      take(top);
    }
    while (this.#heap.length > 0) {
      const top = this.#heap[0]!;
      if (top.live && top.at > now) break;
      this.#pop();
      take(top);
    }
    if (this.#live === 0) this.#reset();
    else this.#arm(this.#earliest());
    // Callbacks run after the queue is consistent: they may add or cancel deadlines.
    for (const entry of expired) {
      const value = entry.value as T;
      entry.value = undefined;
      this.onExpire(value);
    }
  };

  /** The earliest expiry still queued (the heads of the list and the heap may be dead). */
  #earliest(): number {
    const first = this.#head < this.#ordered.length ? this.#ordered[this.#head]!.at : Infinity;
    return this.#heap.length > 0 ? Math.min(first, this.#heap[0]!.at) : first;
  }

  #compact(): void {
    const head = this.#head;
    this.#ordered = this.#ordered.filter((entry, i) => i >= head && entry.live);
    this.#head = 0;
    this.#heap = this.#heap.filter((entry) => entry.live);
    for (let i = (this.#heap.length >> 1) - 1; i >= 0; i--) this.#down(i);
  }

  #push(entry: Entry<T>): void {
    const heap = this.#heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.at <= entry.at) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = entry;
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    heap[0] = last;
    this.#down(0);
  }

  #down(index: number): void {
    const heap = this.#heap;
    const entry = heap[index]!;
    const length = heap.length;
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= length) break;
      const right = left + 1;
      const child = right < length && heap[right]!.at < heap[left]!.at ? right : left;
      if (heap[child]!.at >= entry.at) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = entry;
  }
}

function forget<T>(entry: Entry<T>): void {
  entry.live = false;
  entry.value = undefined;
}
