import { isObject } from '../../protocol/guards.js';
import { type JsonObject } from '../../jsonrpc/message.js';

/**
 * Drops `null` values of optional top-level properties, as models often send `"x": null` for
 * "not given" and servers then reject the call. Required properties, and properties the schema
 * allows to be null (`type` including "null"), are left alone. Returns the same object when there
 * is nothing to drop.
 */
export function cleanArguments(args: JsonObject, inputSchema: JsonObject): JsonObject {
  let cleaned: JsonObject | undefined;
  const properties = isObject(inputSchema.properties) ? inputSchema.properties : undefined;
  const required = Array.isArray(inputSchema.required) ? inputSchema.required : [];
  for (const key in args) {
    if (args[key] !== null || required.includes(key)) continue;
    const property = properties?.[key];
    if (isObject(property) && allowsNull(property)) continue;
    cleaned ??= { ...args };
    delete cleaned[key];
  }
  return cleaned ?? args;
}

function allowsNull(schema: Record<string, unknown>): boolean {
  const type = schema.type;
  if (type === 'null') return true;
  if (Array.isArray(type) && type.includes('null')) return true;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const options = schema[keyword];
    if (Array.isArray(options) && options.some((o) => isObject(o) && allowsNull(o))) return true;
  }
  return false;
}
