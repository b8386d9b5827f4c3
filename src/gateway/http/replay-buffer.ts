/** The bounds of a `ReplayBuffer`. */
export interface ReplayBufferOptions {
  /** Events held at most (the oldest go first). */
  maxEvents: number;
  /** Bytes of event data held at most (the oldest go first; a larger event is not held). */
  maxBytes: number;
}

/** One held event: its id and its data. */
export interface ReplayedEvent {
  readonly id: string;
  readonly data: string;
}

/** What a `Last-Event-ID` finds: the stream it is of and its events after it, or why none. */
export type ReplayLookup<Tag> =
  | { readonly stream: number; readonly tag: Tag; readonly events: readonly ReplayedEvent[] }
  /** Not an id this buffer gave (malformed, another session's, never issued, or long forgotten). */
  | { readonly problem: 'unknown' }
  /** An id of a known stream, but some of its events after it are no longer held. */
  | { readonly problem: 'expired' };

interface StreamState<Tag> {
  /** What the stream is, to its owner. */
  readonly tag: Tag;
  /** The next sequence number of the stream. */
  nextSeq: number;
  /** Every event of the stream up to this sequence number is gone (evicted or never held). */
  lostThrough: number;
  /** Its events held now. */
  held: number;
  /** No more events come on it. */
  finished: boolean;
}

interface Held {
  readonly stream: number;
  readonly seq: number;
  readonly data: string;
  readonly bytes: number;
}

/**
 * The events a session's SSE streams sent, held so that a client that lost a stream can resume it
 * (a GET with `Last-Event-ID`) and be given what it missed, on that stream only. Each stream gets
 * a number (and a tag: what it is to the owner); its events get ids `<stream>-<seq>`, unique
 * within the session. Bounded by count and
 * bytes, the oldest events of the session going first: a resumption that would need an event no
 * longer held is refused (`expired`) rather than given a stream with a hole in it. A stream is
 * forgotten once it is finished and none of its events is held.
 */
export class ReplayBuffer<Tag> {
  readonly #options: ReplayBufferOptions;
  readonly #streams = new Map<number, StreamState<Tag>>();
  #held: Held[] = [];
  /** Index of the first live entry of `#held` (evicted ones are cut off in bulk). */
  #start = 0;
  #bytes = 0;
  #nextStream = 1;

  constructor(options: ReplayBufferOptions) {
    this.#options = options;
  }

  /** Events held now. */
  get eventCount(): number {
    return this.#held.length - this.#start;
  }

  /** Bytes of event data held now. */
  get byteCount(): number {
    return this.#bytes;
  }

  /** Streams known now (open, or finished with events held). */
  get streamCount(): number {
    return this.#streams.size;
  }

  /** A new stream, `tag` saying what it is to the owner: its number. */
  openStream(tag: Tag): number {
    const stream = this.#nextStream++;
    this.#streams.set(stream, { tag, nextSeq: 1, lostThrough: 0, held: 0, finished: false });
    return stream;
  }

  /** The next id of `stream`, holding nothing (a priming event: resuming from it replays all after). */
  mark(stream: number): string {
    const state = this.#state(stream);
    return `${stream}-${state.nextSeq++}`;
  }

  /** Holds an event of `stream` (the oldest events going past the bounds) and gives its id. */
  record(stream: number, data: string): string {
    const state = this.#state(stream);
    const seq = state.nextSeq++;
    const bytes = Buffer.byteLength(data);
    if (bytes > this.#options.maxBytes) {
      state.lostThrough = seq;
    } else {
      this.#held.push({ stream, seq, data, bytes });
      this.#bytes += bytes;
      state.held++;
      this.#evict();
    }
    return `${stream}-${seq}`;
  }

  /** No more events come on `stream`; it is forgotten once none of its events is held. */
  finish(stream: number): void {
    const state = this.#streams.get(stream);
    if (state === undefined) return;
    state.finished = true;
    if (state.held === 0) this.#streams.delete(stream);
  }

  /** The stream `lastEventId` is of, and its events held after it. */
  after(lastEventId: string): ReplayLookup<Tag> {
    const match = /^(\d{1,15})-(\d{1,15})$/.exec(lastEventId.trim());
    if (match === null) return { problem: 'unknown' };
    const stream = Number(match[1]);
    const seq = Number(match[2]);
    const state = this.#streams.get(stream);
    if (state === undefined || seq >= state.nextSeq) return { problem: 'unknown' };
    if (seq < state.lostThrough) return { problem: 'expired' };
    const events: ReplayedEvent[] = [];
    for (let i = this.#start; i < this.#held.length; i++) {
      const held = this.#held[i]!;
      if (held.stream === stream && held.seq > seq)
        events.push({ id: `${stream}-${held.seq}`, data: held.data });
    }
    return { stream, tag: state.tag, events };
  }

  /** Drops every event and stream. */
  clear(): void {
    this.#held = [];
    this.#start = 0;
    this.#bytes = 0;
    this.#streams.clear();
  }

  #state(stream: number): StreamState<Tag> {
    const state = this.#streams.get(stream);
    if (state === undefined) throw new RangeError(`no open replay stream ${stream}`);
    return state;
  }

  #evict(): void {
    const { maxEvents, maxBytes } = this.#options;
    while (this.eventCount > maxEvents || this.#bytes > maxBytes) {
      const oldest = this.#held[this.#start++]!;
      this.#bytes -= oldest.bytes;
      const state = this.#streams.get(oldest.stream)!;
      state.lostThrough = Math.max(state.lostThrough, oldest.seq);
      state.held--;
      if (state.finished && state.held === 0) this.#streams.delete(oldest.stream);
    }
    // Cut the evicted entries off once they are half the array (amortised linear).
    if (this.#start > 64 && this.#start * 2 > this.#held.length) {
      this.#held = this.#held.slice(this.#start);
      this.#start = 0;
    }
  }
}
