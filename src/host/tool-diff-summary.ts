/**
 * The one-line, bounded summary of a tool diff for people, grouped by field: `description changed;
 * inputSchema: property 'region' enum value added`. Pure.
 */
import { preview, truncate } from '../errors/redact.js';
import { parsePointer } from './json-pointer.js';
import type { ToolChange } from './tool-diff.js';

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
