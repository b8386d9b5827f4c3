import { DEFAULT_MAX_MESSAGE_BYTES } from './peer-options.js';

/** How much of an oversized line's start and end is kept, to recover its id. */
const EDGE_BYTES = 1024;
/** The bytes of unfinished lines are copied into blocks of this size. */
const BLOCK_BYTES = 64 * 1024;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** What the decoder reports about a line it discarded for being too large. */
export interface OversizedLine {
  /** Bytes discarded (the whole line, without its newline). */
  bytes: number;
  /** The first bytes of the line, decoded, at most 1 KiB. */
  head: string;
  /** The last bytes of the line, decoded, at most 1 KiB. */
  tail: string;
}

export interface LineDecoderOptions {
  maxMessageBytes?: number;
  /**
   * Each line. `cut` is true for a last line that ended with the stream rather than with a
   * newline (see `end()`): the writer may have gone away in the middle of it.
   */
  onLine: (line: string, cut: boolean) => void;
  onOversized: (info: OversizedLine) => void;
}

/**
 * Newline-delimited framing over a byte stream, linear in the input: each chunk is scanned once
 * for newlines, and bytes are decoded as UTF-8 only once a whole line is known, so a multibyte
 * character split across chunks decodes correctly. A trailing `\r` is stripped and blank lines are
 * skipped. A line longer than `maxMessageBytes` is discarded as it streams in, without being parsed
 * or buffered: memory held stays within the limit plus one block, and the next line is delivered as
 * usual.
 *
 * `push()` never keeps a reference to the chunk it is given, so the caller may read into one
 * buffer again and again (see `readStdout`): a line that ends in the chunk is decoded from it
 * directly, and the bytes of an unfinished line are copied into 64 KiB blocks (never
 * re-concatenated per chunk; a line that ends inside the block it started in is decoded from the
 * block, without a further copy). While a line is discarded nothing but its first and last 1 KiB
 * and its length is kept.
 */
export class LineDecoder {
  readonly maxMessageBytes: number;
  readonly #onLine: (line: string, cut: boolean) => void;
  readonly #onOversized: (info: OversizedLine) => void;
  /** Filled parts of earlier blocks that hold the start of the unfinished line. */
  #pieces: Uint8Array[] = [];
  #pendingBytes = 0;
  /** The block being filled: the unfinished line's bytes in it are [blockStart, blockEnd). */
  #block: Uint8Array = alloc(0);
  #blockStart = 0;
  #blockEnd = 0;
  // Discard state for a line past the limit.
  #discarding = false;
  #discardedBytes = 0;
  #head: Uint8Array = alloc(0);
  // A sliding window over the discarded bytes: the last EDGE_BYTES sit at the end of its used part.
  #tail: Uint8Array = alloc(2 * EDGE_BYTES);
  #tailLength = 0;

  constructor(options: LineDecoderOptions) {
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#onLine = options.onLine;
    this.#onOversized = options.onOversized;
  }

  /** Bytes of an unfinished line currently held (0 while discarding). */
  get bufferedBytes(): number {
    return this.#pendingBytes;
  }

