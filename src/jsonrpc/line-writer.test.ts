import { describe, expect, it, vi } from 'vitest';
import { McpHostError } from '../errors/mcp-host-error.js';
import { LineWriter, type LineSink } from './line-writer.js';

class FakeSink implements LineSink {
  readonly writes: string[] = [];
  writableLength = 0;
  /** When set, the sink keeps what it is given as unwritten (a reader that stopped reading). */
  stalled = false;
  failWith: Error | undefined;

  write(chunk: string): boolean {
    if (this.failWith !== undefined) throw this.failWith;
    this.writes.push(chunk);
    if (this.stalled) this.writableLength += Buffer.byteLength(chunk);
    return !this.stalled;
  }
}

/** Resolves after the writer's scheduled flush (it runs on process.nextTick, queued before this). */
const nextTick = (): Promise<void> => new Promise((resolve) => process.nextTick(resolve));

function expectCode(fn: () => void, code: string): McpHostError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(McpHostError);
    expect((error as McpHostError).code).toBe(code);
    return error as McpHostError;
  }
  throw new Error(`expected ${code}, nothing was thrown`);
}

describe('LineWriter', () => {
  it('writes everything queued in one tick with one write, one line per message', async () => {
    const sink = new FakeSink();
    const writer = new LineWriter(sink);
    writer.write({ a: 1 });
    writer.write({ b: 'é' });
    writer.write([1, 2]);
    expect(sink.writes).toEqual([]);
    expect(writer.queuedChars).toBe('{"a":1}\n{"b":"é"}\n[1,2]\n'.length);
    await nextTick();
    expect(sink.writes).toEqual(['{"a":1}\n{"b":"é"}\n[1,2]\n']);
    expect(writer.queuedChars).toBe(0);
    writer.write({ c: 3 });
    await nextTick();
    expect(sink.writes).toEqual(['{"a":1}\n{"b":"é"}\n[1,2]\n', '{"c":3}\n']);
  });

  it('never splits a message containing newlines: they are escaped by JSON', async () => {
    const sink = new FakeSink();
    const writer = new LineWriter(sink);
    writer.write({ text: 'line1\nline2\r\n' });
    await nextTick();
    expect(sink.writes).toEqual(['{"text":"line1\\nline2\\r\\n"}\n']);
  });

  it('flush() writes at once', () => {
    const sink = new FakeSink();
    const writer = new LineWriter(sink);
    writer.write({ a: 1 });
    writer.flush();
    expect(sink.writes).toEqual(['{"a":1}\n']);
    writer.flush();
    expect(sink.writes).toHaveLength(1);
  });

  it.each([
    [
      'a circular object',
      (() => {
        const o: Record<string, unknown> = {};
        o.self = o;
        return o;
      })(),
    ],
    ['a BigInt', { n: 10n }],
    ['undefined', undefined],
    ['a function', () => 1],
    [
      'absurd nesting',
      (() => {
        let deep: unknown[] = [];
        for (let i = 0; i < 1_000_000; i++) deep = [deep];
        return deep;
      })(),
    ],
  ])('refuses %s with INVALID_ARGUMENT and keeps working', async (_name, message) => {
    const sink = new FakeSink();
    const writer = new LineWriter(sink, { serverName: 'fs' });
    writer.write({ before: true });
    const error = expectCode(() => writer.write(message), 'INVALID_ARGUMENT');
    expect(error.serverName).toBe('fs');
    expect(error.message).toMatch(/^server 'fs': /);
    writer.write({ after: true });
    await nextTick();
    expect(sink.writes).toEqual(['{"before":true}\n{"after":true}\n']);
  });

  it('refuses with OUTBOUND_BUFFER_FULL when unwritten plus queued output would pass the bound', async () => {
    const sink = new FakeSink();
    sink.stalled = true;
    const writer = new LineWriter(sink, { maxBufferedBytes: 100 });
    const message = { pad: 'x'.repeat(30) }; // 40 characters, 41 with the newline
    writer.write(message);
    writer.write(message);
    expectCode(() => writer.write(message), 'OUTBOUND_BUFFER_FULL'); // 82 queued + 40 > 100
    await nextTick();
    expect(sink.writes).toEqual([`${JSON.stringify(message)}\n${JSON.stringify(message)}\n`]);
    expect(sink.writableLength).toBe(82);
    // The sink still holds 82 unread bytes: nothing large fits until the reader catches up.
    expectCode(() => writer.write(message), 'OUTBOUND_BUFFER_FULL');
    writer.write({ a: 1 }); // 7 characters still fit
    sink.writableLength = 0;
    writer.write(message);
    await nextTick();
    expect(sink.writes).toHaveLength(2);
  });

  it('refuses one message larger than the bound, even with nothing queued', () => {
    const writer = new LineWriter(new FakeSink(), { maxBufferedBytes: 10 });
    expectCode(() => writer.write({ pad: 'x'.repeat(20) }), 'OUTBOUND_BUFFER_FULL');
  });

  it('close() flushes what is queued, then refuses with CONNECTION_CLOSED', async () => {
    const sink = new FakeSink();
    const writer = new LineWriter(sink);
    writer.write({ a: 1 });
    writer.close();
    expect(sink.writes).toEqual(['{"a":1}\n']);
    expectCode(() => writer.write({ b: 2 }), 'CONNECTION_CLOSED');
    await nextTick();
    expect(sink.writes).toHaveLength(1);
  });

  it('a sink that throws reports the error once and closes the writer', async () => {
    const sink = new FakeSink();
    const onError = vi.fn();
    const writer = new LineWriter(sink, { onError });
    sink.failWith = new Error('EPIPE');
    writer.write({ a: 1 });
    await nextTick();
    expect(onError).toHaveBeenCalledOnce();
    expect(onError).toHaveBeenCalledWith(sink.failWith);
    expectCode(() => writer.write({ b: 2 }), 'CONNECTION_CLOSED');
  });
});
