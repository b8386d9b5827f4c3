/**
 * Checks a parsed value against the subset of JSON Schema in `native-schema.ts` and returns what
 * is usable: the value with unknown keys taken out (into `extra`, in the file's own shape) and
 * invalid values dropped, each problem reported once with its key path. `oneOf`, `allOf`, `if`
 * and `then` are left to editors (the reader checks those rules itself, with better messages).
 *
 * Messages never quote a string that could be a secret: a found string is shown only where a
 * boolean, number or fixed word was expected (`enabled: yes`, `type: stdoi`).
 */
import { closestKey } from '../diagnostics.js';
import type { ConfigDiagnostic } from '../model.js';
import { isRecord, type KeyPath } from '../parse.js';
import type { JsonTypeName, SchemaNode } from './native-schema.js';

export type SchemaReport = (
  severity: ConfigDiagnostic['severity'],
  kind: string,
  message: string,
  path: KeyPath,
  suggestion?: string,
) => void;

/** What is left of a value: `undefined` when it was invalid (reported). */
export interface CheckedValue {
  value: unknown;
  /** Unknown keys and their values, nested as in the file (only for objects). */
  extra?: Record<string, unknown>;
}

/** Reports a value that is none of `schema`'s choices, naming them (and the closest one). */
function notAChoice(
  schema: SchemaNode,
  value: unknown,
  path: KeyPath,
  report: SchemaReport,
): CheckedValue {
  report('error', 'invalid-value', mismatch(schema, value), path, enumSuggestion(schema, value));
  return { value: undefined };
}

export function checkAgainstSchema(
  value: unknown,
  schema: SchemaNode,
  path: KeyPath,
  report: SchemaReport,
): CheckedValue {
  if (schema.anyOf !== undefined) {
    const branch = schema.anyOf.find((candidate) => acceptsShape(candidate, value));
    if (branch === undefined) {
      report('error', 'invalid-type', mismatch(schema, value), path, enumSuggestion(schema, value));
      return { value: undefined };
    }
    // Name every choice (`'strict' or false`), not only those of the branch.
    if (branch.enum !== undefined && !branch.enum.includes(value as string))
      return notAChoice(schema, value, path, report);
    return checkAgainstSchema(value, branch, path, report);
  }
  if (schema.const !== undefined && value !== schema.const) {
    report('error', 'invalid-value', mismatch(schema, value), path);
    return { value: undefined };
  }
  if (schema.enum !== undefined) {
    if (!schema.enum.includes(value as string)) return notAChoice(schema, value, path, report);
    return { value };
  }
  const types = typesOf(schema);
  if (types.length > 0 && !types.some((type) => hasType(value, type))) {
    report('error', 'invalid-type', mismatch(schema, value), path);
    return { value: undefined };
  }
  if (typeof value === 'number' && schema.minimum !== undefined && value < schema.minimum) {
    report('error', 'out-of-range', mismatch(schema, value), path);
    return { value: undefined };
  }
  if (typeof value === 'number' && schema.maximum !== undefined && value > schema.maximum) {
    report('error', 'out-of-range', mismatch(schema, value), path);
    return { value: undefined };
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) {
      report(
        'error',
        'invalid-value',
        `expected ${describeSchema(schema)}, found an empty string`,
        path,
      );
      return { value: undefined };
    }
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) {
      report('error', 'invalid-value', `expected ${describeSchema(schema)}`, path);
      return { value: undefined };
    }
    return { value };
  }
  if (Array.isArray(value)) return checkArray(value, schema, path, report);
  if (isRecord(value)) return checkObject(value, schema, path, report);
  return { value };
}

function checkArray(
  value: unknown[],
  schema: SchemaNode,
  path: KeyPath,
  report: SchemaReport,
): CheckedValue {
  if (schema.items === undefined) return { value };
  const items: unknown[] = [];
  let ok = true;
  value.forEach((item, index) => {
    const checked = checkAgainstSchema(item, schema.items!, [...path, index], report);
    if (checked.value === undefined) ok = false;
    else items.push(checked.value);
  });
  // A list with a bad item is dropped whole: half a list of arguments is worse than none.
  return ok ? { value: items } : { value: undefined };
}

