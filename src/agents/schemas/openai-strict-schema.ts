import { preview } from '../../errors/redact.js';
import { hoistRefs } from './hoist-refs.js';
import { mergeAllOf } from './merge-all-of.js';
import type { SchemaDiagnostics } from './schema-diagnostics.js';
import {
  appendDescription,
  declaredTypes,
  impliedTypes,
  isJsonSchemaNode,
  jsonEqual,
  keywordsByType,
  setMember,
  shortJson,
  typeOfValue,
  type JsonSchemaNode,
} from './json-schema-node.js';
import { toRootObject } from './to-root-object.js';

/** OpenAI's documented limits for strict mode. */
export const openAiStrictLimits = {
  /** Object properties in the whole schema. */
  maxProperties: 5000,
  /** Levels of nesting (the root is level 1; each properties/items/anyOf step adds one). */
  maxDepth: 10,
  /** Enum values in the whole schema. */
  maxEnumValues: 1000,
} as const;

/** The string formats strict mode supports. */
export const openAiStrictFormats = [
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
];

/** Keywords strict mode accepts, by where they apply (`$defs` only at the root). */
const kept = new Set([
  'type',
  'description',
  'title',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  '$ref',
  'pattern',
  'format',
  'multipleOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
]);
// Dropped constraints worth telling the model about, in the description.
const noted = new Set([
  'default',
  'minLength',
  'maxLength',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'format',
]);
// Dropped silently apart from the diagnostic: applicators whose loss only widens what is accepted.
const widening = new Set([
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'dependentRequired',
  'dependencies',
  'propertyNames',
  'contains',
  'minContains',
  'maxContains',
  'unevaluatedProperties',
  'unevaluatedItems',
]);

/** Why a schema cannot be made strict, and where. */
export interface StrictBlocker {
  path: string[];
  reason: string;
}

/** The strict form, or the reasons there is none (the caller then offers the tool non-strict). */
export type StrictResult =
  { ok: true; schema: JsonSchemaNode } | { ok: false; blockers: StrictBlocker[] };

/**
 * A tool's input schema (a private copy, changed in place) in the form OpenAI's strict mode
 * accepts: every object closed (`additionalProperties: false`) and listing every property in
 * `required`, optional properties made nullable; references only to the root's `$defs` (or `#`);
 * `allOf` merged, `oneOf` rewritten to `anyOf` where the variants cannot overlap; keywords strict
 * mode does not support dropped (constraints worth knowing noted in the description); within
 * OpenAI's limits. What cannot be expressed without changing what the model may send (a value of
 * any type, a free-form object or map, a tuple, an `allOf` that cannot be merged, a `oneOf` whose
 * variants may overlap, a reference that does not resolve, a limit passed) is a blocker.
 */
