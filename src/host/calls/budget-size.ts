/**
 * How the result budget measures sizes, without serialising anything: UTF-8 lengths and prefixes,
 * the JSON byte length of a value (walked iteratively), the size of a whole result as
 * `applyResultBudget` counts it, and `formatBytes` for the notes it writes. Pure.
 */
import type { CallToolResult, ContentBlock } from '../../protocol/types.js';
import { jsonStringBytes } from '../../schema/schema-walk.js';

/** Objects and values walked when measuring JSON before giving up and calling it huge. */
const MAX_WALKED_VALUES = 5_000_000;

/**
 * The size of a result as this module counts it: UTF-8 bytes of texts, base64 characters of media
 * and blobs, and the JSON bytes of `structuredContent`, resource links and unknown blocks (the
 * field names and quotes of text and media blocks are not counted).
 */
export function resultByteLength(result: CallToolResult): number {
  let total = result.structuredContent === undefined ? 0 : jsonByteLength(result.structuredContent);
  for (const block of contentOf(result)) total += blockBytes(block);
  return total;
}

/**
 * The bytes `classify` counts for a block, without the object it returns: a result's size is
 * measured for every call, and most results are one short text block.
 */
function blockBytes(block: ContentBlock): number {
  if (typeof block === 'object' && block !== null && block.type === 'text') {
    const text: unknown = block.text;
    if (typeof text === 'string') return utf8Length(text);
  }
  return classify(block).bytes;
}

export type BlockKind = { type: 'text' | 'media' | 'fixed'; bytes: number };

export function contentOf(result: CallToolResult): ContentBlock[] {
  return Array.isArray(result.content) ? result.content : [];
}

export function classify(block: ContentBlock): BlockKind {
  if (typeof block === 'object' && block !== null) {
    switch (block.type) {
      case 'text':
        if (typeof block.text === 'string') return { type: 'text', bytes: utf8Length(block.text) };
        break;
      case 'image':
      case 'audio':
        if (typeof block.data === 'string') return { type: 'media', bytes: block.data.length };
        break;
      case 'resource': {
        const resource: unknown = block.resource;
        if (typeof resource === 'object' && resource !== null) {
          const { text, blob } = resource as { text?: unknown; blob?: unknown };
          if (typeof text === 'string') return { type: 'text', bytes: utf8Length(text) };
          if (typeof blob === 'string') return { type: 'media', bytes: blob.length };
        }
        break;
      }
      case 'resource_link':
        break;
    }
  }
  return { type: 'fixed', bytes: jsonByteLength(block) };
}

/** `1023 B`, `1.2 KiB`, `4.0 MiB`, `1.5 GiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** Node's native UTF-8 length where there is one (the same count, without a loop in JavaScript). */
const NativeBuffer = (
  globalThis as { Buffer?: { byteLength(this: void, text: string, encoding: 'utf8'): number } }
).Buffer;

/** UTF-8 length of a string; a lone surrogate counts 3 bytes (U+FFFD). No allocation. */
export function utf8Length(text: string): number {
  if (NativeBuffer !== undefined && text.length > 64) return NativeBuffer.byteLength(text, 'utf8');
  let bytes = text.length;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 2; // two UTF-16 units, four bytes
      index++;
    } else bytes += 2;
  }
  return bytes;
}

/** The longest prefix of `text` whose UTF-8 encoding fits `maxBytes`, cut between code points. */
export function utf8Prefix(text: string, maxBytes: number): string {
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    let units = 1;
    let size: number;
    if (code < 0x80) size = 1;
    else if (code < 0x800) size = 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      size = 4;
      units = 2;
    } else size = 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    index += units;
  }
  return text.slice(0, index);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * The UTF-8 length of `JSON.stringify(value)`, computed by walking the value (iteratively: deep
 * nesting cannot overflow the stack). A value too large to walk (or cyclic) measures as
 * `Number.MAX_SAFE_INTEGER`, which is over every budget.
 */
export function jsonByteLength(value: unknown): number {
  let total = 0;
  let walked = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    if (++walked > MAX_WALKED_VALUES) return Number.MAX_SAFE_INTEGER;
    const item = stack.pop();
    switch (typeof item) {
      case 'string':
        total += jsonStringBytes(item);
        break;
      case 'number':
        total += Number.isFinite(item) ? String(item).length : 4;
        break;
      case 'boolean':
        total += item ? 4 : 5;
        break;
      case 'object': {
        if (item === null) {
          total += 4;
          break;
        }
        const toJson = (item as { toJSON?: unknown }).toJSON;
        if (typeof toJson === 'function') {
          stack.push((toJson as () => unknown).call(item));
          break;
        }
        if (Array.isArray(item)) {
          total += 2 + Math.max(0, item.length - 1);
          for (const element of item as unknown[]) stack.push(isOmitted(element) ? null : element);
          break;
        }
        let members = 0;
        const record = item as Record<string, unknown>;
        for (const key of Object.keys(record)) {
          const member = record[key];
          if (isOmitted(member)) continue;
          members++;
          total += jsonStringBytes(key) + 1;
          stack.push(member);
        }
        total += 2 + Math.max(0, members - 1);
        break;
      }
      case 'undefined':
      case 'function':
      case 'symbol':
      case 'bigint':
        // Only at the top or through toJSON (members and elements are filtered above): counted as
        // `null`, though JSON.stringify writes nothing (or throws, for a BigInt).
        total += 4;
    }
  }
  return total;
}

function isOmitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}
