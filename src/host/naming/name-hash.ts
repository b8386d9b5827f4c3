/**
 * A small synchronous, platform-neutral hash for tool-name suffixes: 32-bit FNV-1a over the UTF-8
 * bytes, finished with MurmurHash3's avalanche step so that names differing in one character get
 * unrelated suffixes. Not cryptographic: it only has to be stable across runs, platforms and
 * versions, and spread well (a clash is detected and resolved by the caller). `node:crypto` is not
 * available here (the root entry stays platform-neutral) and WebCrypto is asynchronous.
 */

const FNV_PRIME = 0x01000193;
const FNV_OFFSET_BASIS = 0x811c9dc5;
const encoder = new TextEncoder();

/** The 32-bit hash of `text` with `seed` mixed into the offset basis. */
export function hash32(text: string, seed = 0): number {
  let hash = (FNV_OFFSET_BASIS ^ Math.imul(seed, 0x9e3779b1)) >>> 0;
  for (const byte of encoder.encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, FNV_PRIME);
  }
  // MurmurHash3 fmix32.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** `hash32` as 8 lowercase hex digits. */
export function hash8(text: string, seed = 0): string {
  return hash32(text, seed).toString(16).padStart(8, '0');
}