export function toOpenAiStrictSchema(
  copy: JsonSchemaNode,
  diagnostics: SchemaDiagnostics,
): StrictResult {
  const blockers: StrictBlocker[] = [];
  const block = (path: readonly string[], reason: string): void => {
    if (blockers.length < 20) blockers.push({ path: [...path], reason });
  };
  const hoisted = hoistRefs(copy, diagnostics);
  for (const ref of hoisted.unresolved)
    block([], `the reference ${shortJson(ref)} does not resolve inside the schema`);
  const defs = isJsonSchemaNode(hoisted.schema.$defs) ? hoisted.schema.$defs : {};
  delete hoisted.schema.$defs;
  const resolve = (ref: string): JsonSchemaNode | undefined => {
    const target = ref === '#' ? undefined : defs[defName(ref)];
    return isJsonSchemaNode(target) ? structuredClone(target) : undefined;
  };
  const root = toRootObject(hoisted.schema, diagnostics, { flattenUnions: false, resolve });
  if (root.blocker !== undefined) block([], root.blocker);

  const state = { properties: 0, enumValues: 0 };
  const usedDefs = new Map<string, JsonSchemaNode>();
  const pending: string[] = [];
  const useDef = (name: string): void => {
    if (usedDefs.has(name) || !isJsonSchemaNode(defs[name])) return;
    usedDefs.set(name, {});
    pending.push(name);
  };

  const transform = (input: unknown, path: string[], depth: number): JsonSchemaNode => {
    if (!isJsonSchemaNode(input)) {
      block(
        path,
        `the schema ${shortJson(input)} ${input === true ? 'accepts any value' : input === false ? 'accepts nothing' : 'is not a schema'}`,
      );
      return {};
    }
    if (depth > openAiStrictLimits.maxDepth) {
      block(path, `it is nested more than ${openAiStrictLimits.maxDepth} levels deep`);
      return {};
    }
    let node: JsonSchemaNode = { ...input };
    if (typeof node.$ref === 'string') {
      const ref = node.$ref;
      const rest = { ...node };
      delete rest.$ref;
      if (Object.keys(rest).length === 0) {
        if (ref !== '#') useDef(defName(ref));
        return { $ref: ref };
      }
      const target = resolve(ref);
      if (target === undefined) {
        block(
          path,
          `the reference ${shortJson(ref)} has other keywords beside it and cannot be expanded`,
        );
        return {};
      }
      diagnostics.add(
        path,
        'inlined-ref',
        `expanded the reference ${shortJson(ref)}, which has other keywords beside it, as strict mode allows none beside $ref`,
      );
      const merged = mergeAllOf({ ...rest, allOf: [target] }, resolve);
      if (!merged.ok) {
        block(
          path,
          `the reference ${shortJson(ref)} cannot be merged with the keywords beside it (${merged.reason})`,
        );
        return {};
      }
      node = merged.schema;
    }
    if (Array.isArray(node.allOf)) {
      const merged = mergeAllOf(node, resolve);
      if (!merged.ok) {
        block(path, `its allOf cannot be merged (${merged.reason})`);
        return {};
      }
      diagnostics.add(
        path,
        'merged-all-of',
        'merged allOf into one schema, as strict mode does not support allOf',
      );
      node = merged.schema;
    }
    if (node.oneOf !== undefined) {
      if (
        !Array.isArray(node.oneOf) ||
        node.anyOf !== undefined ||
        !disjoint(node.oneOf, resolve)
      ) {
        block(path, 'its oneOf has variants that may overlap, so it cannot become anyOf');
        return {};
      }
      diagnostics.add(
        path,
        'one-of-to-any-of',
        'rewrote oneOf as anyOf (its variants cannot overlap), as strict mode does not support oneOf',
      );
      node.anyOf = node.oneOf;
      delete node.oneOf;
    }
    let types = declaredTypes(node);
    if (node.type !== undefined && types === undefined) {
      diagnostics.add(
        path,
        'dropped-keyword',
        `dropped type ${shortJson(node.type)}, which is not a JSON Schema type`,
      );
      delete node.type;
    }
    if (Array.isArray(node.anyOf)) return transformUnion(node, path, depth);
    types ??= impliedTypes(node);
    if (types === undefined) {
      block(path, 'it accepts a value of any type');
      return {};
    }
    if (Array.isArray(node.enum) && node.enum.includes(null) && !types.includes('null'))
      types = [...types, 'null'];
    const nonNull = types.filter((type) => type !== 'null');
    if (nonNull.length > 1) {
      diagnostics.add(
        path,
        'split-types',
        `split type ${shortJson(types)} into anyOf, one branch per type`,
      );
      return transformUnion(splitTypes(node, types), path, depth);
    }
    const out: JsonSchemaNode = {};
    out.type = types.length === 1 ? types[0] : types;
    if (node.type === undefined)
      diagnostics.add(
        path,
        'added-type',
        `added type ${shortJson(out.type)}, as strict mode needs one`,
      );
    const main = nonNull[0] ?? 'null';
    const applicable = new Set(keywordsByType[main === 'integer' ? 'number' : main] ?? []);
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (
        key === 'type' ||
        key === 'properties' ||
        key === 'required' ||
        key === 'additionalProperties' ||
        key === 'items'
      )
        continue;
      if (key === 'description' || key === 'title') {
        if (typeof value === 'string') out[key] = value;
        continue;
      }
      if (key === 'enum' || key === 'const') {
        const values = key === 'enum' ? (Array.isArray(value) ? value : []) : [value];
        state.enumValues += values.length;
        if (state.enumValues > openAiStrictLimits.maxEnumValues)
          block(path, `the schema has more than ${openAiStrictLimits.maxEnumValues} enum values`);
        setMember(out, key, value);
        for (const item of values) {
          const type = typeOfValue(item);
          if (!types.includes(type) && !(type === 'integer' && types.includes('number'))) {
            block(path, `its ${key} value ${shortJson(item)} does not match its type`);
          }
        }
        continue;
      }
      if (kept.has(key) && applicable.has(key)) {
        if (
          key === 'format' &&
          (typeof value !== 'string' || !openAiStrictFormats.includes(value))
        ) {
          appendDescription(out, `format: ${shortJson(value, 40)}`);
          diagnostics.add(
            path,
            'dropped-keyword',
            `dropped format ${shortJson(value)}, which strict mode does not support (noted in the description)`,
          );
          continue;
        }
        if (
          (key === 'exclusiveMinimum' || key === 'exclusiveMaximum') &&
          typeof value === 'boolean'
        ) {
          diagnostics.add(path, 'dropped-keyword', `dropped the draft-04 boolean ${key}`);
          continue;
        }
        setMember(out, key, value);
        continue;
      }
      const why = widening.has(key)
        ? 'which strict mode does not support (values it refused are refused by the tool instead)'
        : 'which strict mode does not support';
      if (noted.has(key)) appendDescription(out, `${key}: ${shortJson(value, 60)}`);
      diagnostics.add(
        path,
        'dropped-keyword',
        `dropped ${key}, ${why}${noted.has(key) ? ' (noted in the description)' : ''}`,
      );
    }
    if (main === 'object') transformObject(node, out, path, depth);
    else if (main === 'array') {
      if (!isJsonSchemaNode(node.items)) {
        block(
          path,
          Array.isArray(node.items) || Array.isArray(node.prefixItems)
            ? 'it is a tuple, which strict mode cannot express'
            : 'its items may be of any type',
        );
        return out;
      }
      out.items = transform(node.items, [...path, 'items'], depth + 1);
    }
    return out;
  };

  const transformUnion = (node: JsonSchemaNode, path: string[], depth: number): JsonSchemaNode => {
    const branches = node.anyOf as unknown[];
    const siblings: JsonSchemaNode = { ...node };
    delete siblings.anyOf;
    const annotations: JsonSchemaNode = {};
    for (const key of ['description', 'title'])
      if (typeof siblings[key] === 'string') {
        annotations[key] = siblings[key];
        delete siblings[key];
      }
    if (branches.length === 0) {
      block(path, 'its anyOf is empty');
      return {};
    }
    const distributed = branches.map((branch) => {
      if (Object.keys(siblings).length === 0 || !isJsonSchemaNode(branch)) return branch;
      const merged = mergeAllOf({ allOf: [siblings, branch] }, resolve);
      if (merged.ok) return merged.schema;
      block(
        path,
        `the keywords beside its anyOf cannot be merged into its variants (${merged.reason})`,
      );
      return branch;
    });
    if (Object.keys(siblings).length > 0)
      diagnostics.add(
        path,
        'distributed-any-of',
        'moved the keywords beside anyOf into each of its variants, as strict mode wants anyOf alone',
      );
    if (distributed.length === 1)
      return { ...transform(distributed[0], [...path, 'anyOf', '0'], depth), ...annotations };
    return {
      ...annotations,
      anyOf: distributed.map((branch, index) =>
        transform(branch, [...path, 'anyOf', String(index)], depth + 1),
      ),
    };
  };

  const transformObject = (
    node: JsonSchemaNode,
    out: JsonSchemaNode,
    path: string[],
    depth: number,
  ): void => {
    const properties = isJsonSchemaNode(node.properties) ? node.properties : {};
    const names = Object.keys(properties);
    const extra = node.additionalProperties;
    const hasPatterns =
      isJsonSchemaNode(node.patternProperties) && Object.keys(node.patternProperties).length > 0;
    if (names.length === 0 && path.length > 0 && extra !== false) {
      block(
        path,
        hasPatterns || isJsonSchemaNode(extra)
          ? 'it is a map (keys not known in advance), which strict mode cannot express'
          : 'it is a free-form object, which strict mode cannot express',
      );
      return;
    }
    if (hasPatterns || (extra !== undefined && extra !== false))
      diagnostics.add(
        path,
        'closed-object',
        'closed the object (additionalProperties: false), so only its listed properties can be sent, as strict mode requires',
      );
    else if (extra === undefined)
      diagnostics.add(
        path,
        'closed-object',
        'added additionalProperties: false, as strict mode requires',
      );
    state.properties += names.length;
    if (state.properties > openAiStrictLimits.maxProperties)
      block(path, `the schema has more than ${openAiStrictLimits.maxProperties} properties`);
    const required = new Set(
      Array.isArray(node.required)
        ? node.required.filter((r): r is string => typeof r === 'string')
        : [],
    );
    const outProperties: JsonSchemaNode = {};
    for (const name of names) {
      let child = transform(properties[name], [...path, 'properties', name], depth + 1);
      if (!required.has(name)) {
        child = withNull(child);
        diagnostics.add(
          [...path, 'properties', name],
          'made-required-nullable',
          `made optional property '${preview(name, 60)}' required and nullable (null means not given), as strict mode requires every property in required`,
        );
      }
      setMember(outProperties, name, child);
    }
    out.properties = outProperties;
    out.required = names;
    out.additionalProperties = false;
  };

  const out = transform(root.schema, [], 1);
  while (pending.length > 0 && blockers.length === 0) {
    const name = pending.shift() ?? '';
    usedDefs.set(name, transform(defs[name], ['$defs', name], 1));
  }
  if (blockers.length > 0) return { ok: false, blockers };
  if (usedDefs.size > 0) {
    const outDefs: JsonSchemaNode = {};
    for (const [name, def] of usedDefs) setMember(outDefs, name, def);
    out.$defs = outDefs;
  }
  return { ok: true, schema: out };
}

