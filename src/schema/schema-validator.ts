import { McpHostError } from '../errors/mcp-host-error.js';
import { LruMap } from './lru-map.js';
import { sha256Hex } from '../state/sha256.js';
import { plainSchemaDialect, type PlainDialect } from './plain-schema.js';
import { prepareSchema } from './prepare-schema.js';
import type { SchemaCheck } from './schema-check.js';
import { checkSchemaShape, type SchemaShape } from './schema-shape.js';

export interface SchemaValidatorOptions {
  /** Deepest nesting of JSON objects and arrays in a schema (`{"properties":{"a":{}}}` is 3). */
  maxDepth?: number;
  /** Largest schema, as JSON text in UTF-8 bytes. */
  maxBytes?: number;
  /** Compiled schemas kept for reuse, least recently used dropped first; 0 keeps none. */
  maxCacheEntries?: number;
}

export const defaultSchemaValidatorOptions = {
  maxDepth: 64,
  maxBytes: 256 * 1024,
  maxCacheEntries: 512,
} as const satisfies Required<SchemaValidatorOptions>;

/**
 * Compiles the JSON Schemas that MCP servers send with their tools (`inputSchema`,
 * `outputSchema`) into validators, treating every schema as untrusted input:
 *
 * - The caller's schema is never changed; `$ref`s stay as sent. Compilation works on a copy.
 * - No `$ref` is ever fetched. A `$ref` outside the schema (an `http:` URI, another file) accepts
 *   any value and is listed in `externalRefs`.
 * - Depth and size are checked before anything is compiled (`SCHEMA_TOO_DEEP`,
 *   `SCHEMA_TOO_LARGE`); an invalid schema is reported (`SCHEMA_INVALID`) with the reason, never
 *   thrown. Boolean schemas (`true`, `false`) are valid.
 * - `pattern`s run on a linear-time engine (RE2), so none can block the event loop; patterns RE2
 *   cannot run accept anything and are listed in `unsupportedPatterns`.
 * - Dialects: 2020-12 (also when `$schema` is absent, as MCP specifies), 2019-09 and draft-07
 *   (draft-06 and draft-04 with draft-07 rules). A schema without `$schema` that is invalid as
 *   2020-12 but valid as draft-07 (tuple `items`) is validated as draft-07, with a warning.
 * - The validator (ajv) is loaded on the first `compile()`, not when mcp-host is imported.
 *   `check()` decides whether a schema is usable without it (what a tool listing uses), and
 *   `compile()` is left for when a value must be validated (a tool's first call).
 *
 * Results are cached by schema object (a `WeakMap`) and by a SHA-256 digest of the schema's JSON
 * text, in an LRU of `maxCacheEntries`: the same tools listed again compile once.
 */
export class SchemaValidator {
  readonly options: Readonly<Required<SchemaValidatorOptions>>;
  readonly #digests = new WeakMap<object, string>();
  readonly #cache: LruMap<string, SchemaCheck>;
  readonly #shapes = new WeakMap<object, SchemaShape>();

  constructor(options: SchemaValidatorOptions = {}) {
    const merged = { ...defaultSchemaValidatorOptions, ...withoutUndefined(options) };
    for (const [name, value] of Object.entries(merged))
      if (!Number.isInteger(value) || value < (name === 'maxCacheEntries' ? 0 : 1))
        throw new McpHostError(
          'INVALID_ARGUMENT',
          `SchemaValidator: ${name} must be a ${name === 'maxCacheEntries' ? 'non-negative' : 'positive'} integer`,
        );
    this.options = Object.freeze(merged);
    this.#cache = new LruMap(merged.maxCacheEntries);
  }

  /** Compiled schemas currently cached. */
  get cacheSize(): number {
    return this.#cache.size;
  }

  /**
   * Checks and compiles `schema`. Resolves to `{ ok: true, validate, ... }` or to
   * `{ ok: false, code, problem }`; it rejects only when the validator itself cannot be loaded
   * (`INTERNAL`, an installation problem). The same schema (by object, or by JSON text while
   * cached) gives the same frozen result.
   */
  async compile(schema: unknown): Promise<SchemaCheck> {
    const hit = this.compiled(schema);
    if (hit !== undefined) return hit;

    const prepared = prepareSchema(schema, this.options);
    if (!prepared.ok) return prepared;
    const digest = await sha256Hex(prepared.text);
    if (isObject(schema)) this.#digests.set(schema, digest);
    const cached = this.#cache.get(digest);
    if (cached !== undefined) return cached;

    const engine = await import('./ajv-engine.js').catch((error: unknown) => {
      throw new McpHostError('INTERNAL', 'cannot load the JSON Schema validator (ajv, re2js)', {
        cause: error,
      });
    });
    // A concurrent compile() of the same schema may have finished while this one was loading.
    const done = this.#cache.get(digest);
    if (done !== undefined) return done;
    const check = engine.compilePrepared(prepared);
    this.#cache.set(digest, check);
    return check;
  }

  /**
   * What `compile()` gave for this very schema object, while it is cached; undefined when it was
   * not compiled yet (or has left the cache). Synchronous: a hot path (a tool's every call) checks
   * here first and awaits `compile()` only the first time.
   */
  compiled(schema: unknown): SchemaCheck | undefined {
    const digest = isObject(schema) ? this.#digests.get(schema) : undefined;
    return digest === undefined ? undefined : this.#cache.get(digest);
  }

  /**
   * Decides whether `schema` is usable without compiling it: synchronous, and it never loads
   * ajv, so a tool listing can call it for every schema it receives. It checks what `compile()`
   * checks first (the limits, then the dialect's meta-schema, with the same draft-07 fallback) and
   * what ajv's compiler refuses on top (an empty `enum`, `nullable` without `type`, the keyword
   * `id`, a `pattern` that is not an ECMAScript regex, a `$ref` that resolves to nothing inside
   * the schema). The problem reads like `compile()`'s (`schema is not valid JSON Schema 2020-12:
   * /type must be ...`).
   *
   * It is never stricter than `compile()`, and agrees with it on every schema but a few it lets
   * through (docs/architecture.md, "Tool schemas"); for
   * those `compile()` still reports the problem, when the tool is first called. Results are
   * cached by schema object.
   */
  check(schema: unknown): SchemaShape {
    const known = isObject(schema) ? this.#shapes.get(schema) : undefined;
    if (known !== undefined) return known;
    // Most tools list a plain object schema (2020-12, or draft-07 from zod): said without the walk.
    const plain = plainSchemaDialect(schema, this.options);
    if (plain !== undefined) {
      this.#shapes.set(schema as object, PLAIN_SHAPES[plain]);
      return PLAIN_SHAPES[plain];
    }
    const prepared = prepareSchema(schema, this.options);
    const shape = Object.freeze(prepared.ok ? checkSchemaShape(prepared) : prepared);
    if (isObject(schema)) this.#shapes.set(schema, shape);
    return shape;
  }

  /** Drops every cached compiled schema. */
  clearCache(): void {
    this.#cache.clear();
  }
}

/** Makes a `SchemaValidator`; see there. */
export function createSchemaValidator(options?: SchemaValidatorOptions): SchemaValidator {
  return new SchemaValidator(options);
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function withoutUndefined(options: SchemaValidatorOptions): SchemaValidatorOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

/** What `check` answers for a plain schema of each dialect (plain-schema.ts). */
const PLAIN_SHAPES: Readonly<Record<PlainDialect, SchemaShape>> = {
  '2020-12': Object.freeze({ ok: true, dialect: '2020-12' }),
  'draft-07': Object.freeze({ ok: true, dialect: 'draft-07' }),
};
