/**
 * The plain-JSON schema nodes the normalisers work on (copies made by `copyJsonSchema`, so they
 * may be changed in place), and the small helpers every provider's rules share.
 */
import { isPlainObject } from '../../schema/schema-walk.js';

/** A JSON Schema object node of a normaliser's private copy. */
export type JsonSchemaNode = Record<string, unknown>;

/** Whether `value` is a schema object node (a plain JSON object). */
export function isJsonSchemaNode(value: unknown): value is JsonSchemaNode {
  return isPlainObject(value);
}

/** The JSON Schema type names. */
export const jsonTypes = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

/** Keywords that only constrain values of one type, by that type (`integer` shares `number`'s). */
export const keywordsByType: Readonly<Record<string, readonly string[]>> = {
  string: ['minLength', 'maxLength', 'pattern', 'format', 'contentEncoding', 'contentMediaType'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'format'],
  object: [
    'properties',
    'required',
    'additionalProperties',
    'patternProperties',
    'propertyNames',
    'minProperties',
    'maxProperties',
    'dependentRequired',
    'dependentSchemas',
    'dependencies',
    'unevaluatedProperties',
  ],
  array: [
    'items',
    'prefixItems',
    'additionalItems',
    'minItems',
    'maxItems',
    'uniqueItems',
    'contains',
    'minContains',
    'maxContains',
    'unevaluatedItems',
  ],
};

/**
 * The types a node declares (`type` as a string or an array of known names), or undefined when
 * it declares none that is usable (absent, or junk such as `42`).
 */
export function declaredTypes(node: JsonSchemaNode): string[] | undefined {
  const type = node.type;
  if (typeof type === 'string') return jsonTypes.includes(type) ? [type] : undefined;
  if (!Array.isArray(type)) return undefined;
  const known = [...new Set(type.filter((t): t is string => typeof t === 'string'))].filter((t) =>
    jsonTypes.includes(t),
  );
  return known.length > 0 ? known : undefined;
}

/**
 * The type a node's other keywords imply when it declares none: `object` for `properties`,
 * `array` for `items`, the values' types for `enum`/`const`; undefined when nothing says.
 */
export function impliedTypes(node: JsonSchemaNode): string[] | undefined {
  if (isJsonSchemaNode(node.properties) || isJsonSchemaNode(node.additionalProperties))
    return ['object'];
  if (node.items !== undefined || Array.isArray(node.prefixItems)) return ['array'];
  const values = Array.isArray(node.enum)
    ? node.enum
    : Object.hasOwn(node, 'const')
      ? [node.const]
      : undefined;
  if (values === undefined || values.length === 0) return undefined;
  const types = new Set(values.map(typeOfValue));
  return [...types];
}

/** The JSON Schema type name of a JSON value (`integer` for whole numbers). */
export function typeOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

/** JSON equality of two JSON values (member order ignored), bounded by `budget` comparisons. */
export function jsonEqual(a: unknown, b: unknown, budget = { left: 10_000 }): boolean {
  if (--budget.left < 0) return false;
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, index) => jsonEqual(item, b[index], budget));
  const left = a as JsonSchemaNode;
  const right = b as JsonSchemaNode;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key], budget));
}

/** Sets a member, even one named `__proto__`, as an own property (as `JSON.parse` does). */
export function setMember(target: JsonSchemaNode, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else target[key] = value;
}

/** One JSON Pointer token, escaped. */
export function pointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A JSON Pointer from its tokens (`''` for the root). */
export function toPointer(tokens: readonly string[]): string {
  return tokens.map((token) => `/${pointerToken(token)}`).join('');
}

/** A value as short JSON text for a message or a description. */
export function shortJson(value: unknown, maxChars = 80): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}

/** Appends a sentence to a node's description (made when absent), bounded in length. */
export function appendDescription(node: JsonSchemaNode, note: string): void {
  const current = typeof node.description === 'string' ? node.description : '';
  if (current.includes(note)) return;
  const joined = current === '' ? note : `${current} (${note})`;
  node.description = joined.length > 4000 ? joined.slice(0, 4000) : joined;
}

const schemaMapKeywords = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
]);
const schemaArrayKeywords = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const schemaKeywords = new Set([
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
  'contentSchema',
]);

/**
 * Calls `visit` with each direct subschema of `node` that is an object, and the pointer tokens
 * from `node` to it. Values of data keywords (`enum`, `const`, `default`, `examples`) and of
 * unknown keywords are not schemas and are never visited.
 */
export function forEachSubschema(
  node: JsonSchemaNode,
  visit: (child: JsonSchemaNode, tokens: readonly string[]) => void,
): void {
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (schemaMapKeywords.has(key) && isJsonSchemaNode(value)) {
      for (const name of Object.keys(value)) {
        const child = value[name];
        if (isJsonSchemaNode(child)) visit(child, [key, name]);
      }
    } else if (schemaArrayKeywords.has(key) && Array.isArray(value)) {
      value.forEach((child, index) => {
        if (isJsonSchemaNode(child)) visit(child, [key, String(index)]);
      });
    } else if (key === 'items') {
      if (isJsonSchemaNode(value)) visit(value, [key]);
      else if (Array.isArray(value))
        value.forEach((child, index) => {
          if (isJsonSchemaNode(child)) visit(child, [key, String(index)]);
        });
    } else if (schemaKeywords.has(key) && isJsonSchemaNode(value)) visit(value, [key]);
  }
}

/**
 * A shallow copy of `node` whose direct subschemas (those `forEachSubschema` visits) are replaced
 * by `map(child, tokens)`; the maps and arrays holding them are new, the rest is shared.
 */
export function mapSubschemas(
  node: JsonSchemaNode,
  map: (child: JsonSchemaNode, tokens: readonly string[]) => unknown,
): JsonSchemaNode {
  const copy: JsonSchemaNode = { ...node };
  forEachSubschema(node, (child, tokens) => {
    const [key, index] = tokens as [string, string | undefined];
    if (index === undefined) {
      setMember(copy, key, map(child, tokens));
      return;
    }
    let container = copy[key];
    if (container === node[key])
      setMember(
        copy,
        key,
        (container = Array.isArray(container)
          ? [...(container as unknown[])]
          : { ...(container as JsonSchemaNode) }),
      );
    if (Array.isArray(container)) container[Number(index)] = map(child, tokens);
    else setMember(container as JsonSchemaNode, index, map(child, tokens));
  });
  return copy;
}

/**
 * Calls `visit` with every schema object of a tree (depth first, parents before children) and its
 * pointer tokens from the root; each object is visited once.
 */
export function walkSchemas(
  root: JsonSchemaNode,
  visit: (node: JsonSchemaNode, path: readonly string[]) => void,
): void {
  const seen = new Set<JsonSchemaNode>();
  const stack: { node: JsonSchemaNode; path: readonly string[] }[] = [{ node: root, path: [] }];
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === undefined || seen.has(next.node)) continue;
    seen.add(next.node);
    visit(next.node, next.path);
    const children: { node: JsonSchemaNode; path: readonly string[] }[] = [];
    forEachSubschema(next.node, (child, tokens) =>
      children.push({ node: child, path: [...next.path, ...tokens] }),
    );
    stack.push(...children.reverse());
  }
}
