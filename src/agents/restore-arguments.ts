/**
 * Undoes what OpenAI's strict mode makes a model do: strict schemas list every property as
 * required, an optional one with `null` added to its type, so a model sends `"x": null` for
 * "not given". Before the call reaches the server, such nulls are dropped again wherever the
 * tool's own schema has the property optional and not nullable, at any depth. Pure.
 */
import type { JsonObject } from '../jsonrpc/message.js';
import { isObject } from '../protocol/guards.js';

/** Levels of nesting followed (objects and arrays); deeper values are passed on as they are. */
const MAX_DEPTH = 32;

/**
 * `args` without the nulls a strict-mode model sent for optional properties of `schema` (the
 * tool's original input schema). Returns `args` itself when there is nothing to drop.
 */
export function restoreArguments(args: JsonObject, schema: JsonObject): JsonObject {
  const restored = restoreValue(args, schema, schema, 0);
  return isObject(restored) ? restored : args;
}

function restoreValue(value: unknown, schema: unknown, root: JsonObject, depth: number): unknown {
  if (depth > MAX_DEPTH || !isObject(schema)) return value;
  const resolved = resolveRef(schema, root);
  if (Array.isArray(value)) {
    const items = resolved.items;
    if (!isObject(items)) return value;
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const next = restoreValue(item, items, root, depth + 1);
      if (next !== item) (copy ??= value.slice())[index] = next;
    });
    return copy ?? value;
  }
  if (!isObject(value)) return value;
  const properties = isObject(resolved.properties) ? resolved.properties : undefined;
  if (properties === undefined) return value;
  const required = Array.isArray(resolved.required) ? resolved.required : [];
  let copy: JsonObject | undefined;
  for (const key of Object.keys(value)) {
    const property = properties[key];
    const item = value[key];
    if (item === null) {
      if (required.includes(key) || (isObject(property) && allowsNull(property, root))) continue;
      copy ??= { ...value };
      delete copy[key];
      continue;
    }
    const next = restoreValue(item, property, root, depth + 1);
    if (next !== item) (copy ??= { ...value })[key] = next;
  }
  return copy ?? value;
}

function allowsNull(schema: JsonObject, root: JsonObject): boolean {
  const resolved = resolveRef(schema, root);
  const type = resolved.type;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (resolved.nullable === true) return true;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const options = resolved[keyword];
    if (Array.isArray(options) && options.some((o) => isObject(o) && isNullType(o))) return true;
  }
  return false;
}

function isNullType(schema: JsonObject): boolean {
  return schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'));
}

/** A local `$ref` (`#/$defs/x`, `#/definitions/x`) to what it names; anything else unchanged. */
function resolveRef(schema: JsonObject, root: JsonObject): JsonObject {
  let current = schema;
  for (let hops = 0; hops < 8 && typeof current.$ref === 'string'; hops++) {
    const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(current.$ref);
    const defs = match === null ? undefined : root[match[1]!];
    const target = isObject(defs) ? defs[decodePointer(match![2]!)] : undefined;
    if (!isObject(target)) return current;
    current = target;
  }
  return current;
}

function decodePointer(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}
