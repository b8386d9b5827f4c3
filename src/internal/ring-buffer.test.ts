import { describe, expect, it } from 'vitest';
import { ByteRingBuffer } from './ring-buffer.js';

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);

describe('ByteRingBuffer', () => {
  it('reads nothing before the first write, and empty writes count as nothing', () => {
    const ring = new ByteRingBuffer(8);
    expect(ring.read()).toEqual(bytes());
    ring.write(bytes());
    expect(ring.read(4)).toEqual(bytes());
    expect(ring.length).toBe(0);
    expect(ring.totalBytes).toBe(0);
    expect(new ByteRingBuffer(0).read()).toEqual(bytes());
  });

  it('keeps everything while under capacity', () => {
    const ring = new ByteRingBuffer(8);
    ring.write(bytes(1, 2, 3));
    ring.write(bytes(4));
    expect(ring.read()).toEqual(bytes(1, 2, 3, 4));
    expect(ring.length).toBe(4);
    expect(ring.totalBytes).toBe(4);
  });

  it('keeps the last bytes, oldest first, across wraparound', () => {
    const ring = new ByteRingBuffer(5);
    ring.write(bytes(1, 2, 3));
    ring.write(bytes(4, 5, 6, 7)); // wraps: 3 4 5 6 7
    expect(ring.read()).toEqual(bytes(3, 4, 5, 6, 7));
    ring.write(bytes(8, 9)); // 5 6 7 8 9
    expect(ring.read()).toEqual(bytes(5, 6, 7, 8, 9));
    expect(ring.read(3)).toEqual(bytes(7, 8, 9));
    expect(ring.read(100)).toEqual(bytes(5, 6, 7, 8, 9));
    expect(ring.read(0)).toEqual(bytes());
    expect(ring.length).toBe(5);
    expect(ring.totalBytes).toBe(9);
  });

  it('a chunk at least as large as the capacity keeps only its end', () => {
    const ring = new ByteRingBuffer(4);
    ring.write(bytes(1, 2));
    ring.write(bytes(10, 11, 12, 13, 14, 15));
    expect(ring.read()).toEqual(bytes(12, 13, 14, 15));
    ring.write(bytes(16));
    expect(ring.read()).toEqual(bytes(13, 14, 15, 16));
    ring.write(bytes(20, 21, 22, 23));
    expect(ring.read()).toEqual(bytes(20, 21, 22, 23));
  });

  it('matches a naive model for every chunk size and read size', () => {
    for (const capacity of [1, 2, 3, 7, 16]) {
      const ring = new ByteRingBuffer(capacity);
      let model: number[] = [];
      let next = 0;
      for (let step = 0; step < 200; step++) {
        const size = (step * 5 + capacity) % (2 * capacity + 2);
        const chunk = Uint8Array.from({ length: size }, () => next++ & 0xff);
        ring.write(chunk);
        model = [...model, ...chunk].slice(-capacity);
        expect(ring.read()).toEqual(Uint8Array.from(model));
        const want = step % (capacity + 1);
        expect(ring.read(want)).toEqual(
          Uint8Array.from(model.slice(model.length - Math.min(want, model.length))),
        );
      }
      expect(ring.totalBytes).toBe(next);
    }
  });

  it('with capacity 0 keeps nothing but still counts', () => {
    const ring = new ByteRingBuffer(0);
    ring.write(bytes(1, 2, 3));
    expect(ring.read()).toEqual(bytes());
    expect(ring.length).toBe(0);
    expect(ring.totalBytes).toBe(3);
  });

  it('read returns a copy', () => {
    const ring = new ByteRingBuffer(4);
    ring.write(bytes(1, 2));
    const out = ring.read();
    out[0] = 99;
    expect(ring.read()).toEqual(bytes(1, 2));
  });
});
