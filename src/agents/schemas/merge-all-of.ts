import {
  declaredTypes,
  isJsonSchemaNode,
  jsonEqual,
  setMember,
  shortJson,
  type JsonSchemaNode,
} from './json-schema-node.js';

/** The one schema an `allOf` is equivalent to, or why it could not be merged. */
export type MergeResult = { ok: true; schema: JsonSchemaNode } | { ok: false; reason: string };

const lowerBounds = new Set([
  'minimum',
  'exclusiveMinimum',
  'minLength',
  'minItems',
  'minProperties',
]);
const upperBounds = new Set([
  'maximum',
  'exclusiveMaximum',
  'maxLength',
  'maxItems',
  'maxProperties',
]);
// Annotations: the first one written wins.
const firstWins = new Set([
  'title',
  'description',
  'default',
  'examples',
  '$comment',
  'deprecated',
]);
const MAX_MERGE_DEPTH = 16;

/**
 * Merges `node.allOf` (and `node` itself) into one schema that accepts exactly the same values,
 * where that is possible without changing the meaning: properties are joined (a property in
 * several branches is merged the same way), `required` lists are joined, types intersected,
 * bounds tightened, enums intersected. Anything else (two different `anyOf`s, differing
 * `additionalProperties`, a `false` branch, a reference `resolve` cannot give) fails with the
 * reason. `resolve` gives a local reference's target; nested `allOf`s are merged first.
 */
export function mergeAllOf(
  node: JsonSchemaNode,
  resolve: (ref: string) => JsonSchemaNode | undefined = () => undefined,
): MergeResult {
  return mergeNode(node, resolve, 0);
}

function mergeNode(
  node: JsonSchemaNode,
  resolve: (ref: string) => JsonSchemaNode | undefined,
  depth: number,
): MergeResult {
  if (depth > MAX_MERGE_DEPTH) return { ok: false, reason: 'the allOf is nested too deeply' };
  const branches = Array.isArray(node.allOf) ? node.allOf : [];
  let merged: JsonSchemaNode = { ...node };
  delete merged.allOf;
  for (const raw of branches) {
    if (raw === true) continue;
    if (!isJsonSchemaNode(raw)) return { ok: false, reason: `a branch is ${shortJson(raw)}` };
    let branch = raw;
    if (typeof branch.$ref === 'string') {
      const target = resolve(branch.$ref);
      if (target === undefined)
        return {
          ok: false,
          reason: `the branch ${shortJson(branch.$ref)} cannot be resolved here`,
        };
      const rest = { ...branch };
      delete rest.$ref;
      branch = {
        ...rest,
        allOf: [target, ...(Array.isArray(rest.allOf) ? (rest.allOf as unknown[]) : [])],
      };
    }
    if (Array.isArray(branch.allOf)) {
      const inner = mergeNode(branch, resolve, depth + 1);
      if (!inner.ok) return inner;
      branch = inner.schema;
    }
    const joined = mergeTwo(merged, branch, resolve, depth);
    if (!joined.ok) return joined;
    merged = joined.schema;
  }
  return { ok: true, schema: merged };
}

function mergeTwo(
  base: JsonSchemaNode,
  branch: JsonSchemaNode,
  resolve: (ref: string) => JsonSchemaNode | undefined,
  depth: number,
): MergeResult {
  const out: JsonSchemaNode = { ...base };
  for (const key of Object.keys(branch)) {
    const value = branch[key];
    if (!Object.hasOwn(out, key)) {
      setMember(out, key, value);
      continue;
    }
    const current = out[key];
    if (jsonEqual(current, value)) continue;
    if (firstWins.has(key)) continue;
    if (key === 'type') {
      const types = intersectTypes(base, branch);
      if (types.length === 0) return { ok: false, reason: 'its branches have no type in common' };
      out.type = types.length === 1 ? types[0] : types;
    } else if (key === 'required' && Array.isArray(current) && Array.isArray(value)) {
      out.required = [...new Set([...(current as unknown[]), ...(value as unknown[])])];
    } else if (key === 'enum' && Array.isArray(current) && Array.isArray(value)) {
      const common = current.filter((item) => value.some((other) => jsonEqual(item, other)));
      if (common.length === 0)
        return { ok: false, reason: 'its branches allow no value in common' };
      out.enum = common;
    } else if (lowerBounds.has(key) && typeof current === 'number' && typeof value === 'number') {
      out[key] = Math.max(current, value);
    } else if (upperBounds.has(key) && typeof current === 'number' && typeof value === 'number') {
      out[key] = Math.min(current, value);
    } else if (key === 'properties' && isJsonSchemaNode(current) && isJsonSchemaNode(value)) {
      if (closes(base, value) || closes(branch, current))
        return { ok: false, reason: 'one branch forbids properties another one declares' };
      const properties: JsonSchemaNode = { ...current };
      for (const name of Object.keys(value)) {
        const mine = properties[name];
        const theirs = value[name];
        if (!Object.hasOwn(properties, name) || jsonEqual(mine, theirs)) {
          setMember(properties, name, theirs);
          continue;
        }
        if (!isJsonSchemaNode(mine) || !isJsonSchemaNode(theirs))
          return { ok: false, reason: `property '${name}' cannot be merged` };
        const inner = mergeNode({ allOf: [mine, theirs] }, resolve, depth + 1);
        if (!inner.ok) return inner;
        setMember(properties, name, inner.schema);
      }
      out.properties = properties;
    } else if (key === 'items' && isJsonSchemaNode(current) && isJsonSchemaNode(value)) {
      const inner = mergeNode({ allOf: [current, value] }, resolve, depth + 1);
      if (!inner.ok) return inner;
      out.items = inner.schema;
    } else return { ok: false, reason: `its branches give different values for '${key}'` };
  }
  return { ok: true, schema: out };
}

function intersectTypes(a: JsonSchemaNode, b: JsonSchemaNode): string[] {
  const left = declaredTypes(a) ?? [];
  const right = declaredTypes(b) ?? [];
  const common = left.filter((type) => right.includes(type));
  if (left.includes('number') && right.includes('integer') && !common.includes('integer'))
    common.push('integer');
  if (right.includes('number') && left.includes('integer') && !common.includes('integer'))
    common.push('integer');
  return common;
}

/** Whether `node` limits extra properties and `properties` declares one it does not list. */
function closes(node: JsonSchemaNode, properties: JsonSchemaNode): boolean {
  if (node.additionalProperties === undefined || node.additionalProperties === true) return false;
  const own = isJsonSchemaNode(node.properties) ? node.properties : {};
  return Object.keys(properties).some((name) => !Object.hasOwn(own, name));
}
