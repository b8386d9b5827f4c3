/**
 * The quick answer for the schemas most tools list: an object schema made only of the everyday
 * keywords (`type`, `properties`, `required`, `items`, `enum`, bounds, annotations), with values
 * the JSON Schema 2020-12 meta-schema and the compiler both take. Such a schema is usable, and
 * saying so here costs microseconds where the full check (prepare-schema.ts, schema-shape.ts)
 * walks it three times: a listing of a thousand tools, and the very first listing (whose code is
 * still cold), are where that shows. Anything else, or anything outside the limits, is left to the
 * full check, so its answers are the only ones given; a test holds the two to agreement.
 */
import { toSchemaDialect, type SchemaDialect } from './schema-dialect.js';
import { hasDuplicates, isPlainObject, type SchemaLimits } from './schema-walk.js';

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/**
 * Whether `key` is one of the keywords taken here with a value it takes, at `depth` (the value's
 * own), with the depth limit `max`. One function and plain loops, not a table of small ones: the
 * first listing runs this cold, and V8 compiles each function on its first call.
 */
function isPlainKeyword(
  key: string,
  value: unknown,
  depth: number,
  max: number,
  dialect: PlainDialect,
): boolean {
  switch (key) {
    case 'type':
      if (typeof value === 'string') return TYPES.has(value);
      return isStringList(value, TYPES) && value.length > 0;
    case 'properties':
      if (!isPlainObject(value)) return false;
      for (const item of Object.values(value))
        if (!isPlainSchema(item, depth + 1, max, dialect)) return false;
      return true;
    case 'required':
      return isStringList(value);
    case 'items':
    case 'additionalProperties':
      return isPlainSchema(value, depth, max, dialect);
    case 'enum':
      // Draft-07's meta-schema wants its values distinct (2020-12's does not).
      return (
        Array.isArray(value) &&
        value.length > 0 &&
        isJson(value, depth, max) &&
        (dialect !== 'draft-07' || !hasDuplicates(value))
      );
    case 'const':
    case 'default':
      return isJson(value, depth, max);
    case 'examples':
      return Array.isArray(value) && isJson(value, depth, max);
    case 'title':
    case 'description':
    case '$comment':
      return typeof value === 'string';
    case 'readOnly':
    case 'writeOnly':
    case 'deprecated':
    case 'uniqueItems':
      return typeof value === 'boolean';
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return typeof value === 'number' && Number.isFinite(value);
    case 'multipleOf':
      return typeof value === 'number' && Number.isFinite(value) && value > 0;
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
    case 'minProperties':
    case 'maxProperties':
      return typeof value === 'number' && Number.isInteger(value) && value >= 0;
    default:
      return false;
  }
}

/** An array of distinct strings (each one of `allowed`, when given). */
function isStringList(value: unknown, allowed?: ReadonlySet<string>): value is string[] {
  if (!Array.isArray(value)) return false;
  for (const item of value)
    if (typeof item !== 'string' || (allowed !== undefined && !allowed.has(item))) return false;
  return new Set(value).size === value.length;
}

/** The dialects a plain schema is usable as: MCP's default, and what zod-to-json-schema names. */
export type PlainDialect = Extract<SchemaDialect, '2020-12' | 'draft-07'>;

/**
 * The dialect `schema` is plainly usable as within `limits` (what the full check would answer with
 * `{ ok: true, dialect }`), or undefined when the full check must decide. A root `$schema` may name
 * draft-07 (servers built on zod-to-json-schema name it on every tool) or 2020-12: the keywords
 * taken here mean the same in both.
 */
export function plainSchemaDialect(
  schema: unknown,
  limits: SchemaLimits,
): PlainDialect | undefined {
  if (!isPlainObject(schema)) return undefined;
  let dialect: PlainDialect = '2020-12';
  if (Object.hasOwn(schema, '$schema')) {
    const named = typeof schema.$schema === 'string' ? toSchemaDialect(schema.$schema) : undefined;
    if (named !== '2020-12' && named !== 'draft-07') return undefined;
    dialect = named;
  }
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch {
    return undefined;
  }
  // UTF-8 takes at most 3 bytes per UTF-16 code unit: surely within the limit, or not decided here.
  if (text.length * 3 > limits.maxBytes) return undefined;
  return isPlainSchema(schema, 1, limits.maxDepth, dialect, true) ? dialect : undefined;
}

/**
 * A schema (a boolean, or an object of the keywords above) at `depth` (the root is 1); the `root`
 * may have a `$schema` (checked by `plainSchemaDialect`).
 */
function isPlainSchema(
  value: unknown,
  depth: number,
  max: number,
  dialect: PlainDialect,
  root = false,
): boolean {
  if (typeof value === 'boolean') return true;
  if (!isPlainObject(value) || depth > max) return false;
  for (const key of Object.keys(value)) {
    if (root && key === '$schema') continue;
    const member = value[key];
    // An object or array member is one level deeper, whatever it holds.
    if (typeof member === 'object' && member !== null && depth + 1 > max) return false;
    if (!isPlainKeyword(key, member, depth + 1, max, dialect)) return false;
  }
  return true;
}

/** JSON data (plain objects and arrays, strings, finite numbers, booleans, null) within the depth. */
function isJson(value: unknown, depth: number, max: number): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (depth > max) return false;
  const items = Array.isArray(value)
    ? value
    : isPlainObject(value)
      ? Object.values(value)
      : undefined;
  if (items === undefined) return false;
  for (const item of items) if (!isJson(item, depth + 1, max)) return false;
  return true;
}
