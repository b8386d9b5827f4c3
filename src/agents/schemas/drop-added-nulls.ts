import type { JsonObject } from '../../jsonrpc/message.js';
import { resolveLocalRef } from './hoist-refs.js';
import { declaredTypes, isJsonSchemaNode, type JsonSchemaNode } from './json-schema-node.js';

/** Deepest nesting of arguments and of references followed. */
const MAX_DEPTH = 32;
const MAX_REF_HOPS = 8;

/**
 * The arguments a model sent for a tool offered in OpenAI's strict form, with the `null`s that
 * stand for "not given" removed, at every depth: a `null` is dropped where the tool's own schema
 * (`schema`, the `inputSchema` as the server sent it) has the property as optional and does not
 * accept `null` for it. Strict mode makes every optional property required and nullable, so the
 * model sends `null` for what it leaves out; the server's schema would refuse those. Places the
 * schema describes with `anyOf`/`oneOf`/`allOf` are left as sent. Returns `args` itself when there
 * is nothing to drop; never changes `args`; bounded in depth.
 */
export function dropAddedNulls(args: JsonObject, schema: JsonObject): JsonObject {
  return cleanObject(args, schema, schema, 0);
}

function cleanObject(
  value: JsonObject,
  schema: unknown,
  root: JsonObject,
  depth: number,
): JsonObject {
  const node = target(schema, root);
  if (node === undefined || depth > MAX_DEPTH) return value;
  const properties = isJsonSchemaNode(node.properties) ? node.properties : {};
  const required = Array.isArray(node.required) ? node.required : [];
  let out: JsonObject | undefined;
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(properties, key)) continue;
    const item = value[key];
    const property = properties[key];
    let cleaned: unknown = item;
    if (item === null) {
      if (required.includes(key) || acceptsNull(property, root)) continue;
      out ??= { ...value };
      delete out[key];
      continue;
    }
    cleaned = cleanValue(item, property, root, depth + 1);
    if (cleaned !== item) {
      out ??= { ...value };
      out[key] = cleaned;
    }
  }
  return out ?? value;
}

function cleanValue(value: unknown, schema: unknown, root: JsonObject, depth: number): unknown {
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const node = target(schema, root);
    if (node === undefined || !isJsonSchemaNode(node.items)) return value;
    const items = node.items;
    let changed = false;
    const cleaned = value.map((item) => {
      const next = cleanValue(item, items, root, depth + 1);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? cleaned : value;
  }
  return cleanObject(value as JsonObject, schema, root, depth);
}

/** The plain object schema at a place (references followed), or undefined for a union or junk. */
function target(schema: unknown, root: JsonObject): JsonSchemaNode | undefined {
  let node = schema;
  for (let hops = 0; isJsonSchemaNode(node) && typeof node.$ref === 'string'; hops++) {
    if (hops >= MAX_REF_HOPS) return undefined;
    node = resolveLocalRef(root, node.$ref);
  }
  if (!isJsonSchemaNode(node)) return undefined;
  if (node.anyOf !== undefined || node.oneOf !== undefined || node.allOf !== undefined)
    return undefined;
  return node;
}

function acceptsNull(schema: unknown, root: JsonObject): boolean {
  if (schema === true || (isJsonSchemaNode(schema) && Object.keys(schema).length === 0))
    return true;
  let node = schema;
  for (
    let hops = 0;
    isJsonSchemaNode(node) && typeof node.$ref === 'string' && hops < MAX_REF_HOPS;
    hops++
  )
    node = resolveLocalRef(root, node.$ref);
  if (!isJsonSchemaNode(node)) return true;
  if (
    node.type === undefined &&
    node.anyOf === undefined &&
    node.oneOf === undefined &&
    node.enum === undefined &&
    node.const === undefined
  )
    return true;
  if (declaredTypes(node)?.includes('null') === true) return true;
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true;
  if (Object.hasOwn(node, 'const') && node.const === null) return true;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = node[key];
    if (Array.isArray(options) && options.some((option) => acceptsNull(option, root))) return true;
  }
  return false;
}
