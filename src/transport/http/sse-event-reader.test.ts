import { describe, expect, it } from 'vitest';
import { readSseEvents } from './sse-event-reader.js';

/** A body delivering `text` in chunks of `size` bytes. */
function body(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

async function read(text: string, size: number, maxEventBytes = 1024) {
  const events: { event?: string; data: string; id?: string }[] = [];
  const oversized: number[] = [];
  await readSseEvents(body(text, size), maxEventBytes, {
    onEvent: ({ event, data, id }) =>
      events.push({
        data,
        ...(event === undefined ? {} : { event }),
        ...(id === undefined ? {} : { id }),
      }),
    onOversized: (bytes) => oversized.push(bytes),
  });
  return { events, oversized };
}

describe('readSseEvents', () => {
  const stream =
    'event: endpoint\ndata: /messages?s=1\n\n: comment\nid: 7\ndata: {"a":1}\ndata: {"b":2}\n\ndata: é✓\n\n';
  const expected = [
    { event: 'endpoint', data: '/messages?s=1' },
    { id: '7', data: '{"a":1}\n{"b":2}' },
    { data: 'é✓' },
  ];

  it('parses whole events whatever the chunk size (one byte at a time too)', async () => {
    for (const size of [1, 2, 3, 7, 64, 4096]) {
      expect((await read(stream, size)).events, `chunks of ${size}`).toEqual(expected);
    }
  });

  it('accepts CRLF and CR line ends, and events right after each other', async () => {
    for (const eol of ['\r\n', '\r']) {
      const text = stream.replaceAll('\n', eol);
      for (const size of [1, 5, 4096]) {
        expect((await read(text, size)).events, `${JSON.stringify(eol)} / ${size}`).toEqual(
          expected,
        );
      }
    }
  });

  it('skips an oversized event unbuffered, reports it, and keeps reading', async () => {
    const big = `data: ${'x'.repeat(5000)}\ndata: more\n\n`;
    const text = `data: first\n\n${big}data: after\n\n`;
    for (const size of [1, 100, 1000, 100_000]) {
      const { events, oversized } = await read(text, size, 1000);
      expect(events, `chunks of ${size}`).toEqual([{ data: 'first' }, { data: 'after' }]);
      expect(oversized).toHaveLength(1);
      expect(oversized[0]).toBeGreaterThan(1000);
    }
  });

  it('discards an unfinished last event, as the SSE rules say', async () => {
    expect((await read('data: done\n\ndata: half', 4)).events).toEqual([{ data: 'done' }]);
  });
});
