/**
 * JSON values as `google.protobuf.Struct` / `Value`, in the object form `@grpc/proto-loader`
 * gives and takes (`{ fields: { key: { stringValue: 'x' } } }`), and back. The API carries the MCP
 * JSON it does not own (schemas, tool results, prompt messages) this way; a TypeScript client
 * uses the same two functions on its side.
 */
import { McpHostError } from '../errors/mcp-host-error.js';
import type { JsonObject } from '../jsonrpc/message.js';

/** A `google.protobuf.Value` as proto-loader represents it. */
export interface StructValue {
  nullValue?: 'NULL_VALUE' | 0;
  numberValue?: number;
  stringValue?: string;
  boolValue?: boolean;
  structValue?: Struct;
  listValue?: { values?: StructValue[] };
  kind?: string;
}

/** A `google.protobuf.Struct` as proto-loader represents it. */
export interface Struct {
  fields?: Record<string, StructValue>;
}

/** Nesting deeper than this is refused (`INVALID_ARGUMENT`), both ways. */
const MAX_DEPTH = 128;

/** A JSON object as a `google.protobuf.Struct`. */
export function toStruct(object: JsonObject): Struct {
  return structOf(object, 0);
}

/** A `google.protobuf.Struct` as a JSON object (an absent one is `{}`). */
export function fromStruct(struct: Struct | null | undefined): JsonObject {
  return objectOf(struct, 0);
}

/** Any JSON value (undefined and non-finite numbers as null, as JSON has them) as a `google.protobuf.Value`. */
export function toValue(value: unknown): StructValue {
  return valueOf(value, 0);
}

/** A `google.protobuf.Value` as a JSON value (an empty one is `null`). */
export function fromValue(value: StructValue | null | undefined): unknown {
  return jsonOf(value, 0);
}

function tooDeep(): McpHostError {
  return new McpHostError('INVALID_ARGUMENT', `JSON nested deeper than ${MAX_DEPTH} levels`);
}

function structOf(object: JsonObject, depth: number): Struct {
  if (depth > MAX_DEPTH) throw tooDeep();
  const fields: Record<string, StructValue> = {};
  for (const [key, value] of Object.entries(object))
    if (value !== undefined) fields[key] = valueOf(value, depth + 1);
  return { fields };
}

function valueOf(value: unknown, depth: number): StructValue {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'number' && Number.isFinite(value)) return { numberValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'object' && value !== null) {
    if (depth > MAX_DEPTH) throw tooDeep();
    if (Array.isArray(value))
      return { listValue: { values: value.map((item: unknown) => valueOf(item, depth + 1)) } };
    return { structValue: structOf(value as JsonObject, depth + 1) };
  }
  // null, and what JSON cannot hold (undefined, NaN, a function, a bigint), as JSON.stringify does.
  return { nullValue: 'NULL_VALUE' };
}

function objectOf(struct: Struct | null | undefined, depth: number): JsonObject {
  if (depth > MAX_DEPTH) throw tooDeep();
  // A null-prototype object: a `__proto__` key from the wire stays a plain key.
  const object: JsonObject = Object.create(null) as JsonObject;
  for (const [key, value] of Object.entries(struct?.fields ?? {}))
    object[key] = jsonOf(value, depth + 1);
  return { ...object };
}

function jsonOf(value: StructValue | null | undefined, depth: number): unknown {
  if (value === null || value === undefined) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.numberValue !== undefined) return value.numberValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.structValue !== undefined) return objectOf(value.structValue, depth + 1);
  if (value.listValue !== undefined) {
    if (depth > MAX_DEPTH) throw tooDeep();
    return (value.listValue.values ?? []).map((item) => jsonOf(item, depth + 1));
  }
  return null;
}
