import { EventEmitter } from 'node:events';
import type { ServerWritableStream } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { EventStream } from './event-stream.js';

/** A stream that takes `room` writes before it pushes back, until `drain()`. */
class FakeCall extends EventEmitter {
  readonly written: unknown[] = [];
  room: number;

  constructor(room: number) {
    super();
    this.room = room;
  }

  write(message: unknown): boolean {
    this.written.push(message);
    this.room--;
    return this.room > 0;
  }

  drain(room: number): void {
    this.room = room;
    this.emit('drain');
  }
}

function streamOver(call: FakeCall, maxBuffered: number, onOverflow: () => void): EventStream {
  return new EventStream(
    call as unknown as ServerWritableStream<unknown, unknown>,
    maxBuffered,
    onOverflow,
  );
}

describe('EventStream', () => {
  it('writes while the stream takes them, queues while it pushes back, flushes in order on drain', () => {
    const call = new FakeCall(2);
    const stream = streamOver(call, 3, () => expect.fail('no overflow'));
    for (const n of [1, 2, 3, 4]) stream.push(n);
    expect(call.written).toEqual([1, 2]);
    expect(stream.buffered).toBe(2);
    call.drain(10);
    expect(call.written).toEqual([1, 2, 3, 4]);
    expect(stream.buffered).toBe(0);
  });

  it('overflows once past the bound: the queue is dropped and nothing more is taken', () => {
    const call = new FakeCall(1);
    let overflows = 0;
    const stream = streamOver(call, 2, () => overflows++);
    for (const n of [1, 2, 3, 4, 5, 6]) stream.push(n);
    expect(overflows).toBe(1);
    expect(stream.buffered).toBe(0);
    call.drain(10);
    expect(call.written).toEqual([1]);
  });

  it('stops on request', () => {
    const call = new FakeCall(1);
    const stream = streamOver(call, 8, () => expect.fail('no overflow'));
    stream.push(1);
    stream.push(2);
    stream.stop();
    call.drain(10);
    stream.push(3);
    expect(call.written).toEqual([1]);
  });
});