function checkObject(
  value: Record<string, unknown>,
  schema: SchemaNode,
  path: KeyPath,
  report: SchemaReport,
): CheckedValue {
  const known = schema.properties ?? {};
  const knownKeys = Object.keys(known);
  const additional = schema.additionalProperties;
  const result: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const keyPath = [...path, key];
    const property = Object.hasOwn(known, key) ? known[key] : undefined;
    if (property !== undefined) {
      const checked = checkAgainstSchema(item, property, keyPath, report);
      if (checked.value !== undefined) result[key] = checked.value;
      if (checked.extra !== undefined) extra[key] = checked.extra;
    } else if (typeof additional === 'object') {
      if (schema.propertyNames?.pattern !== undefined) {
        const names = schema.propertyNames;
        if (!new RegExp(names.pattern!, 'u').test(key)) {
          report('error', 'invalid-key', `'${key}' is not a valid name here`, keyPath);
          continue;
        }
      }
      const checked = checkAgainstSchema(item, additional, keyPath, report);
      if (checked.value !== undefined) result[key] = checked.value;
      if (checked.extra !== undefined) extra[key] = checked.extra;
    } else {
      const suggestion = closestKey(key, knownKeys);
      report(
        'warning',
        'unknown-key',
        `unknown key '${key}' (kept, but not used)` +
          (suggestion === undefined ? '' : `; did you mean '${suggestion}'?`),
        keyPath,
        suggestion,
      );
      extra[key] = item;
    }
  }
  return Object.keys(extra).length > 0 ? { value: result, extra } : { value: result };
}

function typesOf(schema: SchemaNode): JsonTypeName[] {
  if (schema.type === undefined) return [];
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

function hasType(value: unknown, type: JsonTypeName): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return isRecord(value);
    case 'array':
      return Array.isArray(value);
    case 'null':
      return value === null;
  }
}

/** Whether a branch of `anyOf` is the one meant for this kind of value. */
function acceptsShape(schema: SchemaNode, value: unknown): boolean {
  if (schema.const !== undefined) return value === schema.const;
  if (schema.enum !== undefined)
    return typeof value === 'string' && typeof schema.enum[0] === 'string';
  const types = typesOf(schema);
  return types.length === 0 || types.some((type) => hasType(value, type));
}

function enumSuggestion(schema: SchemaNode, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const words = [
    ...(schema.enum ?? []),
    ...(schema.anyOf ?? []).flatMap((branch) => branch.enum ?? []),
  ].filter((word): word is string => typeof word === 'string');
  return closestKey(value, words);
}

/** What the schema wants, in words. */
function describeSchema(schema: SchemaNode): string {
  if (schema.anyOf !== undefined) return schema.anyOf.map(describeSchema).join(' or ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum !== undefined)
    return `one of ${schema.enum.map((v) => `'${String(v)}'`).join(', ')}`;
  const types = typesOf(schema);
  if (types.length > 1) {
    const words = types.map((type) => TYPE_WORDS[type].replace(/^an? /, ''));
    return `a ${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
  }
  const type = types[0];
  if (type === undefined) return 'a value';
  if (
    (type === 'integer' || type === 'number') &&
    schema.minimum !== undefined &&
    schema.maximum !== undefined
  )
    return `${TYPE_WORDS[type]} from ${schema.minimum} to ${schema.maximum}`;
  if ((type === 'integer' || type === 'number') && schema.minimum !== undefined)
    return `${TYPE_WORDS[type]} ≥ ${schema.minimum}`;
  if (type === 'string' && schema.pattern !== undefined)
    return `a string matching /${schema.pattern}/`;
  if (type === 'string' && schema.minLength !== undefined && schema.minLength > 0)
    return 'a non-empty string';
  if (type === 'array' && schema.items !== undefined)
    return `a list of ${plural(describeSchema(schema.items))}`;
  if (type === 'object' && typeof schema.additionalProperties === 'object')
    return `a mapping of names to ${plural(describeSchema(schema.additionalProperties))}`;
  if (type === 'object') return 'a mapping (key: value)';
  return TYPE_WORDS[type];
}

const TYPE_WORDS: Record<JsonTypeName, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'a mapping (key: value)',
  array: 'a list',
  null: 'null',
};

function plural(text: string): string {
  return text
    .replace(/^an? /, '')
    .replace(/^(string|number|whole number|list|mapping)\b/, '$1s')
    .replace(/ or (string|number|boolean)\b/, ' or $1s')
    .replace(/, (string|number)\b/g, ', $1s');
}

/** `expected X, found Y`, quoting a found string only where no secret can be (see the header). */
function mismatch(schema: SchemaNode, value: unknown): string {
  const scalarExpected =
    schema.enum !== undefined ||
    schema.const !== undefined ||
    schema.anyOf !== undefined ||
    typesOf(schema).every((type) => type !== 'string' && type !== 'object' && type !== 'array');
  let text = `expected ${describeSchema(schema)}, found ${found(value, scalarExpected)}`;
  if (
    typeof value === 'string' &&
    typesOf(schema).includes('boolean') &&
    /^(yes|no|on|off|y|n|true|false)$/i.test(value)
  )
    text += ' (write true or false without quotes: YAML 1.2 reads yes, no, on and off as text)';
  return text;
}

function found(value: unknown, quoteStrings: boolean): string {
  if (value === null) return 'null (an empty value)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') {
    if (!quoteStrings) return value === '' ? 'an empty string' : 'a string';
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `the string '${shown}'`;
  }
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return String(value);
  return typeof value;
}