  push(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        if (start < chunk.length) this.#keep(chunk, start);
        return;
      }
      this.#endLine(chunk, start, newline);
      start = newline + 1;
    }
  }

  /** Delivers a final line that had no newline (at end of stream), then resets. */
  end(): void {
    if (this.#discarding) this.#finishDiscard(alloc(0), 0, 0);
    else if (this.#pendingBytes > 0) {
      const total = this.#pendingBytes;
      const joined = this.#joinPieces(total);
      this.#release();
      this.#emit(joined, 0, total, true);
    }
    this.#release();
  }

  #keep(chunk: Uint8Array, start: number): void {
    const length = chunk.length - start;
    if (this.#discarding) {
      this.#discardedBytes += length;
      this.#appendTail(chunk.subarray(start));
      return;
    }
    if (this.#pendingBytes + length > this.maxMessageBytes) {
      this.#startDiscard(chunk.subarray(start));
      return;
    }
    this.#copyIn(chunk, start, chunk.length);
  }

  /** Copies chunk[start, end) after the unfinished line's bytes, into as many blocks as it takes. */
  #copyIn(chunk: Uint8Array, start: number, end: number): void {
    this.#pendingBytes += end - start;
    while (start < end) {
      if (this.#blockEnd === this.#block.length) {
        this.#sealBlock();
        this.#block = alloc(BLOCK_BYTES);
        this.#blockStart = this.#blockEnd = 0;
      }
      const count = Math.min(end - start, this.#block.length - this.#blockEnd);
      copyInto(this.#block, this.#blockEnd, chunk, start, start + count);
      this.#blockEnd += count;
      start += count;
    }
  }

  /** Moves the bytes gathered in the block since the last seal into the piece list. */
  #sealBlock(): void {
    if (this.#blockEnd === this.#blockStart) return;
    this.#pieces.push(this.#block.subarray(this.#blockStart, this.#blockEnd));
    this.#blockStart = this.#blockEnd;
  }

  /** Forgets the unfinished line: its pieces, and its part of the current block. */
  #release(): void {
    this.#pieces = [];
    this.#pendingBytes = 0;
    this.#blockStart = this.#blockEnd;
  }

  #appendTail(bytes: Uint8Array): void {
    const tail = this.#tail;
    if (bytes.length >= EDGE_BYTES) {
      tail.set(bytes.subarray(bytes.length - EDGE_BYTES));
      this.#tailLength = EDGE_BYTES;
      return;
    }
    if (this.#tailLength + bytes.length > tail.length) {
      // Only reached with more than EDGE_BYTES held: keep the last EDGE_BYTES, in front.
      tail.copyWithin(0, this.#tailLength - EDGE_BYTES, this.#tailLength);
      this.#tailLength = EDGE_BYTES;
    }
    copyInto(tail, this.#tailLength, bytes, 0, bytes.length);
    this.#tailLength += bytes.length;
  }

  #endLine(chunk: Uint8Array, start: number, end: number): void {
    if (this.#discarding) {
      this.#finishDiscard(chunk, start, end);
      return;
    }
    const length = end - start;
    if (this.#pendingBytes === 0) {
      if (length > this.maxMessageBytes) {
        this.#startDiscard(chunk.subarray(start, end));
        this.#finishDiscard(chunk, end, end);
      } else {
        this.#emit(chunk, start, end);
      }
      return;
    }
    const total = this.#pendingBytes + length;
    if (total > this.maxMessageBytes) {
      this.#startDiscard(chunk.subarray(start, end));
      this.#finishDiscard(chunk, end, end);
      return;
    }
    if (this.#pieces.length === 0 && this.#blockEnd + length <= this.#block.length) {
      // The whole line fits in the block it started in: decode it from there.
      copyInto(this.#block, this.#blockEnd, chunk, start, end);
      this.#blockEnd += length;
      const block = this.#block;
      const from = this.#blockStart;
      this.#release();
      this.#emit(block, from, from + total);
      return;
    }
    this.#sealBlock();
    this.#pieces.push(chunk.subarray(start, end));
    const joined = this.#joinPieces(total);
    this.#release();
    this.#emit(joined, 0, total);
  }

  #joinPieces(total: number): Uint8Array {
    this.#sealBlock();
    if (this.#pieces.length === 1) return this.#pieces[0]!;
    const joined = alloc(total);
    let offset = 0;
    for (const piece of this.#pieces) {
      joined.set(piece, offset);
      offset += piece.length;
    }
    return joined;
  }

  #emit(bytes: Uint8Array, start: number, end: number, cut = false): void {
    if (end > start && bytes[end - 1] === CARRIAGE_RETURN) end--;
    if (end === start || isBlank(bytes, start, end)) return;
    this.#onLine(decode(bytes, start, end), cut);
  }

  #startDiscard(rest: Uint8Array): void {
    // Head and tail are gathered piece by piece: joining what is held would copy up to the limit.
    this.#sealBlock();
    const pieces = [...this.#pieces, rest];
    this.#head = firstBytes(pieces);
    this.#tailLength = 0;
    for (const piece of pieces) this.#appendTail(piece);
    this.#discardedBytes = this.#pendingBytes + rest.length;
    this.#release();
    // The blocks that held the line are dropped: a fresh block starts after the discard.
    this.#block = alloc(0);
    this.#blockStart = this.#blockEnd = 0;
    this.#discarding = true;
  }

  #finishDiscard(chunk: Uint8Array, start: number, end: number): void {
    this.#discardedBytes += end - start;
    this.#appendTail(chunk.subarray(start, end));
    let tail = this.#tail.subarray(Math.max(0, this.#tailLength - EDGE_BYTES), this.#tailLength);
    if (tail.length > 0 && tail[tail.length - 1] === CARRIAGE_RETURN) tail = tail.subarray(0, -1);
    const info: OversizedLine = {
      bytes: this.#discardedBytes,
      head: decode(this.#head, 0, this.#head.length),
      tail: decode(tail, 0, tail.length),
    };
    this.#discarding = false;
    this.#discardedBytes = 0;
    this.#head = alloc(0);
    this.#tailLength = 0;
    this.#onOversized(info);
  }
}

/** Made on first use (never under Node, whose Buffers decode themselves): loading stays cheap. */
let textDecoder: { decode(bytes: Uint8Array): string } | undefined;
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

/** A Buffer where there is one (its utf8 decoding is the fastest), else a Uint8Array. */
function alloc(size: number): Uint8Array {
  return NodeBuffer === undefined ? new Uint8Array(size) : NodeBuffer.allocUnsafe(size);
}

function decode(bytes: Uint8Array, start: number, end: number): string {
  if (NodeBuffer !== undefined && NodeBuffer.isBuffer(bytes))
    return bytes.toString('utf8', start, end);
  textDecoder ??= new TextDecoder();
  return textDecoder.decode(bytes.subarray(start, end));
}

function isBlank(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const byte = bytes[i];
    if (byte !== 0x20 && byte !== 0x09 && byte !== CARRIAGE_RETURN) return false;
  }
  return true;
}

/** The first EDGE_BYTES of the pieces, copied (so the source chunks can be freed). */
function firstBytes(pieces: readonly Uint8Array[]): Uint8Array {
  const total = pieces.reduce((sum, piece) => sum + piece.length, 0);
  const out = alloc(Math.min(EDGE_BYTES, total));
  let offset = 0;
  for (const piece of pieces) {
    if (offset >= out.length) break;
    const take = Math.min(piece.length, out.length - offset);
    out.set(piece.subarray(0, take), offset);
    offset += take;
  }
  return out;
}

/** Copies source[start, end) to target at offset; a plain loop for a few bytes beats `set`. */
function copyInto(
  target: Uint8Array,
  offset: number,
  source: Uint8Array,
  start: number,
  end: number,
): void {
  if (end - start > 32) {
    target.set(source.subarray(start, end), offset);
    return;
  }
  for (let i = start; i < end; i++) target[offset++] = source[i]!;
}
