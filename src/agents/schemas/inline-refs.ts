import { preview } from '../../errors/redact.js';
import type { SchemaDiagnostics } from './schema-diagnostics.js';
import {
  forEachSubschema,
  isJsonSchemaNode,
  mapSubschemas,
  setMember,
  shortJson,
  type JsonSchemaNode,
} from './json-schema-node.js';

/** How far references are expanded. */
export interface InlineOptions {
  /**
   * How many times one definition may be expanded inside itself: 0 cuts a cycle at its first
   * repetition (the recursive place then accepts any value of the target's type).
   */
  readonly maxRecursion: number;
  /** Most schema objects the expansions may add in all; past it, further references are cut. */
  readonly maxInlinedNodes: number;
  /** Deepest chain of references expanded one inside another. */
  readonly maxRefDepth: number;
}

/** The bounds used for Gemini and Anthropic unless told otherwise. */
export const defaultInlineOptions: InlineOptions = {
  maxRecursion: 0,
  maxInlinedNodes: 10_000,
  maxRefDepth: 32,
};

// Keywords beside a `$ref` that only annotate: they are kept on the expanded target.
const annotations = new Set([
  'title',
  'description',
  'default',
  'examples',
  '$comment',
  'deprecated',
]);

/**
 * A copy of a schema whose references (already in the `hoistRefs` form: `#` or `#/$defs/X`) are
 * replaced by their targets, and without `$defs`. A reference that would repeat a definition more
 * than `maxRecursion` times inside itself, or go past the bounds, is cut: replaced by a schema
 * that keeps only the target's `type` and says in its description what was cut, with a diagnostic.
 * The work is bounded by the schema's size plus `maxInlinedNodes`.
 */
export function inlineRefs(
  root: JsonSchemaNode,
  diagnostics: SchemaDiagnostics,
  options: InlineOptions = defaultInlineOptions,
): { schema: JsonSchemaNode; cuts: number } {
  const defs = isJsonSchemaNode(root.$defs) ? root.$defs : {};
  const body: JsonSchemaNode = { ...root };
  delete body.$defs;
  let added = 0;
  let cuts = 0;
  const stack: string[] = ['#'];

  const cut = (
    ref: string,
    target: JsonSchemaNode | undefined,
    path: string[],
    recursive: boolean,
  ): JsonSchemaNode => {
    const why = recursive
      ? 'it refers to itself (a cycle), which this provider cannot express'
      : 'expanding it would pass the inlining bounds';
    cuts++;
    diagnostics.add(
      path,
      'cut-ref',
      `replaced the reference ${shortJson(ref)} by a schema accepting any value${typeof target?.type === 'string' ? ` of type ${target.type}` : ''}, because ${why}`,
    );
    const replacement: JsonSchemaNode = {};
    if (target !== undefined && (typeof target.type === 'string' || Array.isArray(target.type)))
      replacement.type = target.type;
    replacement.description = `A nested value of the same shape as ${ref === '#' ? 'the arguments' : `'${preview(ref.slice(ref.lastIndexOf('/') + 1), 40)}'`}, not described further (${recursive ? 'recursive' : 'too deeply nested'}).`;
    return replacement;
  };

  const expand = (node: JsonSchemaNode, path: string[]): JsonSchemaNode => {
    const ref = node.$ref;
    if (typeof ref !== 'string')
      return mapSubschemas(node, (child, tokens) => expand(child, [...path, ...tokens]));
    const name =
      ref === '#'
        ? '#'
        : ref.startsWith('#/$defs/')
          ? ref.slice(8).replace(/~1/g, '/').replace(/~0/g, '~')
          : undefined;
    const target = name === '#' ? body : name === undefined ? undefined : defs[name];
    const rest: JsonSchemaNode = { ...node };
    delete rest.$ref;
    if (name === undefined || !isJsonSchemaNode(target)) return expand(rest, path);
    const repeats = stack.filter((entry) => entry === name).length;
    let expanded: JsonSchemaNode;
    if (repeats > options.maxRecursion) expanded = cut(ref, target, path, true);
    else if (stack.length >= options.maxRefDepth || added >= options.maxInlinedNodes)
      expanded = cut(ref, target, path, false);
    else {
      added += countNodes(target, options.maxInlinedNodes);
      stack.push(name);
      expanded = expand(target, path);
      stack.pop();
    }
    const keys = Object.keys(rest);
    if (keys.length === 0) return expanded;
    if (keys.every((key) => annotations.has(key))) {
      const merged: JsonSchemaNode = { ...expanded };
      for (const key of keys) setMember(merged, key, rest[key]);
      return merged;
    }
    const siblings = expand(rest, path);
    siblings.allOf = [
      expanded,
      ...(Array.isArray(siblings.allOf) ? (siblings.allOf as unknown[]) : []),
    ];
    return siblings;
  };

  return { schema: expand(body, []), cuts };
}

/** Schema objects in a tree, counted up to `limit`. */
function countNodes(node: JsonSchemaNode, limit: number): number {
  let count = 0;
  const stack: JsonSchemaNode[] = [node];
  while (stack.length > 0 && count < limit) {
    const next = stack.pop();
    if (next === undefined) break;
    count++;
    forEachSubschema(next, (child) => stack.push(child));
  }
  return count;
}
