import type { Writable } from 'node:stream';

/** One Server-Sent Event: its `data` (any text; each line becomes a `data:` line). */
export interface SseEvent {
  data: string;
  /** The event type (`message` when absent, as the SSE rules say). */
  event?: string;
  /** The event id, for a client's `Last-Event-ID`. */
  id?: string;
  /** How long a client waits before it reconnects, in milliseconds (the `retry` field). */
  retryMs?: number;
}

/** The headers of a `text/event-stream` response: no caching, no proxy buffering. */
export const SSE_RESPONSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
});

/** An event as `text/event-stream` text: its fields, one `data:` line per line of data, a blank line. */
export function formatSseEvent(event: SseEvent): string {
  let text = '';
  if (event.event !== undefined) text += `event: ${oneLine(event.event)}\n`;
  if (event.id !== undefined) text += `id: ${oneLine(event.id)}\n`;
  if (event.retryMs !== undefined && Number.isSafeInteger(event.retryMs) && event.retryMs >= 0)
    text += `retry: ${event.retryMs}\n`;
  for (const line of event.data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
  return `${text}\n`;
}

/**
 * Writes Server-Sent Events to a stream whose headers are sent (an HTTP response): each event in
 * one piece, so events never interleave, and the events of one tick in one write (corked until
 * the next tick). Bounded: when more than `maxBufferedBytes` wait unread (the client stopped
 * reading), `write` returns false and writes nothing; the owner decides to end the stream.
 */
export class SseWriter {
  readonly #out: Writable;
  readonly #maxBufferedBytes: number;
  #corked = false;

  constructor(out: Writable, maxBufferedBytes: number) {
    this.#out = out;
    this.#maxBufferedBytes = maxBufferedBytes;
  }

  /** Whether the stream still takes events. */
  get writable(): boolean {
    return this.#out.writable && !this.#out.destroyed;
  }

  /** Writes one event; false (nothing written) when the stream is gone or over its bound. */
  write(event: SseEvent): boolean {
    return this.#write(formatSseEvent(event));
  }

  /** Writes an SSE comment (a keep-alive the client ignores). */
  comment(text = ''): boolean {
    return this.#write(`:${oneLine(text)}\n\n`);
  }

  /** Ends the stream after what was written. */
  end(): void {
    if (this.#out.writableEnded) return;
    this.#uncork();
    this.#out.end();
  }

  /** Drops the stream at once (the client did not read it). */
  destroy(): void {
    this.#corked = false;
    this.#out.destroy();
  }

  #write(text: string): boolean {
    if (!this.writable || this.#out.writableLength > this.#maxBufferedBytes) return false;
    if (!this.#corked) {
      this.#corked = true;
      this.#out.cork();
      process.nextTick(() => this.#uncork());
    }
    this.#out.write(text);
    return true;
  }

  #uncork(): void {
    if (!this.#corked) return;
    this.#corked = false;
    this.#out.uncork();
  }
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]/g, ' ');
}
