import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatSseEvent, SseWriter } from './sse-writer.js';

describe('SSE writing', () => {
  it('formats an event: its type, its id, one data line per line, a blank line', () => {
    expect(formatSseEvent({ data: '{"a":1}' })).toBe('data: {"a":1}\n\n');
    expect(formatSseEvent({ event: 'message', id: '7', data: 'one\ntwo\r\nthree' })).toBe(
      'event: message\nid: 7\ndata: one\ndata: two\ndata: three\n\n',
    );
    // A line break cannot escape the event or id field.
    expect(formatSseEvent({ event: 'a\nb', data: '' })).toBe('event: a b\ndata: \n\n');
    // A priming event: an id, the reconnection delay, empty data; a bad delay is left out.
    expect(formatSseEvent({ id: '1-1', retryMs: 1000, data: '' })).toBe(
      'id: 1-1\nretry: 1000\ndata: \n\n',
    );
    expect(formatSseEvent({ retryMs: -1, data: 'x' })).toBe('data: x\n\n');
  });

  it('writes the events of one tick in one write, and refuses past its bound', async () => {
    // A socket-like stream: what is corked goes down in one writev.
    const writes: string[] = [];
    const out = new Writable({
      writev(chunks, callback) {
        writes.push(chunks.map(({ chunk }) => String(chunk)).join(''));
        callback();
      },
      write(chunk, _encoding, callback) {
        writes.push(String(chunk));
        callback();
      },
    });
    const writer = new SseWriter(out, 1024);
    expect(writer.write({ data: 'a' })).toBe(true);
    expect(writer.comment('keep-alive')).toBe(true);
    expect(writer.write({ data: 'b' })).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['data: a\n\n:keep-alive\n\ndata: b\n\n']);

    const stuck = new PassThrough({ highWaterMark: 1 });
    const bounded = new SseWriter(stuck, 10);
    expect(bounded.write({ data: 'x'.repeat(20) })).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    // Nobody reads: more than 10 bytes wait, so the next event is refused, unwritten.
    expect(bounded.write({ data: 'y' })).toBe(false);
    bounded.destroy();
    expect(bounded.writable).toBe(false);
    writer.end();
    expect(writer.write({ data: 'late' })).toBe(false);
  });
});
