/**
 * A per-call limit on the size of a tool result handed onward, so that one huge tool output
 * cannot flood an agent's context. Pure: the input is never changed, untouched blocks are reused,
 * and sizes are computed by walking the values, never by serialising the result.
 */
import { McpHostError } from '../errors/mcp-host-error.js';
import { preview } from '../errors/redact.js';
import type { CallToolResult, ContentBlock } from '../protocol/types.js';

export interface ResultBudget {
  /**
   * The most bytes of text-like content handed onward: text blocks and embedded resources' text
   * (UTF-8 bytes), `structuredContent` (its JSON), resource links and unknown blocks (their JSON),
   * and the notes this module adds.
   */
  maxBytes: number;
  /**
   * The largest image, audio or embedded resource blob kept, in bytes of its base64 `data` (about
   * 4/3 of the decoded size); larger ones are replaced by a text note. `maxBytes` by default.
   * Media within the limit are kept whole and do not count against `maxBytes`.
   */
  maxImageBytes?: number;
}

export interface ResultBudgetOutcome {
  /** The result itself when nothing had to change; otherwise a new result. */
  result: CallToolResult;
  truncated: boolean;
  /** The size of the original result, measured as `resultByteLength` does. */
  originalBytes: number;
  /** Whether `structuredContent` was dropped (a note in `content` says so). */
  structuredContentDropped: boolean;
}

/** The signature every note and marker ends with, so a reader (or a model) knows who cut. */
export const RESULT_BUDGET_SIGNATURE = 'mcp-host result budget';

/**
 * A `structuredContent` at most this share of `maxBytes` is kept when the result is over budget;
 * a larger one is dropped (servers are asked to repeat it as text, which is truncated instead).
 */
export const KEEP_STRUCTURED_CONTENT_SHARE = 0.25;

/** A truncated text keeps at least this many bytes; smaller fair shares leave later blocks out. */
export const MIN_KEPT_TEXT_BYTES = 256;

/** Objects and values walked when measuring JSON before giving up and calling it huge. */
const MAX_WALKED_VALUES = 5_000_000;

/**
 * The size of a result as this module counts it: UTF-8 bytes of texts, base64 characters of media
 * and blobs, and the JSON bytes of `structuredContent`, resource links and unknown blocks (the
 * field names and quotes of text and media blocks are not counted).
 */
export function resultByteLength(result: CallToolResult): number {
  let total = result.structuredContent === undefined ? 0 : jsonByteLength(result.structuredContent);
  for (const block of contentOf(result)) {
    const kind = classify(block);
    total += kind.bytes;
  }
  return total;
}

/**
 * Shrinks a tool result to fit a budget:
 *
 * - media (image, audio, embedded blob) larger than `maxImageBytes` are replaced, in place, by a
 *   text note; smaller ones are kept as they are;
 * - if the text-like content exceeds `maxBytes`, `structuredContent` larger than a quarter of the
 *   budget is dropped (a note lists its size and top-level keys), then the remaining budget is
 *   shared fairly (max-min) among text blocks and embedded resources' text: blocks that fit their
 *   share are kept whole, longer ones are cut at a code point boundary (never inside a UTF-8
 *   sequence or a surrogate pair) and end with a marker such as
 *   `\n…[truncated: 1.2 MiB of 4.0 MiB shown; mcp-host result budget]`;
 * - when the fair share would leave less than {@link MIN_KEPT_TEXT_BYTES} (or a quarter of the
 *   budget, if smaller) of a block, the later blocks are left out whole, with one note at the end;
 * - resource links and unknown blocks are kept.
 *
 * The markers and notes count against `maxBytes`, so the text-like content of the output fits the
 * budget, except for budgets of a few hundred bytes that the notes alone exceed.
 */
