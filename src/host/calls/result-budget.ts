/**
 * A per-call limit on the size of a tool result handed onward, so that one huge tool output
 * cannot flood an agent's context. Pure: the input is never changed, untouched blocks are reused,
 * and sizes are computed by walking the values, never by serialising the result.
 */
import { McpHostError } from '../../errors/mcp-host-error.js';
import { preview } from '../../errors/redact.js';
import type { CallToolResult, ContentBlock } from '../../protocol/types.js';
import {
  classify,
  contentOf,
  jsonByteLength,
  resultByteLength,
  utf8Length,
  utf8Prefix,
  formatBytes,
} from './budget-size.js';

/** The default budget of a tool result handed onward by the host (`maxResultBytes`): 1 MiB. */
export const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;

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
 * The `_meta` key of a result the budget cut (its value a {@link ResultTruncation}), so that a
 * caller sees the cut without reading the text. A namespaced key as MCP's `_meta` rules ask
 * (`io.mcp-host/`: reverse DNS, second label not `mcp` or `modelcontextprotocol`). The host sets
 * it only on results it cut, and removes it from results a server sent with it.
 */
export const RESULT_TRUNCATED_META_KEY = 'io.mcp-host/truncated';

/** What `_meta["io.mcp-host/truncated"]` of a cut result holds (sizes as the budget counts). */
export interface ResultTruncation {
  /** The size of the result the server sent. */
  originalBytes: number;
  /** The size of what was handed on, the notes and markers included. */
  keptBytes: number;
  /** The budget it was cut to (`maxResultBytes`). */
  maxBytes: number;
  /** `structuredContent` was dropped (a note in `content` says so). */
  structuredContentDropped: boolean;
}

/**
 * A `structuredContent` at most this share of `maxBytes` is kept when the result is over budget;
 * a larger one is dropped (servers are asked to repeat it as text, which is truncated instead).
 */
export const KEEP_STRUCTURED_CONTENT_SHARE = 0.25;

/** A truncated text keeps at least this many bytes; smaller fair shares leave later blocks out. */
export const MIN_KEPT_TEXT_BYTES = 256;

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
  const truncation: ResultTruncation = {
    originalBytes,
    keptBytes: resultByteLength(shrunk),
    maxBytes,
    structuredContentDropped,
  };
  shrunk._meta = { ...metaOf(result), [RESULT_TRUNCATED_META_KEY]: truncation };
  return { result: shrunk, truncated: true, originalBytes, structuredContentDropped };
}

/** The truncation marker of a result, when the budget cut it. */
export function resultTruncation(result: CallToolResult): ResultTruncation | undefined {
  const meta = metaOf(result);
  if (meta === undefined || !Object.hasOwn(meta, RESULT_TRUNCATED_META_KEY)) return undefined;
  return meta[RESULT_TRUNCATED_META_KEY] as ResultTruncation;
}

/**
 * The result without a truncation marker of its own making (a server cannot claim that the host
 * cut it): the result itself when it has none.
 */
export function withoutTruncationMarker(result: CallToolResult): CallToolResult {
  const meta = metaOf(result);
  if (meta === undefined || !Object.hasOwn(meta, RESULT_TRUNCATED_META_KEY)) return result;
  const { [RESULT_TRUNCATED_META_KEY]: _claimed, ...rest } = meta;
  return { ...result, _meta: rest };
}

function metaOf(result: CallToolResult): Record<string, unknown> | undefined {
  const meta: unknown = result._meta;
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta)
    ? (meta as Record<string, unknown>)
    : undefined;
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
