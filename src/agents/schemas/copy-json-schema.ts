import { isPlainObject } from '../../schema/schema-walk.js';
import { setMember, type JsonSchemaNode } from './json-schema-node.js';

/** The bounds of the copy every normalisation starts from. */
export interface CopyLimits {
  /** Deepest nesting of JSON objects and arrays (the root object is 1). */
  readonly maxDepth: number;
  /** Most JSON values (objects, arrays, primitives) in the schema. */
  readonly maxNodes: number;
  /** Most characters of all strings (keys included) in the schema. */
  readonly maxChars: number;
}

/** Generous bounds: far past what any provider accepts, small enough to bound the work. */
export const defaultCopyLimits: CopyLimits = {
  maxDepth: 64,
  maxNodes: 100_000,
  maxChars: 4_000_000,
};

/** The copy, or why the input could not be copied. */
export type CopyResult = { ok: true; schema: JsonSchemaNode } | { ok: false; problem: string };

/**
 * A deep copy of an untrusted schema as plain JSON: only plain objects, arrays, strings, booleans,
 * finite numbers and `null` are kept (anything else, such as a function, `undefined`, a class
 * instance or a cycle, is dropped from the copy), `__proto__` members stay data. Stops as soon as
 * a bound is passed, so the work is bounded by `limits`, whatever the input.
 */
export function copyJsonSchema(
  schema: unknown,
  limits: CopyLimits = defaultCopyLimits,
): CopyResult {
  if (!isPlainObject(schema)) return { ok: false, problem: 'the schema is not a JSON object' };
  const state = { nodes: 0, chars: 0, ancestors: new Set<object>(), problem: '' };
  const copy = copyValue(schema, 1, limits, state);
  if (state.problem !== '') return { ok: false, problem: state.problem };
  return { ok: true, schema: copy as JsonSchemaNode };
}

interface CopyState {
  nodes: number;
  chars: number;
  ancestors: Set<object>;
  problem: string;
}

const DROP = Symbol('drop');

function copyValue(value: unknown, depth: number, limits: CopyLimits, state: CopyState): unknown {
  if (state.problem !== '') return DROP;
  if (++state.nodes > limits.maxNodes) {
    state.problem = `the schema has more than ${limits.maxNodes} values`;
    return DROP;
  }
  switch (typeof value) {
    case 'string':
      state.chars += value.length;
      if (state.chars > limits.maxChars)
        state.problem = `the schema has more than ${limits.maxChars} characters`;
      return value;
    case 'number':
      return Number.isFinite(value) ? value : DROP;
    case 'boolean':
      return value;
    case 'object':
      break;
    case 'bigint':
    case 'function':
    case 'symbol':
    case 'undefined':
      return DROP;
  }
  if (value === null) return null;
  const isArray = Array.isArray(value);
  if (!isArray && !isPlainObject(value)) return DROP;
  if (depth > limits.maxDepth) {
    state.problem = `the schema is nested more than ${limits.maxDepth} levels deep`;
    return DROP;
  }
  if (state.ancestors.has(value)) return DROP;
  state.ancestors.add(value);
  let copy: unknown;
  if (isArray) {
    const items: unknown[] = [];
    for (const item of value as unknown[]) {
      const copied = copyValue(item, depth + 1, limits, state);
      if (state.problem !== '') break;
      items.push(copied === DROP ? null : copied);
    }
    copy = items;
  } else {
    const object: JsonSchemaNode = {};
    for (const key of Object.keys(value)) {
      state.chars += key.length;
      const copied = copyValue((value as JsonSchemaNode)[key], depth + 1, limits, state);
      if (state.problem !== '') break;
      if (copied !== DROP) setMember(object, key, copied);
    }
    copy = object;
  }
  state.ancestors.delete(value);
  return copy;
}