export function applyResultBudget(
  result: CallToolResult,
  budget: ResultBudget,
): ResultBudgetOutcome {
  const maxBytes = checkLimit(budget.maxBytes, 'maxBytes');
  const maxMediaBytes =
    budget.maxImageBytes === undefined
      ? maxBytes
      : checkLimit(budget.maxImageBytes, 'maxImageBytes');
  const blocks = contentOf(result);
  const kinds = blocks.map(classify);
  const structuredBytes =
    result.structuredContent === undefined ? 0 : jsonByteLength(result.structuredContent);

  let originalBytes = structuredBytes;
  let fixedBytes = 0;
  let textBytes = 0;
  let mediaOver = false;
  for (const kind of kinds) {
    originalBytes += kind.bytes;
    if (kind.type === 'fixed') fixedBytes += kind.bytes;
    else if (kind.type === 'text') textBytes += kind.bytes;
    else if (kind.bytes > maxMediaBytes) mediaOver = true;
  }
  if (!mediaOver && fixedBytes + textBytes + structuredBytes <= maxBytes)
    return { result, truncated: false, originalBytes, structuredContentDropped: false };

  // Notes first: they are paid for out of the budget before the texts share what is left.
  const out: Array<ContentBlock | undefined> = blocks.slice();
  let spent = fixedBytes;
  for (let index = 0; index < blocks.length; index++) {
    const kind = kinds[index]!;
    if (kind.type !== 'media' || kind.bytes <= maxMediaBytes) continue;
    const note = textBlock(mediaNote(blocks[index]!, kind.bytes, maxMediaBytes));
    out[index] = note;
    spent += utf8Length(note.text);
  }

  let structuredContentDropped = false;
  let structuredNote: ContentBlock | undefined;
  if (structuredBytes > 0 && fixedBytes + textBytes + structuredBytes > maxBytes) {
    if (structuredBytes <= maxBytes * KEEP_STRUCTURED_CONTENT_SHARE) spent += structuredBytes;
    else {
      structuredContentDropped = true;
      const note = structuredContentNote(result.structuredContent, structuredBytes);
      structuredNote = textBlock(note);
      spent += utf8Length(note);
    }
  } else spent += structuredBytes;

  // The text pieces, in order, share what is left.
  const pieces: number[] = [];
  for (let index = 0; index < kinds.length; index++)
    if (kinds[index]!.type === 'text') pieces.push(index);
  const sizes = pieces.map((index) => kinds[index]!.bytes);
  const reserves = sizes.map((size) => utf8Length(marker(-1, size)));
  const available = Math.max(0, maxBytes - spent);
  const minKept = Math.min(MIN_KEPT_TEXT_BYTES, Math.floor(available / 4));
  const omittedNoteBytes = utf8Length(omittedNote(pieces.length, -1));

  const plan = (count: number): number | undefined => {
    const room = count < pieces.length ? available - omittedNoteBytes : available;
    if (room < 0) return count === 0 ? Infinity : undefined;
    const level = waterLevel(sizes, count, room);
    if (level === Infinity) return level;
    for (let piece = 0; piece < count; piece++)
      if (sizes[piece]! > level && level - reserves[piece]! < Math.max(1, minKept))
        return undefined;
    return level;
  };
  let kept = pieces.length;
  let level = plan(kept);
  if (level === undefined) {
    // The largest prefix whose fair share is still worth showing (fewer pieces, larger shares).
    let low = 0;
    let high = pieces.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (plan(middle) === undefined) high = middle - 1;
      else low = middle;
    }
    kept = low;
    level = plan(kept) ?? Infinity;
  }

  let omittedBytes = 0;
  for (let piece = 0; piece < pieces.length; piece++) {
    const index = pieces[piece]!;
    const size = sizes[piece]!;
    if (piece >= kept) {
      out[index] = undefined;
      omittedBytes += size;
    } else if (size > level) {
      out[index] = truncateTextBlock(blocks[index]!, level - reserves[piece]!, size);
    }
  }

  const content = out.filter((block): block is ContentBlock => block !== undefined);
  if (kept < pieces.length)
    content.push(textBlock(omittedNote(pieces.length - kept, omittedBytes)));
  if (structuredNote !== undefined) content.push(structuredNote);
  const shrunk: CallToolResult = { ...result, content };
  if (structuredContentDropped) delete shrunk.structuredContent;
  return { result: shrunk, truncated: true, originalBytes, structuredContentDropped };
}

type BlockKind = { type: 'text' | 'media' | 'fixed'; bytes: number };

function contentOf(result: CallToolResult): ContentBlock[] {
  return Array.isArray(result.content) ? result.content : [];
}

