import { describe, expect, it } from 'vitest';
import { LineDecoder, type OversizedLine } from './line-decoder.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from './peer-options.js';
import { recoverRequestId } from './recover-id.js';

const MiB = 1024 * 1024;

function collect(maxMessageBytes?: number): {
  decoder: LineDecoder;
  lines: string[];
  oversized: OversizedLine[];
} {
  const lines: string[] = [];
  const oversized: OversizedLine[] = [];
  const decoder = new LineDecoder({
    maxMessageBytes,
    onLine: (line) => lines.push(line),
    onOversized: (info) => oversized.push(info),
  });
  return { decoder, lines, oversized };
}

const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');

/** A plain Uint8Array view (not a Buffer), to exercise the non-Buffer decoding path. */
const plain = (bytes: Uint8Array): Uint8Array =>
  new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);

function feed(decoder: LineDecoder, bytes: Uint8Array, chunkSize: number): void {
  for (let i = 0; i < bytes.length; i += chunkSize) decoder.push(bytes.subarray(i, i + chunkSize));
}

/** A JSON-RPC response line of about `bytes` UTF-8 bytes, rich in 2-, 3- and 4-byte characters. */
function bigMessage(bytes: number): string {
  const unit = 'abc é ü € 中文 😀 𝄞 "q" \\ \n\t '; // JSON.stringify escapes the quote, backslash and controls
  const text = unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)));
  return JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } });
}

