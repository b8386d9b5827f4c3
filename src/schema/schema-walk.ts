import { preview } from '../errors/redact.js';
import type { SchemaProblemCode } from './schema-check.js';

/** The bounds checked before a schema is compiled. */
export interface SchemaLimits {
  /** Deepest nesting of JSON objects and arrays; `{ "properties": { "a": {} } }` is 3 deep. */
  readonly maxDepth: number;
  /** Largest size of the schema as JSON text, in UTF-8 bytes. */
  readonly maxBytes: number;
}

/** At most this many external refs are listed (all of them are removed). */
export const MAX_LISTED_REFS = 20;

// Where refs are resolved when the root has no `$id`. Never fetched, never matched by a real URI.
export const rootBaseUri = 'https://schema.mcp-host.invalid/root';

const schemaArrayKeywords = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']);
const schemaMapKeywords = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
]);
// Keywords whose values are data (compared, not compiled): a `$ref` inside them is a value.
const dataKeywords = new Set(['const', 'enum', 'default', 'examples']);
const refKeywords = new Set(['$ref', '$dynamicRef', '$recursiveRef']);

/** Thrown inside the walk to stop it at once; always caught by `prepareSchema`. */
export class PrepareFailure extends Error {
  constructor(
    readonly code: SchemaProblemCode,
    readonly problem: string,
  ) {
    super(problem);
  }
}

interface RefSite {
  readonly owner: Record<string, unknown>;
  readonly keyword: string;
  readonly ref: string;
  readonly baseUri: string;
}

/**
 * The bounded walk behind `prepareSchema`: copies a schema while checking its depth and size as
 * JSON, rejecting what is not JSON (cycles, non-finite numbers, class instances), collecting refs
 * and `$id`s and converting draft-04 keywords. It stops as soon as a limit is passed.
 */
export class SchemaWalk {
  #bytes = 0;
  readonly #ancestors = new Set<object>();
  readonly #path: string[] = [];
  readonly #ids = new Set<string>();
  readonly #refs: RefSite[] = [];
  readonly patternPropertyMaps: Record<string, unknown>[] = [];

  constructor(
    readonly limits: SchemaLimits,
    readonly draft04: boolean,
  ) {}