function defName(ref: string): string {
  return ref.slice('#/$defs/'.length).replace(/~1/g, '/').replace(/~0/g, '~');
}

/** `node` also accepting `null` (for an optional property made required). */
function withNull(node: JsonSchemaNode): JsonSchemaNode {
  if (typeof node.$ref === 'string') return { anyOf: [node, { type: 'null' }] };
  if (Array.isArray(node.anyOf)) {
    const hasNull = node.anyOf.some((branch) => isJsonSchemaNode(branch) && branch.type === 'null');
    return hasNull ? node : { ...node, anyOf: [...(node.anyOf as unknown[]), { type: 'null' }] };
  }
  const out: JsonSchemaNode = { ...node };
  const types = declaredTypes(node) ?? [];
  if (!types.includes('null')) out.type = [...types, 'null'];
  if (Array.isArray(out.enum) && !out.enum.includes(null))
    out.enum = [...(out.enum as unknown[]), null];
  if (Object.hasOwn(out, 'const')) {
    const value = out.const;
    delete out.const;
    out.enum = value === null ? [null] : [value, null];
  }
  return out;
}

/** `node` with several types as an anyOf, one branch per type with the keywords that apply to it. */
function splitTypes(node: JsonSchemaNode, types: string[]): JsonSchemaNode {
  const shared: JsonSchemaNode = {};
  const typed = new Set(Object.values(keywordsByType).flat());
  for (const key of Object.keys(node))
    if (!typed.has(key) && key !== 'type' && key !== 'enum' && key !== 'const')
      setMember(shared, key, node[key]);
  const branches = types.map((type) => {
    const branch: JsonSchemaNode = { type };
    for (const key of keywordsByType[type === 'integer' ? 'number' : type] ?? [])
      if (Object.hasOwn(node, key)) setMember(branch, key, node[key]);
    for (const key of ['enum', 'const'] as const) {
      if (key === 'enum' && Array.isArray(node.enum)) {
        const values = node.enum.filter(
          (value) =>
            typeOfValue(value) === type || (type === 'number' && typeOfValue(value) === 'integer'),
        );
        branch.enum = values;
      } else if (key === 'const' && Object.hasOwn(node, 'const')) branch.const = node.const;
    }
    return branch;
  });
  const kept = branches.filter((branch) => !Array.isArray(branch.enum) || branch.enum.length > 0);
  return { ...shared, anyOf: kept };
}