describe('LineDecoder: framing', () => {
  it('splits lines, joins lines split across chunks, and delivers a last line without newline on end()', () => {
    const { decoder, lines } = collect();
    decoder.push(utf8('{"a":1}\n{"b"'));
    decoder.push(utf8(':2}\n{"c":'));
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
    expect(decoder.bufferedBytes).toBe(5);
    decoder.push(utf8('3}'));
    decoder.end();
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
    expect(decoder.bufferedBytes).toBe(0);
    decoder.end();
    expect(lines).toHaveLength(3);
  });

  it('says which line was cut by the end of the stream rather than ended by a newline', () => {
    const seen: [string, boolean][] = [];
    const decoder = new LineDecoder({
      onLine: (line, cut) => seen.push([line, cut]),
      onOversized: () => {},
    });
    decoder.push(utf8('{"a":1}\n{"b":'));
    decoder.push(utf8('2}\n{"c":'));
    decoder.end();
    expect(seen).toEqual([
      ['{"a":1}', false],
      ['{"b":2}', false],
      ['{"c":', true],
    ]);
  });

  it.each([
    ['1-byte', 1],
    ['4 KiB', 4096],
    ['64 KiB', 65536],
  ])('a 10 MiB message in %s chunks parses identically', (_name, chunkSize) => {
    const message = bigMessage(10 * MiB);
    const small = '{"jsonrpc":"2.0","id":2,"result":{}}';
    const bytes = utf8(`${message}\n${small}\n`);
    expect(bytes.length).toBeGreaterThan(10 * MiB);
    const { decoder, lines, oversized } = collect();
    const started = performance.now();
    feed(decoder, bytes, chunkSize);
    const elapsedMs = performance.now() - started;
    expect(oversized).toEqual([]);
    expect(lines).toHaveLength(2);
    expect(lines[0] === message).toBe(true); // not toEqual: a 10 MiB diff would be unreadable
    expect(lines[1]).toBe(small);
    expect(decoder.bufferedBytes).toBe(0);
    // Linear time: generous for a loaded CI machine, far below what quadratic work would take.
    expect(elapsedMs).toBeLessThan(10_000);
  });

  it('a 10 MiB message in 4 KiB plain Uint8Array chunks parses identically too', () => {
    const message = bigMessage(10 * MiB);
    const { decoder, lines } = collect();
    feed(decoder, plain(utf8(`${message}\n`)), 4096);
    expect(lines).toHaveLength(1);
    expect(lines[0] === message).toBe(true);
  });

  it('holds memory proportional to the bytes of a line fed in 1-byte chunks, not to the number of chunks', () => {
    const bytes = utf8('x'.repeat(4 * MiB));
    const { decoder, lines } = collect();
    globalThis.gc?.();
    const before = process.memoryUsage().heapUsed;
    feed(decoder, bytes, 1);
    globalThis.gc?.();
    const held = process.memoryUsage().heapUsed - before;
    expect(decoder.bufferedBytes).toBe(4 * MiB);
    // 4 million retained 1-byte views would take hundreds of MiB of heap.
    expect(held).toBeLessThan(100 * MiB);
    decoder.push(utf8('\n'));
    expect(lines[0]).toHaveLength(4 * MiB);
  });

  it('decodes multibyte characters split at every byte position, for Buffer and plain chunks', () => {
    const text = JSON.stringify({ t: 'aé€😀𝄞中ü ok ñ 🇺🇳' });
    const bytes = utf8(`${text}\n`);
    for (const wrap of [(b: Uint8Array) => b, plain]) {
      for (let i = 0; i <= bytes.length; i++) {
        for (let j = i; j <= bytes.length; j++) {
          const { decoder, lines } = collect();
          decoder.push(wrap(bytes.subarray(0, i)));
          decoder.push(wrap(bytes.subarray(i, j)));
          decoder.push(wrap(bytes.subarray(j)));
          expect(lines, `split at ${i} and ${j}`).toEqual([text]);
        }
      }
      const { decoder, lines } = collect();
      feed(decoder, wrap(bytes), 1);
      expect(lines).toEqual([text]);
    }
  });

  it('decodes multibyte characters split between large chunks', () => {
    const text = `${'x'.repeat(5000)}é€😀${'y'.repeat(5000)}`;
    const bytes = utf8(`${text}\n`);
    for (let i = 4998; i <= 5012; i++) {
      const { decoder, lines } = collect();
      decoder.push(bytes.subarray(0, i));
      decoder.push(bytes.subarray(i));
      expect(lines, `split at ${i}`).toEqual([text]);
    }
  });

  it.each([1, 100, 4096, 65536, 200_000])(
    'keeps no reference to a chunk: a caller reading into one reused %i-byte buffer gets every line',
    (bufferSize) => {
      const message = bigMessage(300 * 1024);
      const small = '{"jsonrpc":"2.0","id":2,"result":{}}';
      const huge = `{"jsonrpc":"2.0","id":3,"result":"${'h'.repeat(70_000)}"}`;
      const bytes = utf8(`${small}\n${message}\r\n${small}\n${huge}\n${small}\n${message}`);
      const { decoder, lines, oversized } = collect(64 * 1024);
      const buffer = Buffer.alloc(bufferSize);
      for (let i = 0; i < bytes.length; i += bufferSize) {
        const count = bytes.copy(buffer, 0, i, i + bufferSize);
        decoder.push(buffer.subarray(0, count));
        buffer.fill(0x5a); // what the next read would overwrite
      }
      decoder.end();
      const messageBytes = Buffer.byteLength(message);
      expect(oversized.map((o) => o.bytes)).toEqual([messageBytes + 1, huge.length, messageBytes]);
      expect(oversized.map((o) => recoverRequestId(o.head, o.tail))).toEqual([1, 3, 1]);
      expect(oversized[1]!.tail).toBe(huge.slice(-1024));
      expect(lines).toEqual([small, small, small]);
    },
  );

  it.each([1, 100, 4096, 65536])(
    'delivers lines that span chunks of a reused %i-byte buffer intact',
    (bufferSize) => {
      const message = bigMessage(300 * 1024);
      const small = '{"jsonrpc":"2.0","id":2,"result":{"a":"é€😀"}}';
      const bytes = utf8(`${small}\n${message}\r\n${small}\n${message}`);
      const { decoder, lines } = collect();
      const buffer = Buffer.alloc(bufferSize);
      for (let i = 0; i < bytes.length; i += bufferSize) {
        const count = bytes.copy(buffer, 0, i, i + bufferSize);
        decoder.push(buffer.subarray(0, count));
        buffer.fill(0x5a);
      }
      decoder.end();
      expect(lines).toHaveLength(4);
      expect(lines[0]).toBe(small);
      expect(lines[1] === message).toBe(true);
      expect(lines[2]).toBe(small);
      expect(lines[3] === message).toBe(true);
    },
  );

  it('strips a trailing CR, even when the CR and LF arrive in different chunks', () => {
    const { decoder, lines } = collect();
    decoder.push(utf8('{"a":1}\r\n{"b":2}\r'));
    decoder.push(utf8('\n{"c":"x\ry"}\r\n'));
    decoder.push(utf8('{"d":4}\r'));
    decoder.end();
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":"x\ry"}', '{"d":4}']);
  });

  it('skips blank lines: empty, CRLF only, spaces and tabs', () => {
    const { decoder, lines } = collect();
    decoder.push(utf8('\n\n{"a":1}\n\r\n   \n\t \r\n'));
    decoder.push(utf8(' '));
    decoder.push(utf8('\n{"b":2}\n\n'));
    decoder.push(utf8('  '));
    decoder.end();
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('passes junk lines through as lines: the transport decides what is junk', () => {
    const { decoder, lines } = collect();
    decoder.push(
      utf8('Server starting on port 3000…\n{"broken":\n\u001b[32mok\u001b[0m\n{"a":1}\n'),
    );
    expect(lines).toEqual([
      'Server starting on port 3000…',
      '{"broken":',
      '\u001b[32mok\u001b[0m',
      '{"a":1}',
    ]);
  });

  it('replaces invalid UTF-8 instead of throwing', () => {
    const { decoder, lines } = collect();
    decoder.push(Uint8Array.from([0x7b, 0xff, 0xc3, 0x7d, 0x0a]));
    expect(lines).toEqual(['{\ufffd\ufffd}']);
  });
});

describe('LineDecoder: oversized lines', () => {
  const head = '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"';
  const tail = '"}]}}';

  /**
   * Streams a line of `lineBytes` (head, filler, tail) in `chunkSize` chunks, with a message before
   * it in the first chunk, checking `bufferedBytes` after every push. The filler chunk is shared, so
   * 100 MiB are streamed without allocating them.
   */
  function streamOversized(
    decoder: LineDecoder,
    lineBytes: number,
    chunkSize: number,
    bound: number,
    finalNewline: boolean,
  ): void {
    const filler = utf8('x'.repeat(chunkSize));
    const push = (chunk: Uint8Array): void => {
      decoder.push(chunk);
      expect(decoder.bufferedBytes).toBeLessThanOrEqual(bound);
    };
    push(utf8(`{"jsonrpc":"2.0","id":6,"result":{}}\n${head}`));
    let remaining = lineBytes - head.length - tail.length;
    while (remaining > 0) {
      const size = Math.min(chunkSize, remaining);
      push(size === chunkSize ? filler : filler.subarray(0, size));
      remaining -= size;
    }
    push(utf8(finalNewline ? `${tail}\n{"jsonrpc":"2.0","id":8,"result":{}}\n` : tail));
  }

  it('discards a 100 MiB line within the limit plus one chunk, reports it, and keeps delivering', () => {
    const chunkSize = 64 * 1024;
    const { decoder, lines, oversized } = collect();
    const lineBytes = 100 * MiB;
    streamOversized(decoder, lineBytes, chunkSize, DEFAULT_MAX_MESSAGE_BYTES + chunkSize, true);
    expect(oversized).toHaveLength(1);
    const info = oversized[0]!;
    expect(info.bytes).toBe(lineBytes);
    expect(info.head).toBe(head + 'x'.repeat(1024 - head.length));
    expect(info.tail).toBe('x'.repeat(1024 - tail.length) + tail);
    expect(recoverRequestId(info.head, info.tail)).toBe(7);
    expect(lines).toEqual([
      '{"jsonrpc":"2.0","id":6,"result":{}}',
      '{"jsonrpc":"2.0","id":8,"result":{}}',
    ]);
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('discards a 100 MiB line without a final newline at end(), and the decoder stays usable', () => {
    const chunkSize = 64 * 1024;
    const { decoder, lines, oversized } = collect();
    streamOversized(decoder, 100 * MiB, chunkSize, DEFAULT_MAX_MESSAGE_BYTES + chunkSize, false);
    expect(oversized).toEqual([]);
    decoder.end();
    expect(oversized).toHaveLength(1);
    expect(oversized[0]!.bytes).toBe(100 * MiB);
    expect(oversized[0]!.tail.endsWith(tail)).toBe(true);
    expect(decoder.bufferedBytes).toBe(0);
    decoder.push(utf8('{"after":true}\n'));
    expect(lines).toEqual(['{"jsonrpc":"2.0","id":6,"result":{}}', '{"after":true}']);
  });

  it.each([1, 7, 1000, 1500, 5000])(
    'keeps the right head and tail when the line arrives in %i-byte chunks',
    (chunkSize) => {
      const limit = 64 * 1024;
      const body = Array.from({ length: 200 * 1024 }, (_, i) =>
        String.fromCharCode(97 + (i % 26)),
      ).join('');
      const line = `${head}${body}${tail}`;
      const { decoder, lines, oversized } = collect(limit);
      feed(decoder, utf8(`${line}\r\n{"next":1}\n`), chunkSize);
      expect(decoder.bufferedBytes).toBe(0);
      expect(oversized).toHaveLength(1);
      const info = oversized[0]!;
      expect(info.bytes).toBe(line.length + 1); // the CR counts, the LF does not
      expect(info.head).toBe(line.slice(0, 1024));
      // The last 1 KiB before the newline, without the CR.
      expect(info.tail).toBe(line.slice(-1023));
      expect(lines).toEqual(['{"next":1}']);
    },
  );

  it('delivers a line of exactly the limit and discards one byte more, in one chunk or many', () => {
    const limit = 10_000;
    const exact = `"${'a'.repeat(limit - 2)}"`;
    const over = `"${'b'.repeat(limit - 1)}"`;
    for (const chunkSize of [limit * 3, 4096, 1]) {
      const { decoder, lines, oversized } = collect(limit);
      feed(decoder, utf8(`${exact}\n${over}\n${exact}\n`), chunkSize);
      expect(lines, `chunks of ${chunkSize}`).toEqual([exact, exact]);
      expect(oversized.map((o) => o.bytes)).toEqual([limit + 1]);
    }
  });

  it('recovers the id of an oversized response from its head or its tail, never from a nested id', () => {
    const limit = 4096;
    const filler = 'z'.repeat(10_000);
    const cases: [string, number | string | undefined][] = [
      [`{"jsonrpc":"2.0","id":11,"result":{"items":[{"id":99}],"text":"${filler}"}}`, 11],
      [`{"id":"req-12","jsonrpc":"2.0","result":{"text":"${filler}"}}`, 'req-12'],
      [
        `{"jsonrpc":"2.0","result":{"items":[{"id":99}],"text":"${filler}","more":{"id":98}},"id":13}`,
        13,
      ],
      [`{"result":{"text":"${filler}"},"id":14,"jsonrpc":"2.0"}`, 14],
      [`{"jsonrpc":"2.0","result":{"id":99,"text":"${filler}","inner":{"id":98}}}`, undefined],
      [`{"jsonrpc":"2.0","result":{"text":"${filler}","list":[{"id":97}]}}`, undefined],
      // The other side's own request: its id is not one of ours.
      [
        `{"jsonrpc":"2.0","id":15,"method":"sampling/createMessage","params":{"text":"${filler}"}}`,
        undefined,
      ],
    ];
    for (const [line, id] of cases) {
      const { decoder, oversized } = collect(limit);
      feed(decoder, utf8(`${line}\n`), 1000);
      expect(oversized).toHaveLength(1);
      const info = oversized[0]!;
      expect(recoverRequestId(info.head, info.tail), line.slice(0, 60)).toBe(id);
    }
  });
});
