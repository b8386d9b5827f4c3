/**
 * RFC 8785, the JSON Canonicalization Scheme (JCS): with a SHA-256 (sha256.ts) it turns a JSON value
 * into a stable fingerprint (see `serverIdentity`). Platform-neutral.
 */
import { McpHostError } from '../errors/mcp-host-error.js';

/**
 * The deepest nesting `canonicalJson` accepts (the top-level value is depth 0). Deeper input is
 * refused with `INVALID_ARGUMENT` instead of overflowing the stack; state and configuration are
 * nowhere near it.
 */
export const MAX_CANONICAL_JSON_DEPTH = 512;

/**
 * False for a string with a lone UTF-16 surrogate (`String.prototype.isWellFormed`, ES2024, in
 * every Node this package supports; not yet in the `lib` this project compiles with). Not the
 * regular expression `/\p{Cs}/u`: built at load, as the bundle writes it, it costs about 0.3 ms of
 * every program that loads this module, before its first server can answer.
 */
const isWellFormed = (text: string): boolean =>
  (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * Serialises a JSON value the way RFC 8785 (JCS) prescribes, so equal data always gives equal
 * text:
 *
 * - object members sorted by their names as UTF-16 code unit sequences (JavaScript's default
 *   string order), recursively; array order kept;
 * - no whitespace;
 * - numbers as ECMAScript's `Number.prototype.toString` writes them, which is what
 *   `JSON.stringify` does and what JCS specifies (`1e+21`, `1e-7`, `-0` becomes `0`);
 * - strings escaped as `JSON.stringify` escapes them.
 *
 * Like `JSON.stringify`, members whose value is `undefined` are left out, array slots holding
 * `undefined` become `null`, `toJSON()` is honoured (so a `Date` becomes its ISO string) and boxed
 * primitives are unwrapped. Unlike it, this refuses with `INVALID_ARGUMENT` (naming where, as a
 * path like `$.servers[2].port`) everything that has no faithful JSON form rather than quietly
 * dropping or mangling it: `NaN` and infinities, BigInt, functions, symbols, strings with lone
 * surrogates (JCS requires I-JSON), cycles, nesting deeper than {@link MAX_CANONICAL_JSON_DEPTH},
 * a top-level `undefined`, and objects that are neither plain objects nor arrays (a `Map`, a
 * class instance) unless they have a `toJSON()`. A value reached twice without a cycle is fine.
 */
export function canonicalJson(value: unknown): string {
  const writer = new Canonicaliser();
  const resolved = writer.resolve(value, '');
  if (resolved === undefined) return writer.fail('undefined');
  return writer.write(resolved, 0);
}

class Canonicaliser {
  /** The objects on the way from the root to the value being written: a repeat is a cycle. */
  readonly #ancestors = new Set<object>();
  /** Member names and indexes on that way, for error messages. */
  readonly #path: Array<string | number> = [];

  /** Writes one value, already resolved. */
  write(value: unknown, depth: number): string {
    switch (typeof value) {
      case 'string':
        return this.#string(value);
      case 'number':
        if (!Number.isFinite(value)) this.fail(`the number ${String(value)}`);
        return JSON.stringify(value);
      case 'boolean':
        return value ? 'true' : 'false';
      case 'object':
        if (value === null) return 'null';
        return this.#object(value, depth);
      case 'undefined':
        return this.fail('undefined');
      case 'bigint':
        return this.fail('a BigInt');
      case 'function':
        return this.fail('a function');
      case 'symbol':
        return this.fail('a symbol');
    }
  }

  /**
   * Applies `toJSON` (once, with the member name or index as `JSON.stringify` passes it) and
   * unwraps boxed primitives.
   */
  resolve(value: unknown, key: string): unknown {
    if (typeof value !== 'object' || value === null) return value;
    const toJson = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJson === 'function') return (toJson as (key: string) => unknown).call(value, key);
    if (value instanceof Number) return Number(value);
    if (value instanceof String) return String(value);
    if (value instanceof Boolean) return value.valueOf();
    return value;
  }

  #string(value: string): string {
    if (!isWellFormed(value)) this.fail('a string with a lone surrogate');
    return JSON.stringify(value);
  }

  #object(value: object, depth: number): string {
    if (depth >= MAX_CANONICAL_JSON_DEPTH)
      this.fail(`nesting deeper than ${MAX_CANONICAL_JSON_DEPTH} levels`);
    if (this.#ancestors.has(value)) this.fail('a cycle');
    const isArray = Array.isArray(value);
    if (!isArray) {
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
        this.fail(typeof name === 'string' && name !== '' ? `a ${name}` : 'a non-plain object');
      }
    }
    this.#ancestors.add(value);
    try {
      return isArray ? this.#array(value as unknown[], depth) : this.#members(value, depth);
    } finally {
      this.#ancestors.delete(value);
    }
  }

  #array(items: readonly unknown[], depth: number): string {
    const parts: string[] = [];
    for (let index = 0; index < items.length; index++) {
      this.#path.push(index);
      const item = this.resolve(items[index], String(index));
      parts.push(item === undefined ? 'null' : this.write(item, depth + 1));
      this.#path.pop();
    }
    return `[${parts.join(',')}]`;
  }

  #members(object: object, depth: number): string {
    const record = object as Record<string, unknown>;
    const parts: string[] = [];
    // Default sort order is by UTF-16 code units, exactly what RFC 8785 section 3.2.3 asks for.
    for (const name of Object.keys(record).sort()) {
      this.#path.push(name);
      // Like JSON.stringify, a member that is (or whose toJSON returns) undefined is left out.
      const resolved = this.resolve(record[name], name);
      if (resolved !== undefined)
        parts.push(`${this.#string(name)}:${this.write(resolved, depth + 1)}`);
      this.#path.pop();
    }
    return `{${parts.join(',')}}`;
  }

  /** Throws `INVALID_ARGUMENT` naming what was found and where. */
  fail(what: string): never {
    let where = '$';
    for (const part of this.#path)
      where +=
        typeof part === 'number'
          ? `[${part}]`
          : /^[A-Za-z_$][\w$]*$/.test(part)
            ? `.${part}`
            : `[${JSON.stringify(part)}]`;
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `canonicalJson: ${what} at ${where} has no JSON form`,
      {
        details: { path: where },
      },
    );
  }
}