  /** Copies a node in a place where objects are schemas. */
  schema(node: unknown, depth: number, baseUri: string): unknown {
    if (Array.isArray(node))
      return this.#array(node, depth, (item) => this.schema(item, depth + 1, baseUri));
    if (!isPlainObject(node)) return this.data(node, depth);
    this.#enter(node, depth);
    let innerBase = baseUri;
    const id = this.draft04 && typeof node.$id !== 'string' ? node.id : node.$id;
    if (typeof id === 'string' && !id.startsWith('#')) {
      const resolved = resolveUri(id, baseUri);
      if (resolved !== undefined) {
        innerBase = resolved;
        this.#ids.add(withoutFragment(resolved));
      }
    }
    const copy: Record<string, unknown> = {};
    this.#count(2);
    let first = true;
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (value === undefined) continue;
      this.#member(key, first);
      first = false;
      this.#path.push(key);
      let copied: unknown;
      if (refKeywords.has(key) && typeof value === 'string') {
        copied = this.data(value, depth);
        this.#refs.push({ owner: copy, keyword: key, ref: value, baseUri: innerBase });
      } else if (dataKeywords.has(key)) copied = this.data(value, depth + 1);
      else if (schemaMapKeywords.has(key) && isPlainObject(value)) {
        copied = this.#map(value, depth + 1, innerBase);
        if (key === 'patternProperties')
          this.patternPropertyMaps.push(copied as Record<string, unknown>);
      } else if (schemaArrayKeywords.has(key) && Array.isArray(value))
        copied = this.#array(value, depth + 1, (item) => this.schema(item, depth + 2, innerBase));
      else copied = this.schema(value, depth + 1, innerBase);
      this.#path.pop();
      setOwn(copy, key, copied);
    }
    this.#ancestors.delete(node);
    if (this.draft04) convertDraft04(copy);
    return copy;
  }

  /** Copies a node in a place where everything is plain data. */
  data(node: unknown, depth: number): unknown {
    switch (typeof node) {
      case 'string':
        if (node.length > this.limits.maxBytes) this.#count(node.length);
        this.#count(jsonStringBytes(node));
        return node;
      case 'number':
        if (!Number.isFinite(node)) this.#notJson(`the number ${node}`);
        this.#count(String(node).length);
        return node;
      case 'boolean':
        this.#count(node ? 4 : 5);
        return node;
      case 'object':
        if (node === null) {
          this.#count(4);
          return node;
        }
        if (Array.isArray(node))
          return this.#array(node, depth, (item) => this.data(item, depth + 1));
        if (!isPlainObject(node)) return this.#notJson(describe(node));
        this.#enter(node, depth);
        {
          const copy: Record<string, unknown> = {};
          this.#count(2);
          let first = true;
          for (const key of Object.keys(node)) {
            if (node[key] === undefined) continue;
            this.#member(key, first);
            first = false;
            this.#path.push(key);
            setOwn(copy, key, this.data(node[key], depth + 1));
            this.#path.pop();
          }
          this.#ancestors.delete(node);
          return copy;
        }
      case 'bigint':
      case 'function':
      case 'symbol':
      case 'undefined':
        return this.#notJson(describe(node));
    }
  }

  /**
   * Removes every `$ref` that does not resolve inside the schema from the copy, and returns them
   * (at most `MAX_LISTED_REFS`, as written). A ref is inside when it is fragment-only (`#...`) or
   * resolves to a document that an `$id` in this schema declares.
   */
  removeExternalRefs(): string[] {
    const external = new Set<string>();
    for (const site of this.#refs) {
      if (site.ref === '' || site.ref.startsWith('#')) continue;
      const resolved = resolveUri(site.ref, site.baseUri);
      if (resolved !== undefined && this.#ids.has(withoutFragment(resolved))) continue;
      delete site.owner[site.keyword];
      if (external.size < MAX_LISTED_REFS) external.add(site.ref);
    }
    return [...external];
  }

  #map(node: Record<string, unknown>, depth: number, baseUri: string): Record<string, unknown> {
    this.#enter(node, depth);
    const copy: Record<string, unknown> = {};
    this.#count(2);
    let first = true;
    for (const key of Object.keys(node)) {
      if (node[key] === undefined) continue;
      this.#member(key, first);
      first = false;
      this.#path.push(key);
      setOwn(copy, key, this.schema(node[key], depth + 1, baseUri));
      this.#path.pop();
    }
    this.#ancestors.delete(node);
    return copy;
  }

  #array(node: readonly unknown[], depth: number, copyItem: (item: unknown) => unknown): unknown[] {
    this.#enter(node, depth);
    this.#count(node.length === 0 ? 2 : node.length + 1); // brackets and commas
    const copy = node.map((item, index) => {
      this.#path.push(String(index));
      const copied = item === undefined ? this.data(null, depth) : copyItem(item);
      this.#path.pop();
      return copied;
    });
    this.#ancestors.delete(node);
    return copy;
  }

  #enter(node: object, depth: number): void {
    if (depth > this.limits.maxDepth)
      throw new PrepareFailure(
        'SCHEMA_TOO_DEEP',
        `schema is nested more than ${this.limits.maxDepth} levels deep (at ${this.#pointer()})`,
      );
    if (this.#ancestors.has(node)) this.#notJson('a cycle');
    this.#ancestors.add(node);
  }

  /** Counts a member's key, its `:` and the `,` before it (braces are counted with the object). */
  #member(key: string, first: boolean): void {
    if (key.length > this.limits.maxBytes) this.#count(key.length);
    this.#count(jsonStringBytes(key) + (first ? 1 : 2));
  }

  #count(bytes: number): void {
    this.#bytes += bytes;
    if (this.#bytes > this.limits.maxBytes)
      throw new PrepareFailure(
        'SCHEMA_TOO_LARGE',
        `schema is larger than ${this.limits.maxBytes} bytes as JSON`,
      );
  }

  #notJson(what: string): never {
    throw new PrepareFailure('SCHEMA_INVALID', `schema is not JSON: ${what} at ${this.#pointer()}`);
  }

  #pointer(): string {
    if (this.#path.length === 0) return 'the root';
    const pointer = this.#path.map((token) => token.replace(/~/g, '~0').replace(/\//g, '~1'));
    return preview(`/${pointer.join('/')}`, 160);
  }
}
/** Draft-04 wrote exclusive bounds as booleans beside `maximum`/`minimum`; later drafts as numbers. */
function convertDraft04(schema: Record<string, unknown>): void {
  if (typeof schema.id === 'string' && schema.$id === undefined) {
    schema.$id = schema.id;
    delete schema.id;
  }
  for (const [exclusive, bound] of [
    ['exclusiveMaximum', 'maximum'],
    ['exclusiveMinimum', 'minimum'],
  ] as const) {
    if (typeof schema[exclusive] !== 'boolean') continue;
    if (schema[exclusive] === true && typeof schema[bound] === 'number') {
      schema[exclusive] = schema[bound];
      delete schema[bound];
    } else delete schema[exclusive];
  }
}
function resolveUri(reference: string, baseUri: string): string | undefined {
  try {
    return new URL(reference, baseUri).href;
  } catch {
    return undefined;
  }
}

function withoutFragment(uri: string): string {
  const hash = uri.indexOf('#');
  return hash === -1 ? uri : uri.slice(0, hash);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** Sets a member, even one named `__proto__`, as an own property (as `JSON.parse` does). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else target[key] = value;
}

/**
 * Whether two of `items` are equal JSON (what a meta-schema's `uniqueItems` forbids: draft-07's
 * `enum`). The full check and the plain one (plain-schema.ts) both ask this.
 */
export function hasDuplicates(items: readonly unknown[]): boolean {
  for (let i = 0; i < items.length; i++)
    for (let j = i + 1; j < items.length; j++) if (deepEqual(items[i], items[j])) return true;
  return false;
}

/** JSON equality, member order ignored (what ajv's `uniqueItems` and its `$id` check use). */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, index) => deepEqual(item, other[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && deepEqual(left[key], right[key]));
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `a ${value.constructor?.name ?? 'non-plain'} object`;
  return `a ${typeof value}`;
}

/** The UTF-8 length of `JSON.stringify(text)`, without making that string. */
export function jsonStringBytes(text: string): number {
  let bytes = 2;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20)
      bytes += code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 2 : 6;
    else if (code === 0x22 || code === 0x5c) bytes += 2;
    else if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        index++;
      } else bytes += 6; // a lone surrogate is written as \udxxx
    } else if (code >= 0xdc00 && code <= 0xdfff) bytes += 6;
    else bytes += 3;
  }
  return bytes;
}
