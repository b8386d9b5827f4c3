/**
 * The behaviour-relevant part of a tool definition, and a structured, bounded diff between two of
 * them: what tool pinning (tool-pins.ts) hashes, stores and shows when a definition changes.
 * Platform-neutral and pure.
 *
 * A diff is a list of changes, each at a JSON Pointer (RFC 6901) into the definition, plus a
 * one-line summary for people. Both are bounded, because the definitions come from servers that
 * may be hostile: at most `maxChanges` changes (then `truncated`), each value kept whole only
 * when its JSON text fits in `maxValueChars` (otherwise a cut JSON-text preview, marked
 * `truncated` on the change), and a summary of at most `MAX_DIFF_SUMMARY_CHARS`. The walk stops
 * at the change limit, and previews never serialise more than they keep, so a huge schema costs
 * one pass over it at most.
 */
import { preview, truncate } from '../../errors/redact.js';
import type { Tool } from '../../protocol/types.js';

/** The fields of a tool that pinning covers; `_meta` and unknown fields are left out. */
export const PINNED_TOOL_FIELDS = [
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
] as const;

/** The behaviour-relevant definition of a tool: what a model sees and what the host acts on. */
export type PinnedDefinition = Pick<Tool, (typeof PINNED_TOOL_FIELDS)[number]>;

/** At most this many changes per diff (default of `maxChanges`). */
export const MAX_DIFF_CHANGES = 50;
/** A value whose JSON text is longer than this is kept as a cut preview (default of `maxValueChars`). */
export const MAX_DIFF_VALUE_CHARS = 300;
/** A longer JSON Pointer is cut (and its change marked `truncated`). */
export const MAX_DIFF_PATH_CHARS = 300;
/** Below this nesting depth two differing subtrees are reported as one change. */
export const MAX_DIFF_DEPTH = 64;

/** One difference between two definitions. */
export interface ToolChange {
  /** JSON Pointer into the definition, such as `/inputSchema/properties/region/enum/2`; `''` is the whole tool. */
  path: string;
  kind: 'added' | 'removed' | 'changed';
  /** The old value (for `removed` and `changed`), or a cut preview of its JSON text. */
  before?: unknown;
  /** The new value (for `added` and `changed`), or a cut preview of its JSON text. */
  after?: unknown;
  /**
   * Set when `before` or `after` is a cut preview (a string) instead of the value itself, or the
   * path was longer than `MAX_DIFF_PATH_CHARS` and is cut.
   */
  truncated?: true;
}

/** A structured, bounded diff between two tool definitions. */
export interface ToolDiff {
  /** The changes, in definition order; at most `maxChanges`. */
  changes: ToolChange[];
  /** True when there were more changes than kept. */
  truncated: boolean;
  /**
   * One line for people, grouped by field: `description changed; inputSchema: property 'region'
   * enum value added`. `no change` for an empty diff.
   */
  summary: string;
}

export interface ToolDiffOptions {
  /** Default `MAX_DIFF_CHANGES` (50). */
  maxChanges?: number;
  /** Default `MAX_DIFF_VALUE_CHARS` (300). */
  maxValueChars?: number;
}

/**
 * The behaviour-relevant subset of a tool: `name`, `title`, `description`, `inputSchema`,
 * `outputSchema` and `annotations` (those present). Not `_meta`, which servers use for volatile
 * data (timestamps, tracing), nor fields this library does not know. The values are the tool's own
 * (not copied).
 */
export function pinnedDefinition(tool: Tool | PinnedDefinition): PinnedDefinition {
  const definition: Record<string, unknown> = {};
  for (const field of PINNED_TOOL_FIELDS) {
    const value = Object.hasOwn(tool, field) ? (tool as Record<string, unknown>)[field] : undefined;
    if (value !== undefined) definition[field] = value;
  }
  return definition as PinnedDefinition;
}

/**
 * The differences between two definitions of a tool (given whole or as `pinnedDefinition`s; only
 * the pinned fields are compared). `before` undefined means the tool is new (one `added` change at
 * `''`), `after` undefined that it is gone. Arrays of plain values (`enum`, `required`) are
 * compared as collections: an inserted value is one `added` change at its index, not a change at
 * every later index; a pure reordering is one `changed` change at the array.
 */
