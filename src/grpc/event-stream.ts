/**
 * One WatchEvents subscriber: host events written to its gRPC stream as fast as the client reads
 * them, with a bounded buffer in between. While the stream pushes back (its `write` returned false:
 * the client's HTTP/2 window and the stream's own buffer are full), events wait in a queue of at
 * most `maxBuffered`; one more and the subscriber is cut off (`onOverflow`): the queue is dropped
 * and nothing more is buffered, so a client that stops reading costs a bounded amount of memory.
 */
import type { ServerWritableStream } from '@grpc/grpc-js';

/** Writes events to one stream, bounded. */
export class EventStream {
  readonly #call: ServerWritableStream<unknown, unknown>;
  readonly #maxBuffered: number;
  readonly #onOverflow: () => void;
  #queue: unknown[] = [];
  #blocked = false;
  #ended = false;

  constructor(
    call: ServerWritableStream<unknown, unknown>,
    maxBuffered: number,
    onOverflow: () => void,
  ) {
    this.#call = call;
    this.#maxBuffered = maxBuffered;
    this.#onOverflow = onOverflow;
    call.on('drain', () => this.#flush());
  }

  /** Events waiting for the client to read (for tests and metrics). */
  get buffered(): number {
    return this.#queue.length;
  }

  /** Sends one event, or queues it while the stream pushes back; overflows past the bound. */
  push(message: unknown): void {
    if (this.#ended) return;
    if (this.#blocked) {
      if (this.#queue.length >= this.#maxBuffered) {
        this.#end();
        this.#onOverflow();
        return;
      }
      this.#queue.push(message);
      return;
    }
    if (!this.#call.write(message)) this.#blocked = true;
  }

  /** Stops sending; what is queued is dropped. */
  stop(): void {
    this.#end();
  }

  #flush(): void {
    if (this.#ended) return;
    this.#blocked = false;
    while (this.#queue.length > 0 && !this.#blocked) {
      const next = this.#queue.shift();
      if (!this.#call.write(next)) this.#blocked = true;
    }
  }

  #end(): void {
    this.#ended = true;
    this.#queue = [];
  }
}
