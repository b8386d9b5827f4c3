import { preview } from '../../errors/redact.js';
import { hoistRefs } from './hoist-refs.js';
import { inlineRefs } from './inline-refs.js';
import { mergeAllOf } from './merge-all-of.js';
import type { SchemaDiagnostics } from './schema-diagnostics.js';
import {
  appendDescription,
  declaredTypes,
  impliedTypes,
  isJsonSchemaNode,
  keywordsByType,
  setMember,
  shortJson,
  type JsonSchemaNode,
} from './json-schema-node.js';
import { toRootObject } from './to-root-object.js';

/** The fields of Gemini's `Schema` (a subset of OpenAPI 3.0's schema object). */
export const geminiSchemaFields = [
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
];

/** The types Gemini knows (no `null`: nullability is the `nullable` field). */
export const geminiTypes = ['string', 'number', 'integer', 'boolean', 'object', 'array'];

/** The formats Gemini supports, by type. */
export const geminiFormats: Readonly<Record<string, readonly string[]>> = {
  string: ['enum', 'date-time'],
  number: ['float', 'double'],
  integer: ['int32', 'int64'],
};

/** How many times a recursive definition is expanded inside itself before the cycle is cut. */
export const GEMINI_MAX_RECURSION = 2;

const counts = ['maxItems', 'minItems', 'minProperties', 'maxProperties', 'minLength', 'maxLength'];

/**
 * A tool's input schema (a private copy, changed in place) in Gemini's subset: references inlined
 * within bounds (a cycle is expanded `GEMINI_MAX_RECURSION` times, then cut with a diagnostic);
 * `allOf` merged (or dropped), `oneOf` read as `anyOf`; nullable unions (`type: [T, 'null']`,
 * `anyOf` with a null branch, `null` in an enum) become `nullable: true`; `const` a one-value
 * enum; `exclusiveMinimum`/`exclusiveMaximum` the inclusive bound (noted in the description);
 * enums of non-strings, unsupported formats and every field Gemini does not know are dropped,
 * constraints worth knowing noted in the description. Every change has a diagnostic.
 */
export function toGeminiSchema(
  copy: JsonSchemaNode,
  diagnostics: SchemaDiagnostics,
): JsonSchemaNode {
  const hoisted = hoistRefs(copy, diagnostics);
  const inlined = inlineRefs(hoisted.schema, diagnostics, {
    maxRecursion: GEMINI_MAX_RECURSION,
    maxInlinedNodes: 10_000,
    maxRefDepth: 32,
  });
  const root = toRootObject(inlined.schema, diagnostics, { flattenUnions: true }).schema;
  return transform(root, [], diagnostics);
}

