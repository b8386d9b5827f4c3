import { mergeAllOf } from './merge-all-of.js';
import type { SchemaDiagnostics } from './schema-diagnostics.js';
import {
  appendDescription,
  declaredTypes,
  impliedTypes,
  isJsonSchemaNode,
  jsonEqual,
  setMember,
  shortJson,
  type JsonSchemaNode,
} from './json-schema-node.js';

/** The root as an object schema, and why it could not be kept equivalent (strict mode's blocker). */
export interface RootObject {
  schema: JsonSchemaNode;
  /** Set when the root had to be changed in a way that accepts different arguments. */
  blocker?: string;
}

/**
 * Makes a tool's input schema an object schema at its root, as every provider requires:
 * a root `allOf` merged into the root (or dropped when it cannot be merged); a missing or junk
 * root `type` becomes `object` (with `properties: {}` when it has none); a root of another type
 * (a string, an array) is replaced by an empty object schema, as no model can send it; with
 * `flattenUnions`, a root `anyOf`/`oneOf` of object schemas becomes one object schema with every
 * variant's properties, of which those required by every variant stay required (the model is told
 * in the description; the tool's own validation still applies the variants).
 */
export function toRootObject(
  root: JsonSchemaNode,
  diagnostics: SchemaDiagnostics,
  options: { flattenUnions: boolean; resolve?: (ref: string) => JsonSchemaNode | undefined },
): RootObject {
  let schema = root;
  let blocker: string | undefined;
  if (Array.isArray(schema.allOf)) {
    const merged = mergeAllOf(schema, options.resolve);
    if (merged.ok) {
      schema = merged.schema;
      diagnostics.add(
        [],
        'merged-all-of',
        'merged the root allOf into one object schema, as providers refuse allOf at the root',
      );
    } else {
      schema = { ...schema };
      delete schema.allOf;
      blocker = `its root allOf cannot be merged (${merged.reason})`;
      diagnostics.add(
        [],
        'dropped-all-of',
        `dropped the root allOf, which cannot be merged (${merged.reason}), as providers refuse allOf at the root`,
      );
    }
  }
  const declared = declaredTypes(schema);
  if (declared?.includes('object') === true) {
    if (schema.type !== 'object') {
      diagnostics.add(
        [],
        'set-root-type',
        `set the root type ${shortJson(schema.type)} to "object", as the arguments are always an object`,
      );
      schema.type = 'object';
    }
  } else {
    const implied = declared ?? impliedTypes(schema);
    if (implied !== undefined && !implied.includes('object')) {
      blocker = `its root is not an object schema (type ${shortJson(schema.type ?? implied)})`;
      diagnostics.add(
        [],
        'replaced-root',
        `replaced the root schema of type ${shortJson(schema.type ?? implied)} by an empty object schema, as tool arguments are always an object (the tool's own validation will refuse calls)`,
      );
      const replaced: JsonSchemaNode = { type: 'object', properties: {} };
      if (typeof schema.description === 'string') replaced.description = schema.description;
      if (isJsonSchemaNode(schema.$defs)) replaced.$defs = schema.$defs;
      return { schema: replaced, blocker };
    }
    diagnostics.add(
      [],
      'set-root-type',
      schema.type === undefined
        ? 'added type "object" to the root, which had no type'
        : `replaced the root type ${shortJson(schema.type)}, which is not a JSON Schema type, by "object"`,
    );
    schema.type = 'object';
  }
  const union = Array.isArray(schema.anyOf)
    ? 'anyOf'
    : Array.isArray(schema.oneOf)
      ? 'oneOf'
      : undefined;
  if (union !== undefined) {
    if (!options.flattenUnions)
      blocker ??= `its root is a union (${union}), which must be a plain object schema`;
    else schema = flatten(schema, union, diagnostics, options.resolve);
  }
  if (!isJsonSchemaNode(schema.properties)) {
    if (schema.properties !== undefined)
      diagnostics.add(
        ['properties'],
        'dropped-keyword',
        `dropped properties ${shortJson(schema.properties)}, which is not an object`,
      );
    else
      diagnostics.add(
        [],
        'added-properties',
        'added an empty properties object to the root, which had none',
      );
    schema.properties = {};
  }
  return blocker === undefined ? { schema } : { schema, blocker };
}

function flatten(
  root: JsonSchemaNode,
  union: 'anyOf' | 'oneOf',
  diagnostics: SchemaDiagnostics,
  resolve: ((ref: string) => JsonSchemaNode | undefined) | undefined,
): JsonSchemaNode {
  const variants = (root[union] as unknown[]).map((variant) => {
    if (!isJsonSchemaNode(variant)) return undefined;
    if (typeof variant.$ref === 'string') return resolve?.(variant.$ref);
    return variant;
  });
  const out: JsonSchemaNode = { ...root };
  delete out[union];
  if (
    variants.some(
      (v) =>
        v === undefined || !(declaredTypes(v) ?? impliedTypes(v) ?? ['object']).includes('object'),
    )
  ) {
    diagnostics.add(
      [union],
      'dropped-root-union',
      `dropped the root ${union}, whose variants are not all object schemas, as providers require one object schema at the root`,
    );
    return out;
  }
  const objects = variants as JsonSchemaNode[];
  const properties: JsonSchemaNode = isJsonSchemaNode(out.properties) ? { ...out.properties } : {};
  const unions = new Map<string, unknown[]>();
  for (const variant of objects) {
    const own = isJsonSchemaNode(variant.properties) ? variant.properties : {};
    for (const name of Object.keys(own)) {
      const schema = own[name];
      if (!Object.hasOwn(properties, name)) setMember(properties, name, schema);
      else if (!jsonEqual(properties[name], schema)) {
        const options = unions.get(name) ?? [properties[name]];
        if (!options.some((option) => jsonEqual(option, schema))) options.push(schema);
        unions.set(name, options);
        setMember(properties, name, { anyOf: options });
      }
    }
  }
  const requiredBy = objects.map(
    (v) =>
      new Set(Array.isArray(v.required) ? v.required.filter((r) => typeof r === 'string') : []),
  );
  const common = [...(requiredBy[0] ?? [])].filter((name) =>
    requiredBy.every((set) => set.has(name)),
  );
  const own: unknown[] = Array.isArray(out.required) ? (out.required as unknown[]) : [];
  const required = [...new Set([...own, ...common])];
  out.properties = properties;
  if (required.length > 0) out.required = required;
  else delete out.required;
  appendDescription(
    out,
    `The arguments take one of ${objects.length} forms; send only the properties of one of them`,
  );
  diagnostics.add(
    [union],
    'flattened-root-union',
    `merged the ${objects.length} object variants of the root ${union} into one object schema (properties of every variant, only those required by all of them required), as providers require one object schema at the root`,
  );
  return out;
}
