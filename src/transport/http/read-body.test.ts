import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BodyTooLargeError, readBodyCapped, readSse, utf8 } from './read-body.js';

const chunks = (...parts: (string | Buffer)[]): Readable =>
  Readable.from(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));

describe('readBodyCapped', () => {
  it('joins the chunks of a body once', async () => {
    const bytes = await readBodyCapped(chunks('{"a":', '1}'), 100);
    expect(bytes.toString()).toBe('{"a":1}');
  });

  it('fails past the cap, or cuts at it with truncate', async () => {
    await expect(readBodyCapped(chunks('abc', 'def'), 4)).rejects.toBeInstanceOf(BodyTooLargeError);
    const cut = await readBodyCapped(chunks('abc', 'def'), 4, { truncate: true });
    expect(cut.toString()).toBe('abcd');
  });

  it('rejects at once for a body that failed or was destroyed before it was read', async () => {
    const failed = new Readable({ read() {} });
    failed.on('error', () => {});
    failed.destroy(new Error('socket gone'));
    await new Promise((resolve) => setImmediate(resolve));
    await expect(readBodyCapped(failed, 100)).rejects.toThrow('socket gone');
    const destroyed = new Readable({ read() {} });
    destroyed.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    await expect(readBodyCapped(destroyed, 100)).rejects.toThrow('closed before its end');
  });

  it('rejects when the body is destroyed while being read', async () => {
    const body = new Readable({ read() {} });
    const reading = readBodyCapped(body, 100);
    body.push('partial');
    setImmediate(() => body.destroy());
    await expect(reading).rejects.toThrow('closed before its end');
  });
});

describe('utf8', () => {
  it('drops a leading byte order mark, as TextDecoder does', () => {
    expect(utf8(Buffer.from('\ufeff{"a":1}'))).toBe('{"a":1}');
    expect(utf8(Buffer.from('é✓'))).toBe('é✓');
  });
});

describe('readSse', () => {
  it('decodes characters split across chunks and drops a leading byte order mark', async () => {
    const text = Buffer.from('\ufeffdata: é✓\n\nretry: 250\ndata: x\n\n');
    const parts = [...text].map((byte) => Buffer.from([byte]));
    const events: string[] = [];
    const retries: number[] = [];
    await readSse(Readable.from(parts), 1024, {
      onEvent: (event) => events.push(event.data),
      onRetry: (ms) => retries.push(ms),
    });
    expect(events).toEqual(['é✓', 'x']);
    expect(retries).toEqual([250]);
  });

  it('fails with BodyTooLargeError when one event outgrows the cap', async () => {
    const body = chunks('data: ', 'y'.repeat(600), 'y'.repeat(600));
    await expect(
      readSse(body, 1000, { onEvent: () => {}, onRetry: () => {} }),
    ).rejects.toBeInstanceOf(BodyTooLargeError);
  });
});
