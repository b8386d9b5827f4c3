/**
 * The quick answer for the schemas most tools list: an object schema made only of the everyday
 * keywords (`type`, `properties`, `required`, `items`, `enum`, bounds, annotations), with values
 * the JSON Schema 2020-12 meta-schema and the compiler both take. Such a schema is usable, and
 * saying so here costs microseconds where the full check (prepare-schema.ts, schema-shape.ts)
 * walks it three times: a listing of a thousand tools, and the very first listing (whose code is
 * still cold), are where that shows. Anything else, or anything outside the limits, is left to the
 * full check, so its answers are the only ones given; a test holds the two to agreement.
 */
import { isPlainObject, type SchemaLimits } from './schema-walk.js';

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/** Whether a keyword's value is taken, at `depth` (the value's own), with the depth limit `max`. */
type Rule = (value: unknown, depth: number, max: number) => boolean;

/** The keywords taken here, each with what its value must be. */
const RULES: Readonly<Record<string, Rule>> = {
  type: (value) =>
    typeof value === 'string'
      ? TYPES.has(value)
      : Array.isArray(value) &&
        value.length > 0 &&
        value.every((item) => typeof item === 'string' && TYPES.has(item)) &&
        new Set(value).size === value.length,
  properties: (value, depth, max) =>
    isPlainObject(value) &&
    Object.values(value).every((item) => isPlainSchema(item, depth + 1, max)),
  required: (value) =>
    Array.isArray(value) &&
    value.every((item) => typeof item === 'string') &&
    new Set(value).size === value.length,
  items: isPlainSchema,
  additionalProperties: isPlainSchema,
  enum: (value, depth, max) =>
    Array.isArray(value) && value.length > 0 && isJson(value, depth, max),
  const: isJson,
  default: isJson,
  examples: (value, depth, max) => Array.isArray(value) && isJson(value, depth, max),
  title: isString,
  description: isString,
  $comment: isString,
  readOnly: isBoolean,
  writeOnly: isBoolean,
  deprecated: isBoolean,
  uniqueItems: isBoolean,
  minimum: isFiniteNumber,
  maximum: isFiniteNumber,
  exclusiveMinimum: isFiniteNumber,
  exclusiveMaximum: isFiniteNumber,
  multipleOf: (value) => isFiniteNumber(value) && value > 0,
  minLength: isCount,
  maxLength: isCount,
  minItems: isCount,
  maxItems: isCount,
  minProperties: isCount,
  maxProperties: isCount,
};

/**
 * True when `schema` is plainly usable as JSON Schema 2020-12 within `limits` (what the full check
 * would answer with `{ ok: true, dialect: '2020-12' }`); false when the full check must decide.
 */
export function isPlainUsableSchema(schema: unknown, limits: SchemaLimits): boolean {
  if (!isPlainObject(schema)) return false;
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch {
    return false;
  }
  // UTF-8 takes at most 3 bytes per UTF-16 code unit: surely within the limit, or not decided here.
  if (text.length * 3 > limits.maxBytes) return false;
  return isPlainSchema(schema, 1, limits.maxDepth);
}

/** A schema (a boolean, or an object of the keywords above) at `depth` (the root is 1). */
function isPlainSchema(value: unknown, depth: number, max: number): boolean {
  if (typeof value === 'boolean') return true;
  if (!isPlainObject(value) || depth > max) return false;
  for (const key of Object.keys(value)) {
    const rule = Object.hasOwn(RULES, key) ? RULES[key] : undefined;
    const member = value[key];
    // An object or array member is one level deeper, whatever it holds.
    if (typeof member === 'object' && member !== null && depth + 1 > max) return false;
    if (rule === undefined || !rule(member, depth + 1, max)) return false;
  }
  return true;
}

/** JSON data (plain objects and arrays, strings, finite numbers, booleans, null) within the depth. */
function isJson(value: unknown, depth: number, max: number): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (depth > max) return false;
  if (Array.isArray(value)) return value.every((item) => isJson(item, depth + 1, max));
  return isPlainObject(value) && Object.values(value).every((item) => isJson(item, depth + 1, max));
}

function isString(value: unknown): boolean {
  return typeof value === 'string';
}

function isBoolean(value: unknown): boolean {
  return typeof value === 'boolean';
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