function transform(input: unknown, path: string[], diagnostics: SchemaDiagnostics): JsonSchemaNode {
  if (!isJsonSchemaNode(input)) {
    diagnostics.add(
      path,
      'replaced-boolean-schema',
      `replaced the schema ${shortJson(input)} by an empty schema, as Gemini has no boolean schemas`,
    );
    return {};
  }
  let node: JsonSchemaNode = { ...input };
  if (Array.isArray(node.allOf)) {
    const merged = mergeAllOf(node);
    if (merged.ok) {
      node = merged.schema;
      diagnostics.add(
        path,
        'merged-all-of',
        'merged allOf into one schema, as Gemini has no allOf',
      );
    } else {
      delete node.allOf;
      diagnostics.add(
        path,
        'dropped-keyword',
        `dropped allOf, which cannot be merged (${merged.reason}), as Gemini has no allOf`,
      );
    }
  }
  if (Array.isArray(node.oneOf)) {
    if (node.anyOf === undefined) {
      node.anyOf = node.oneOf;
      diagnostics.add(path, 'one-of-to-any-of', 'rewrote oneOf as anyOf, as Gemini has no oneOf');
    } else
      diagnostics.add(
        path,
        'dropped-keyword',
        'dropped oneOf beside anyOf, as Gemini has no oneOf',
      );
    delete node.oneOf;
  }
  const out: JsonSchemaNode = {};
  if (typeof node.description === 'string') out.description = node.description;
  let nullable = node.nullable === true;
  // Types: one name, nullability apart.
  let types = declaredTypes(node);
  if (node.type !== undefined && types === undefined)
    diagnostics.add(
      path,
      'dropped-keyword',
      `dropped type ${shortJson(node.type)}, which is not a JSON Schema type`,
    );
  types ??= impliedTypes(node);
  if (types?.includes('null') === true) {
    nullable = true;
    types = types.filter((type) => type !== 'null');
    if (Array.isArray(node.type) || node.type === 'null')
      diagnostics.add(
        path,
        'null-to-nullable',
        `rewrote the null in type ${shortJson(node.type)} as nullable: true, as Gemini has no null type`,
      );
  }
  if (types !== undefined && types.length > 1) {
    diagnostics.add(
      path,
      'split-types',
      `split type ${shortJson(types)} into anyOf, one branch per type, as Gemini takes one type`,
    );
    const branches = types.map((type) => {
      const branch: JsonSchemaNode = { type };
      for (const key of keywordsByType[type === 'integer' ? 'number' : type] ?? [])
        if (Object.hasOwn(node, key)) setMember(branch, key, node[key]);
      return branch;
    });
    for (const key of Object.values(keywordsByType).flat()) delete node[key];
    node.anyOf = [...branches, ...(Array.isArray(node.anyOf) ? (node.anyOf as unknown[]) : [])];
    types = undefined;
  }
  const type = types?.[0];
  if (type !== undefined) out.type = type;
  // Unions: null branches become nullable; a single branch left is merged in.
  if (Array.isArray(node.anyOf)) {
    const branches = node.anyOf.filter((branch) => {
      const isNull =
        isJsonSchemaNode(branch) &&
        (branch.type === 'null' ||
          (Array.isArray(branch.enum) && branch.enum.length === 1 && branch.enum[0] === null) ||
          (Object.hasOwn(branch, 'const') && branch.const === null));
      if (isNull) nullable = true;
      return !isNull;
    });
    if (branches.length < node.anyOf.length)
      diagnostics.add(
        [...path, 'anyOf'],
        'null-to-nullable',
        'rewrote the null branch of anyOf as nullable: true, as Gemini has no null type',
      );
    if (branches.length === 1 && isJsonSchemaNode(branches[0]) && type === undefined) {
      const rest: JsonSchemaNode = { ...node };
      delete rest.anyOf;
      const merged = mergeAllOf({ ...rest, allOf: [branches[0]] });
      if (merged.ok) {
        const inner = transform(merged.schema, path, diagnostics);
        if (nullable) inner.nullable = true;
        return inner;
      }
    }
    if (branches.length > 0)
      out.anyOf = branches.map((branch, index) =>
        transform(branch, [...path, 'anyOf', String(index)], diagnostics),
      );
  }
  const main = type === 'integer' ? 'number' : type;
  for (const key of Object.keys(node)) {
    const value = node[key];
    switch (key) {
      case 'type':
      case 'anyOf':
      case 'nullable':
        continue;
      case 'description':
        if (typeof value !== 'string')
          diagnostics.add(
            path,
            'dropped-keyword',
            `dropped description ${shortJson(value)}, which is not a string`,
          );
        continue;
      case 'title':
      case 'pattern':
        if (typeof value === 'string') out[key] = value;
        else
          diagnostics.add(
            path,
            'dropped-keyword',
            `dropped ${key} ${shortJson(value)}, which is not a string`,
          );
        continue;
      case 'default':
      case 'example':
        setMember(out, key, value);
        continue;
      case 'const':
      case 'enum': {
        const values = key === 'const' ? [value] : Array.isArray(value) ? value : [];
        if (values.includes(null)) nullable = true;
        const rest = values.filter((item) => item !== null);
        if (rest.length > 0 && rest.every((item) => typeof item === 'string')) {
          out.enum = rest;
          if (key === 'const')
            diagnostics.add(
              path,
              'const-to-enum',
              'rewrote const as a one-value enum, as Gemini has no const',
            );
        } else if (rest.length > 0) {
          appendDescription(
            out,
            `one of: ${rest.map((item) => shortJson(item, 40)).join(', ')}`.slice(0, 1000),
          );
          diagnostics.add(
            path,
            'dropped-keyword',
            `dropped ${key} with values that are not strings, as Gemini enums hold strings (the values are listed in the description)`,
          );
        }
        continue;
      }
      case 'exclusiveMinimum':
      case 'exclusiveMaximum': {
        const bound = key === 'exclusiveMinimum' ? 'minimum' : 'maximum';
        if (typeof value === 'number' && typeof node[bound] !== 'number') out[bound] = value;
        appendDescription(
          out,
          `${key === 'exclusiveMinimum' ? 'greater' : 'less'} than ${typeof value === 'number' ? value : shortJson(node[bound])}`,
        );
        diagnostics.add(
          path,
          'dropped-keyword',
          `rewrote ${key} as ${bound} (noted in the description), as Gemini has no exclusive bounds`,
        );
        continue;
      }
      case 'minimum':
      case 'maximum':
        if (typeof value === 'number') out[key] = value;
        continue;
      case 'format':
        if (
          typeof value === 'string' &&
          main !== undefined &&
          (geminiFormats[type ?? ''] ?? []).includes(value)
        )
          out.format = value;
        else {
          appendDescription(out, `format: ${shortJson(value, 40)}`);
          diagnostics.add(
            path,
            'dropped-keyword',
            `dropped format ${shortJson(value)}, which Gemini does not support here (noted in the description)`,
          );
        }
        continue;
      case 'properties':
        if (isJsonSchemaNode(value)) {
          const properties: JsonSchemaNode = {};
          for (const name of Object.keys(value)) {
            if (value[name] === false) {
              diagnostics.add(
                [...path, 'properties', name],
                'dropped-property',
                `dropped property '${preview(name, 60)}', whose schema is false (it must not be sent)`,
              );
              continue;
            }
            setMember(
              properties,
              name,
              transform(value[name], [...path, 'properties', name], diagnostics),
            );
          }
          out.properties = properties;
        }
        continue;
      case 'required':
        continue;
      case 'items':
        if (isJsonSchemaNode(value) || typeof value === 'boolean')
          out.items = transform(value, [...path, 'items'], diagnostics);
        else
          diagnostics.add(
            path,
            'dropped-keyword',
            'dropped items as a tuple (an array of schemas), which Gemini cannot express',
          );
        continue;
      default:
        if (counts.includes(key)) {
          if (typeof value === 'number' && Number.isInteger(value) && value >= 0) out[key] = value;
          else
            diagnostics.add(
              path,
              'dropped-keyword',
              `dropped ${key} ${shortJson(value)}, which is not a count`,
            );
          continue;
        }
        if (key === 'multipleOf' || key === 'uniqueItems')
          appendDescription(out, `${key}: ${shortJson(value, 40)}`);
        diagnostics.add(
          path,
          'dropped-keyword',
          `dropped ${key}, which Gemini's schema subset does not have`,
        );
    }
  }
  if (
    node.required !== undefined &&
    !(Array.isArray(node.required) && isJsonSchemaNode(out.properties))
  )
    diagnostics.add(
      path,
      'filtered-required',
      'dropped required, as this schema has no properties for it to name',
    );
  else if (Array.isArray(node.required) && isJsonSchemaNode(out.properties)) {
    const properties = out.properties;
    const required = [
      ...new Set(
        node.required.filter(
          (name): name is string => typeof name === 'string' && Object.hasOwn(properties, name),
        ),
      ),
    ];
    if (required.length < node.required.length)
      diagnostics.add(
        path,
        'filtered-required',
        'removed names from required that are not among the properties (or repeated), as Gemini refuses them',
      );
    if (required.length > 0) out.required = required;
  }
  if (nullable) out.nullable = true;
  return out;
}
