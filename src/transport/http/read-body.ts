import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** A body outgrew its cap; the stream was cancelled. */
export class BodyTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super(`body larger than the limit (${bytes} bytes read)`);
  }
}

type Body = ReadableStream<Uint8Array> | null;

/**
 * Reads a whole body, at most `maxBytes` (decompressed: the fetch layer has already undone any
 * `Content-Encoding`, so a compressed bomb is stopped at the cap). With `truncate` an oversized
 * body is cut at the cap instead of failing (for error previews).
 */
export async function readBodyCapped(
  body: Body,
  maxBytes: number,
  options: { truncate?: boolean } = {},
): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        void reader.cancel().catch(() => {});
        if (options.truncate !== true) throw new BodyTooLargeError(total);
        chunks.push(value.subarray(0, value.byteLength - (total - maxBytes)));
        total = maxBytes;
        break;
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

export interface SseHandlers {
  onEvent(event: EventSourceMessage): void;
  onRetry(ms: number): void;
}

/**
 * Feeds a `text/event-stream` body to an SSE parser until it ends. The bytes buffered towards one
 * event are capped at `maxEventBytes` (a stream that never finishes an event cannot grow memory
 * without bound); past it the stream is cancelled with `BodyTooLargeError`.
 */
export async function readSse(
  body: Body,
  maxEventBytes: number,
  handlers: SseHandlers,
): Promise<void> {
  if (body === null) return;
  let dispatched = false;
  const parser = createParser({
    onEvent: (event) => {
      dispatched = true;
      handlers.onEvent(event);
    },
    onRetry: (ms) => handlers.onRetry(ms),
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let pending = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      dispatched = false;
      parser.feed(decoder.decode(value, { stream: true }));
      pending = dispatched ? 0 : pending + value.byteLength;
      if (pending > maxEventBytes) {
        void reader.cancel().catch(() => {});
        throw new BodyTooLargeError(pending);
      }
    }
    parser.feed(decoder.decode());
  } finally {
    reader.releaseLock();
  }
}
