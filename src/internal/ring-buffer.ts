/**
 * Keeps the last `capacityBytes` bytes written to it, in one buffer allocated on the first write
 * (most servers write nothing to stderr; a spawn should not wait on 64 KiB of zeroes). Used for
 * the stderr tail of a server process: always drained, never growing.
 */
export class ByteRingBuffer {
  #buffer: Uint8Array | undefined;
  #start = 0;
  #length = 0;
  #total = 0;

  constructor(readonly capacityBytes: number) {}

  /** Bytes ever written, including those that have since been overwritten. */
  get totalBytes(): number {
    return this.#total;
  }

  get length(): number {
    return this.#length;
  }

  write(chunk: Uint8Array): void {
    this.#total += chunk.length;
    const capacity = this.capacityBytes;
    if (capacity === 0 || chunk.length === 0) return;
    const buffer = (this.#buffer ??= new Uint8Array(capacity));
    if (chunk.length >= capacity) {
      buffer.set(chunk.subarray(chunk.length - capacity));
      this.#start = 0;
      this.#length = capacity;
      return;
    }
    const end = (this.#start + this.#length) % capacity;
    const firstPart = Math.min(chunk.length, capacity - end);
    buffer.set(chunk.subarray(0, firstPart), end);
    if (firstPart < chunk.length) buffer.set(chunk.subarray(firstPart), 0);
    const overflow = this.#length + chunk.length - capacity;
    if (overflow > 0) {
      this.#start = (this.#start + overflow) % capacity;
      this.#length = capacity;
    } else {
      this.#length += chunk.length;
    }
  }

  /** The last `maxBytes` bytes (all of them by default), oldest first. */
  read(maxBytes = this.#length): Uint8Array {
    const count = Math.min(maxBytes, this.#length);
    const out = new Uint8Array(count);
    const buffer = this.#buffer;
    if (buffer === undefined || count === 0) return out;
    const capacity = buffer.length;
    const from = (this.#start + this.#length - count) % capacity;
    const firstPart = Math.min(count, capacity - from);
    out.set(buffer.subarray(from, from + firstPart));
    if (firstPart < count) out.set(buffer.subarray(0, count - firstPart), firstPart);
    return out;
  }
}
