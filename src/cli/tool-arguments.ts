/**
 * Tool arguments from the command line: `--args '<json>'`, JSON on stdin (`-`), and repeatable
 * `--arg key=value` whose value is read by the type the tool's `inputSchema` gives that key: a
 * `string` stays as written (`zip=01234` is "01234"), `integer`/`number`/`boolean`/`null` are
 * parsed and checked (an integer beyond ±2^53 is refused: it would arrive rounded), `object`/
 * `array` are JSON; a key without a type is JSON when it parses and a number prints back as
 * written, else a string. `--arg` wins over `--args` for the same key; the same key twice is
 * refused.
 */
import type { JsonObject } from '../jsonrpc/message.js';
import { usageError } from './exit-codes.js';

type Schema = { properties?: Record<string, { type?: string | string[] } | boolean> };

/** `key=value` pairs into an object, each value coerced by `schema.properties[key].type`. */
export function parseArgPairs(pairs: readonly string[], schema: unknown): JsonObject {
  const properties = (schema as Schema | undefined)?.properties ?? {};
  const out: JsonObject = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw usageError(`--arg '${pair}' is not key=value`);
    const key = pair.slice(0, at);
    if (Object.hasOwn(out, key)) throw usageError(`--arg ${key} is given twice: give it once`);
    const text = pair.slice(at + 1);
    const property = properties[key];
    const declared = typeof property === 'object' ? property.type : undefined;
    const types = declared === undefined ? [] : Array.isArray(declared) ? declared : [declared];
    out[key] = coerce(key, text, types);
  }
  return out;
}

function coerce(key: string, text: string, types: readonly string[]): unknown {
  if (types.length === 0) return untyped(text);
  // A string type keeps the text (so 01234 stays "01234"), unless it is null and null is allowed.
  if (types.includes('string')) return text === 'null' && types.includes('null') ? null : text;
  for (const type of types) {
    switch (type) {
      case 'integer':
        if (/^-?\d+$/.test(text.trim())) {
          const value = Number(text);
          if (!Number.isSafeInteger(value))
            throw usageError(
              `--arg ${key}: ${text.trim()} is beyond the integers JSON numbers keep exactly (±2^53); the tool would get ${value}`,
            );
          return value;
        }
        break;
      case 'number':
        if (text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
        break;
      case 'boolean':
        if (text === 'true' || text === 'false') return text === 'true';
        break;
      case 'null':
        if (text === 'null') return null;
        break;
      case 'object': {
        const value = tryJson(text);
        if (
          value !== undefined &&
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value)
        )
          return value;
        break;
      }
      case 'array': {
        const value = tryJson(text);
        if (Array.isArray(value)) return value;
        break;
      }
      default:
        break;
    }
  }
  throw usageError(`--arg ${key}: '${text}' is not ${types.join(' or ')} (the tool's schema)`);
}

/**
 * A value for a key the schema does not type: JSON when it parses, else the text. A number that
 * does not print back as written (`12345678901234567890`, `1e400`, `1.50`) stays the text, so no
 * digit is lost on the way.
 */
function untyped(text: string): unknown {
  const value = tryJson(text);
  if (value === undefined) return text;
  if (typeof value === 'number' && JSON.stringify(value) !== text.trim()) return text;
  return value;
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A JSON object from `--args` or stdin, or a usage error saying where it came from. */
export function parseArgsJson(text: string, from: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw usageError(`${from} is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw usageError(`${from} must be a JSON object of arguments`);
  return value as JsonObject;
}

/** Reads all of stdin as text. */
export async function readStdin(stdin: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