function classify(block: ContentBlock): BlockKind {
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

/**
 * The level `L` at which the first `count` sizes, each capped at `L`, add up to at most `room`
 * (max-min fairness); `Infinity` when they fit uncapped.
 */
function waterLevel(sizes: readonly number[], count: number, room: number): number {
  const sorted = sizes.slice(0, count).sort((a, b) => a - b);
  let remaining = room;
  for (let index = 0; index < sorted.length; index++) {
    const share = remaining / (sorted.length - index);
    const size = sorted[index]!;
    if (size > share) return Math.floor(share);
    remaining -= size;
  }
  return Infinity;
}

function truncateTextBlock(block: ContentBlock, keepBytes: number, originalBytes: number) {
  const cut = (text: string): string => {
    const prefix = utf8Prefix(text, Math.max(0, keepBytes));
    return prefix + marker(utf8Length(prefix), originalBytes);
  };
  if (block.type === 'text') return { ...block, text: cut(block.text) };
  if (block.type === 'resource' && typeof block.resource.text === 'string')
    return { ...block, resource: { ...block.resource, text: cut(block.resource.text) } };
  return block;
}

/** The marker after a cut text; `shownBytes` -1 gives the longest form, to reserve room. */
function marker(shownBytes: number, originalBytes: number): string {
  const shown = shownBytes < 0 ? '1023.9 KiB' : formatBytes(shownBytes);
  return `\n…[truncated: ${shown} of ${formatBytes(originalBytes)} shown; ${RESULT_BUDGET_SIGNATURE}]`;
}

function omittedNote(count: number, bytes: number): string {
  const size = bytes < 0 ? '1023.9 KiB' : formatBytes(bytes);
  return `[${count} more text block${count === 1 ? '' : 's'} (${size}) omitted; ${RESULT_BUDGET_SIGNATURE}]`;
}

function mediaNote(block: ContentBlock, bytes: number, limit: number): string {
  let what: string;
  if (block.type === 'resource') {
    const mime = typeof block.resource.mimeType === 'string' ? `${block.resource.mimeType}, ` : '';
    what = `resource ${preview(String(block.resource.uri), 200)} (${mime}${formatBytes(bytes)})`;
  } else {
    const mimeType = (block as { mimeType?: unknown }).mimeType;
    const mime = typeof mimeType === 'string' ? `${preview(mimeType, 100)}, ` : '';
    what = `${block.type} (${mime}${formatBytes(bytes)})`;
  }
  return `[${what} omitted: over the ${formatBytes(limit)} per-item limit; ${RESULT_BUDGET_SIGNATURE}]`;
}

function structuredContentNote(value: unknown, bytes: number): string {
  let keys = '';
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const names = Object.keys(value);
    const shown = names.slice(0, 8).map((name) => preview(name, 32));
    keys = `; top-level keys: ${shown.join(', ')}${names.length > 8 ? `, … (${names.length})` : ''}`;
  }
  return `[structuredContent (${formatBytes(bytes)}) dropped: over the result budget${keys}; ${RESULT_BUDGET_SIGNATURE}]`;
}

function textBlock(text: string): ContentBlock & { type: 'text'; text: string } {
  return { type: 'text', text };
}

function checkLimit(value: number, name: string): number {
  if (!(Number.isSafeInteger(value) && value >= 0))
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `applyResultBudget: ${name} must be a non-negative integer`,
      { details: { [name]: value } },
    );
  return value;
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

/** UTF-8 length of a string; a lone surrogate counts 3 bytes (U+FFFD). No allocation. */
export function utf8Length(text: string): number {
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
        total += jsonStringLength(item);
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
          total += jsonStringLength(key) + 1;
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

/** UTF-8 length of a string as JSON writes it: quotes, escapes, `\uXXXX` for lone surrogates. */
function jsonStringLength(text: string): number {
  let bytes = 2;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20)
      bytes += code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 2 : 6;
    else if (code === 0x22 || code === 0x5c) bytes += 2;
    else if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdfff) {
      if (code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
        bytes += 4;
        index++;
      } else bytes += 6;
    } else bytes += 3;
  }
  return bytes;
}
