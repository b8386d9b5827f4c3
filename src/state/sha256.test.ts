import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from './sha256.js';

const nodeSha256 = (data: string | Uint8Array) =>
  createHash('sha256')
    .update(typeof data === 'string' ? Buffer.from(data, 'utf8') : data)
    .digest('hex');

describe('sha256Hex', () => {
  it('gives the FIPS 180-4 test vectors as 64 lowercase hex digits', async () => {
    expect(await sha256Hex('')).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(await sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(await sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('hashes text as UTF-8, a lone surrogate as U+FFFD', async () => {
    expect(await sha256Hex('é😀\u20ac')).toBe(nodeSha256('é😀\u20ac'));
    expect(await sha256Hex('a\ud800b')).toBe(nodeSha256('a\ufffdb'));
    expect(await sha256Hex('\udfff')).toBe(nodeSha256('\ufffd'));
  });

  it('agrees with node:crypto at every padding boundary and across block counts', async () => {
    // Lengths around 55/56 (the length field no longer fits the last block) and 64 (a whole
    // block), several blocks, and both sides of the size where Web Crypto takes over.
    const lengths = [...Array.from({ length: 140 }, (_, i) => i), 1000, 4095, 4096, 65_535];
    lengths.push(64 * 1024, 64 * 1024 + 1, 200_000);
    for (const length of lengths) {
      const bytes = new Uint8Array(randomBytes(length));
      expect(await sha256Hex(bytes), `${length} bytes`).toBe(nodeSha256(bytes));
    }
  });

  it('reads only the bytes of a view, not the rest of its buffer', async () => {
    const buffer = new Uint8Array(randomBytes(300));
    const view = buffer.subarray(17, 217);
    expect(await sha256Hex(view)).toBe(nodeSha256(Buffer.from(view)));
  });
});