/**
 * Whether no value can match two of the variants, judged on the variants as written: their
 * types do not overlap, or their enum/const values do not, or (objects) one property required
 * by all of them has a different constant value in each.
 */
function disjoint(
  variants: unknown[],
  resolve: (ref: string) => JsonSchemaNode | undefined,
): boolean {
  const nodes = variants.map((variant) =>
    isJsonSchemaNode(variant) && typeof variant.$ref === 'string' ? resolve(variant.$ref) : variant,
  );
  if (!nodes.every(isJsonSchemaNode)) return false;
  const schemas = nodes;
  const typeSets = schemas.map((node) => declaredTypes(node) ?? impliedTypes(node));
  if (typeSets.every((types) => types !== undefined)) {
    const seen = new Set<string>();
    let overlap = false;
    for (const types of typeSets) {
      const widened = types.flatMap((type) =>
        type === 'number' || type === 'integer' ? ['number'] : [type],
      );
      for (const type of new Set(widened)) {
        if (seen.has(type)) overlap = true;
        seen.add(type);
      }
    }
    if (!overlap) return true;
  }
  const valueSets = schemas.map((node) => constants(node));
  if (valueSets.every((values) => values !== undefined) && pairwiseDistinct(valueSets)) return true;
  const first = schemas[0];
  if (first === undefined || !isJsonSchemaNode(first.properties)) return false;
  return Object.keys(first.properties).some((name) => {
    const values = schemas.map((node) => {
      const required = Array.isArray(node.required) && node.required.includes(name);
      const property = isJsonSchemaNode(node.properties) ? node.properties[name] : undefined;
      return required && isJsonSchemaNode(property) ? constants(property) : undefined;
    });
    return values.every((set) => set !== undefined) && pairwiseDistinct(values);
  });
}

function constants(node: JsonSchemaNode): unknown[] | undefined {
  if (Object.hasOwn(node, 'const')) return [node.const];
  return Array.isArray(node.enum) ? node.enum : undefined;
}

function pairwiseDistinct(sets: unknown[][]): boolean {
  const all = sets.flat();
  if (all.length > 2000) return false;
  for (let i = 0; i < sets.length; i++)
    for (let j = i + 1; j < sets.length; j++)
      if ((sets[i] ?? []).some((a) => (sets[j] ?? []).some((b) => jsonEqual(a, b)))) return false;
  return true;
}