export function diffToolDefinitions(
  before: Tool | PinnedDefinition | undefined,
  after: Tool | PinnedDefinition | undefined,
  options: ToolDiffOptions = {},
): ToolDiff {
  const walk = new DiffWalk(
    options.maxChanges ?? MAX_DIFF_CHANGES,
    options.maxValueChars ?? MAX_DIFF_VALUE_CHARS,
  );
  if (before === undefined && after === undefined) return walk.result();
  if (before === undefined) walk.push('', 'added', undefined, pinnedDefinition(after!));
  else if (after === undefined) walk.push('', 'removed', pinnedDefinition(before), undefined);
  else walk.walk(pinnedDefinition(before), pinnedDefinition(after), '', 0);
  return walk.result();
}

type Shape = 'array' | 'object' | 'value';

function shapeOf(value: unknown): Shape {
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' && value !== null ? 'object' : 'value';
}

function isPresent(object: Record<string, unknown>, key: string): boolean {
  return Object.hasOwn(object, key) && object[key] !== undefined;
}

class DiffWalk {
  readonly #changes: ToolChange[] = [];
  #truncated = false;

  constructor(
    readonly maxChanges: number,
    readonly maxValueChars: number,
  ) {}

  result(): ToolDiff {
    return {
      changes: this.#changes,
      truncated: this.#truncated,
      summary: summarize(this.#changes, this.#truncated),
    };
  }

  push(path: string, kind: ToolChange['kind'], before: unknown, after: unknown): void {
    if (this.#truncated) return;
    if (this.#changes.length >= this.maxChanges) {
      this.#truncated = true;
      return;
    }
    // A hostile schema can nest long member names: the pointer is bounded too.
    let cut = path.length > MAX_DIFF_PATH_CHARS;
    const change: ToolChange = { path: cut ? truncate(path, MAX_DIFF_PATH_CHARS) : path, kind };
    if (kind !== 'added') {
      const shown = previewValue(before, this.maxValueChars);
      change.before = shown.value;
      cut ||= shown.truncated;
    }
    if (kind !== 'removed') {
      const shown = previewValue(after, this.maxValueChars);
      change.after = shown.value;
      cut ||= shown.truncated;
    }
    if (cut) change.truncated = true;
    this.#changes.push(change);
  }

  walk(before: unknown, after: unknown, path: string, depth: number): void {
    if (this.#truncated || before === after) return;
    const shape = shapeOf(before);
    if (shape !== shapeOf(after) || shape === 'value') {
      this.push(path, 'changed', before, after);
      return;
    }
    if (depth >= MAX_DIFF_DEPTH) {
      if (!sameJson(before, after)) this.push(path, 'changed', before, after);
      return;
    }
    if (shape === 'array') this.#arrays(before as unknown[], after as unknown[], path, depth);
    else
      this.#objects(
        before as Record<string, unknown>,
        after as Record<string, unknown>,
        path,
        depth,
      );
  }

  #objects(
    before: Record<string, unknown>,
    after: Record<string, unknown>,
    path: string,
    depth: number,
  ): void {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) {
      if (this.#truncated) return;
      const at = `${path}/${pointerSegment(key)}`;
      const inBefore = isPresent(before, key);
      const inAfter = isPresent(after, key);
      if (inBefore && inAfter) this.walk(before[key], after[key], at, depth + 1);
      else if (inAfter) this.push(at, 'added', undefined, after[key]);
      else if (inBefore) this.push(at, 'removed', before[key], undefined);
    }
  }

  #arrays(before: unknown[], after: unknown[], path: string, depth: number): void {
    if (
      before.every((item) => shapeOf(item) === 'value') &&
      after.every((item) => shapeOf(item) === 'value')
    ) {
      this.#valueArrays(before, after, path);
      return;
    }
    const common = Math.min(before.length, after.length);
    for (let index = 0; index < common && !this.#truncated; index++)
      this.walk(before[index], after[index], `${path}/${index}`, depth + 1);
    for (let index = common; index < before.length && !this.#truncated; index++)
      this.push(`${path}/${index}`, 'removed', before[index], undefined);
    for (let index = common; index < after.length && !this.#truncated; index++)
      this.push(`${path}/${index}`, 'added', undefined, after[index]);
  }

  /** Arrays of plain values, compared as multisets; a pure reordering is one change. */
  #valueArrays(before: unknown[], after: unknown[], path: string): void {
    const removed = unmatched(before, after);
    const added = unmatched(after, before);
    if (removed.length === 0 && added.length === 0) {
      if (before.some((item, index) => item !== after[index]))
        this.push(path, 'changed', before, after);
      return;
    }
    for (const index of removed) this.push(`${path}/${index}`, 'removed', before[index], undefined);
    for (const index of added) this.push(`${path}/${index}`, 'added', undefined, after[index]);
  }
}

/** Indexes of the items of `items` left over once each is matched with an equal one of `others`. */
function unmatched(items: readonly unknown[], others: readonly unknown[]): number[] {
  const available = new Map<unknown, number>();
  for (const other of others) available.set(other, (available.get(other) ?? 0) + 1);
  const left: number[] = [];
  items.forEach((item, index) => {
    const count = available.get(item) ?? 0;
    if (count > 0) available.set(item, count - 1);
    else left.push(index);
  });
  return left;
}

/** Deep equality of two JSON values, without recursion (any depth, one pass). */
function sameJson(a: unknown, b: unknown): boolean {
  const stack: Array<[unknown, unknown]> = [[a, b]];
  while (stack.length > 0) {
    const [left, right] = stack.pop()!;
    if (left === right) continue;
    const shape = shapeOf(left);
    if (shape !== shapeOf(right) || shape === 'value') return false;
    if (shape === 'array') {
      const [l, r] = [left as unknown[], right as unknown[]];
      if (l.length !== r.length) return false;
      for (let index = 0; index < l.length; index++) stack.push([l[index], r[index]]);
    } else {
      const [l, r] = [left as Record<string, unknown>, right as Record<string, unknown>];
      const keys = Object.keys(l).filter((key) => l[key] !== undefined);
      if (keys.length !== Object.keys(r).filter((key) => r[key] !== undefined).length) return false;
      for (const key of keys) {
        if (!isPresent(r, key)) return false;
        stack.push([l[key], r[key]]);
      }
    }
  }
  return true;
}

/** The value itself when its JSON text fits in `maxChars`, else a cut preview of that text. */
function previewValue(value: unknown, maxChars: number): { value: unknown; truncated: boolean } {
  if (typeof value === 'string') {
    return value.length <= maxChars
      ? { value, truncated: false }
      : { value: truncate(value, maxChars), truncated: true };
  }
  if (shapeOf(value) === 'value') return { value, truncated: false };
  const json = boundedJson(value, maxChars);
  if (json.complete) return { value: JSON.parse(json.text) as unknown, truncated: false };
  return { value: truncate(json.text, maxChars), truncated: true };
}

/**
 * JSON text of `value` (keys sorted), stopping once it is longer than `maxChars`: `complete` says
 * whether it is all there. Never serialises much more than `maxChars`, whatever the value's size.
 */
function boundedJson(value: unknown, maxChars: number): { text: string; complete: boolean } {
  let text = '';
  const write = (item: unknown, depth: number): boolean => {
    if (text.length > maxChars) return false;
    if (typeof item === 'string') {
      // Cut long strings before escaping them: the text is cut anyway.
      const cut = item.length > maxChars + 1 ? item.slice(0, maxChars + 1) : item;
      text += JSON.stringify(cut);
      return cut === item && text.length <= maxChars;
    }
    if (shapeOf(item) === 'value') {
      text += JSON.stringify(item) ?? 'null';
      return text.length <= maxChars;
    }
    if (depth > MAX_DIFF_DEPTH) return false;
    if (Array.isArray(item)) {
      text += '[';
      for (let index = 0; index < item.length; index++) {
        if (index > 0) text += ',';
        if (!write(item[index], depth + 1)) return false;
      }
      text += ']';
    } else {
      const record = item as Record<string, unknown>;
      text += '{';
      let first = true;
      for (const key of Object.keys(record).sort()) {
        if (record[key] === undefined) continue;
        text += `${first ? '' : ','}${JSON.stringify(key.slice(0, maxChars + 1))}:`;
        first = false;
        if (!write(record[key], depth + 1)) return false;
      }
      text += '}';
    }
    return text.length <= maxChars;
  };
  const complete = write(value, 0);
  return { text, complete };
}

// ---- the summary line -------------------------------------------------------------------------
// The one-line, bounded summary of a diff for people, grouped by field: `description changed;
// inputSchema: property 'region' enum value added`.

/** The summary line is cut to this length. */
export const MAX_DIFF_SUMMARY_CHARS = 400;

/** A bounded, single-line, redacted name for the summary. */
function shown(name: string): string {
  return `'${preview(name, 40)}'`;
}

/** What one change is about, for the summary: the field it belongs to and a short phrase. */
function describe(change: ToolChange): { group: string; phrase: string } {
  const segments = parsePointer(change.path);
  const { kind } = change;
  const [field, ...rest] = segments;
  if (field === undefined) {
    const phrase =
      kind === 'added' ? 'new tool' : kind === 'removed' ? 'tool removed' : 'definition changed';
    return { group: '', phrase };
  }
  if (rest.length === 0) return { group: '', phrase: `${preview(field, 40)} ${kind}` };
  if (field === 'inputSchema' || field === 'outputSchema')
    return { group: field, phrase: schemaPhrase(rest, kind) };
  return { group: preview(field, 40), phrase: `${preview(rest.join('.'), 80)} ${kind}` };
}

function schemaPhrase(segments: readonly string[], kind: ToolChange['kind']): string {
  const names: string[] = [];
  let index = 0;
  while (segments[index] === 'properties' && segments[index + 1] !== undefined) {
    names.push(segments[index + 1]!);
    index += 2;
  }
  const tail = segments.slice(index);
  const position = (segment: string | undefined): boolean =>
    segment !== undefined && /^\d+$/.test(segment);
  if (names.length > 0) {
    const subject = `property ${shown(names.join('.'))}`;
    if (tail.length === 0) return `${subject} ${kind}`;
    if (tail.length === 2 && position(tail[1])) return `${subject} ${item(tail[0]!)} ${kind}`;
    return `${subject} ${preview(tail.join('/'), 80)} ${kind}`;
  }
  if (tail.length === 2 && position(tail[1])) return `${item(tail[0]!)} ${kind}`;
  return `${preview(tail.join('/'), 80)} ${kind}`;
}

/** An item of an array-valued keyword: `enum value`, `required entry`, `anyOf entry`. */
function item(keyword: string): string {
  return `${preview(keyword, 40)} ${keyword === 'enum' ? 'value' : 'entry'}`;
}

export function summarize(changes: readonly ToolChange[], truncated: boolean): string {
  if (changes.length === 0) return 'no change';
  const groups = new Map<string, Set<string>>();
  for (const change of changes) {
    const { group, phrase } = describe(change);
    let phrases = groups.get(group);
    if (phrases === undefined) groups.set(group, (phrases = new Set()));
    phrases.add(phrase);
  }
  const parts = [...groups].map(([group, phrases]) => {
    const list = [...phrases].join(', ');
    return group === '' ? list : `${group}: ${list}`;
  });
  const more = truncated ? '; and more' : '';
  return truncate(parts.join('; '), MAX_DIFF_SUMMARY_CHARS - more.length) + more;
}

// ---- JSON Pointers (RFC 6901), as diffs use them ------------------------------------------------

/** Escapes one JSON Pointer segment (RFC 6901): `~` as `~0`, `/` as `~1`. */
export function pointerSegment(segment: string | number): string {
  return String(segment).replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The segments of a JSON Pointer, unescaped. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}
