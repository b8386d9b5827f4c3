import type { SchemaDiagnostics } from './schema-diagnostics.js';
import {
  declaredTypes,
  isJsonSchemaNode,
  setMember,
  shortJson,
  walkSchemas,
  type JsonSchemaNode,
} from './json-schema-node.js';

const singleSchemas = [
  'additionalProperties',
  'additionalItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
];
const schemaMaps = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
const schemaLists = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const strings = ['title', 'description', 'pattern', 'format', '$comment', '$id', '$schema'];
const counts = [
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
];
const numbers = ['minimum', 'maximum', 'multipleOf'];

/**
 * Makes a schema (a private copy, changed in place) valid JSON Schema, for the providers that
 * take JSON Schema as written (OpenAI without strict mode, Anthropic): keyword values of the wrong
 * kind are dropped (`required: "a"`, `items: 5`, a `type` that names no type), list entries that
 * are not schemas become `{}`, boolean subschemas become objects (`true` is `{}`, `false` is
 * `{ not: {} }`), and draft-04's boolean `exclusiveMinimum`/`exclusiveMaximum` become numbers.
 * Each change has a diagnostic.
 */
export function repairSchema(root: JsonSchemaNode, diagnostics: SchemaDiagnostics): void {
  walkSchemas(root, (node, path) => {
    const drop = (key: string, why: string): void => {
      diagnostics.add(
        path,
        'dropped-keyword',
        `dropped ${key} ${shortJson(node[key])}, which ${why}`,
      );
      delete node[key];
    };
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (key === 'type') {
        const known = declaredTypes(node);
        if (known === undefined) drop(key, 'is not a JSON Schema type');
        else if (Array.isArray(value) && known.length !== value.length) {
          diagnostics.add(
            path,
            'dropped-keyword',
            `kept only the known names of type ${shortJson(value)}`,
          );
          node.type = known;
        }
      } else if (key === 'items') {
        if (typeof value === 'boolean') node.items = asObject(value);
        else if (Array.isArray(value)) node.items = value.map(asSchema);
        else if (!isJsonSchemaNode(value)) drop(key, 'is not a schema');
      } else if (singleSchemas.includes(key)) {
        if (typeof value === 'boolean') {
          if (key !== 'additionalProperties' && key !== 'unevaluatedProperties')
            node[key] = asObject(value);
        } else if (!isJsonSchemaNode(value)) drop(key, 'is not a schema');
      } else if (schemaMaps.includes(key)) {
        if (!isJsonSchemaNode(value)) drop(key, 'is not an object of schemas');
        else
          for (const name of Object.keys(value))
            if (!isJsonSchemaNode(value[name])) {
              if (typeof value[name] !== 'boolean')
                diagnostics.add(
                  [...path, key, name],
                  'replaced-schema',
                  `replaced ${shortJson(value[name])}, which is not a schema, by {}`,
                );
              setMember(value, name, asSchema(value[name]));
            }
      } else if (schemaLists.includes(key)) {
        if (!Array.isArray(value) || value.length === 0)
          drop(key, 'is not a non-empty list of schemas');
        else node[key] = value.map(asSchema);
      } else if (key === 'required') {
        if (!Array.isArray(value)) drop(key, 'is not a list of names');
        else {
          const names = [
            ...new Set(value.filter((name): name is string => typeof name === 'string')),
          ];
          if (names.length !== value.length) {
            diagnostics.add(
              path,
              'filtered-required',
              'removed entries of required that are not names or are repeated',
            );
            node.required = names;
          }
        }
      } else if (key === 'enum') {
        if (!Array.isArray(value) || value.length === 0) drop(key, 'is not a non-empty list');
      } else if (strings.includes(key)) {
        if (typeof value !== 'string') drop(key, 'is not a string');
      } else if (counts.includes(key)) {
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
          drop(key, 'is not a count');
      } else if (numbers.includes(key)) {
        if (typeof value !== 'number' || (key === 'multipleOf' && value <= 0))
          drop(key, 'is not a fitting number');
      } else if (key === 'exclusiveMinimum' || key === 'exclusiveMaximum') {
        if (typeof value === 'boolean') {
          const bound = key === 'exclusiveMinimum' ? 'minimum' : 'maximum';
          if (value && typeof node[bound] === 'number') {
            node[key] = node[bound];
            delete node[bound];
            diagnostics.add(
              path,
              'converted-draft-04',
              `rewrote the draft-04 boolean ${key} as a number`,
            );
          } else drop(key, 'is a draft-04 boolean without effect');
        } else if (typeof value !== 'number') drop(key, 'is not a number');
      } else if (key === 'uniqueItems' && typeof value !== 'boolean') drop(key, 'is not a boolean');
    }
  });
}

function asObject(value: boolean): JsonSchemaNode {
  return value ? {} : { not: {} };
}

function asSchema(value: unknown): JsonSchemaNode {
  if (isJsonSchemaNode(value)) return value;
  return typeof value === 'boolean' ? asObject(value) : {};
}
