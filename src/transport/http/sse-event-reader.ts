import { createParser, type EventSourceMessage } from 'eventsource-parser';

const LF = 0x0a;
const CR = 0x0d;

export interface SseEventHandlers {
  onEvent(event: EventSourceMessage): void;
  /** An event grew past the cap: its bytes were discarded (never buffered past the cap). */
  onOversized(bytes: number): void;
}

/**
 * Reads a `text/event-stream` body for a stream that cannot be resumed (the legacy HTTP+SSE
 * transport's only channel), skipping oversized events instead of giving the stream up. The body
 * is cut into whole events at their blank lines (LF, CR or CRLF line ends); an event's bytes are
 * held until its blank line, at most `maxEventBytes` of them. Past that, the event is dropped,
 * the bytes up to its blank line are skipped unbuffered and `onOversized` is told. Whole events go
 * to one eventsource-parser, which does the field parsing. Resolves when the body ends (an
 * unfinished last event is discarded, as the SSE rules say); rejects when reading fails.
 */
export async function readSseEvents(
  body: AsyncIterable<Uint8Array> | null,
  maxEventBytes: number,
  handlers: SseEventHandlers,
): Promise<void> {
  if (body === null) return;
  const parser = createParser({ onEvent: (event) => handlers.onEvent(event) });
  const decoder = new TextDecoder();
  let held: Uint8Array[] = [];
  let eventBytes = 0;
  let skipping = false;
  // The previous byte ended a line (so a line end now makes a blank line); true at the start.
  let atLineStart = true;
  // The previous byte was a CR (so an LF now is the second half of CRLF).
  let afterCr = false;

  const endEvent = (chunk: Uint8Array, start: number, end: number): void => {
    if (skipping) {
      handlers.onOversized(eventBytes);
      skipping = false;
    } else {
      held.push(chunk.subarray(start, end));
      const text = held.length === 1 ? decoder.decode(held[0]) : decoder.decode(concat(held));
      // Two line ends always finish the event, whatever line end it used.
      parser.feed(`${text}\n\n`);
    }
    held = [];
    eventBytes = 0;
  };

  for await (const chunk of body) {
    let start = 0;
    let nextLf = chunk.indexOf(LF);
    let nextCr = chunk.indexOf(CR);
    let i = 0;
    while (i < chunk.length) {
      if (nextLf !== -1 && nextLf < i) nextLf = chunk.indexOf(LF, i);
      if (nextCr !== -1 && nextCr < i) nextCr = chunk.indexOf(CR, i);
      const next = nextLf === -1 ? nextCr : nextCr === -1 ? nextLf : Math.min(nextLf, nextCr);
      const stop = next === -1 ? chunk.length : next;
      if (stop > i) {
        atLineStart = false;
        afterCr = false;
        eventBytes += stop - i;
        i = stop;
      }
      if (next === -1) break;
      const byte = chunk[i]!;
      eventBytes++;
      i++;
      if (byte === LF && afterCr) {
        afterCr = false;
      } else if (atLineStart) {
        endEvent(chunk, start, i);
        start = i;
        atLineStart = true;
        afterCr = byte === CR;
        continue;
      } else {
        atLineStart = true;
        afterCr = byte === CR;
      }
      if (!skipping && eventBytes > maxEventBytes) {
        skipping = true;
        held = [];
      }
    }
    if (!skipping && eventBytes > maxEventBytes) {
      skipping = true;
      held = [];
    }
    if (!skipping && start < chunk.length) held.push(chunk.subarray(start));
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  let total = 0;
  for (const chunk of chunks) total += chunk.byteLength;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
