// The synchronous, ajv-free answer to "is this schema usable?" that a tool listing needs: the
// rules of the dialect's meta-schema (what ajv's `validateSchema` checks) and the few things
// ajv's compiler refuses on top (see `compileRules`), hand-written so that a listing never loads
// ajv. `schema-shape.test.ts` holds it to ajv's own verdict over a corpus.
import { preview } from '../errors/redact.js';
import type { PreparedSchema } from './prepare-schema.js';
import type { SchemaProblem } from './schema-check.js';
import type { SchemaDialect } from './schema-dialect.js';
import { hasDuplicates, isPlainObject, rootBaseUri } from './schema-walk.js';

/** Keywords under which ajv does not take an object's `$id` as a new base on a pointer's way. */
const SCOPE_KEEPING = new Set([
  'properties',
  'patternProperties',
  'enum',
  'dependencies',
  'definitions',
]);

/** What `SchemaValidator.check()` returns: the dialect a usable schema is read in, or why not. */
export type SchemaShape = { readonly ok: true; readonly dialect: SchemaDialect } | SchemaProblem;

/** The meta-schemas mcp-host knows; draft-06 and draft-04 are checked with draft-07's. */
type MetaDialect = '2020-12' | '2019-09' | 'draft-07';

type Rule =
  | 'any'
  | 'string'
  | 'boolean'
  | 'number'
  | 'positive'
  | 'count'
  | 'schema'
  | 'schemas'
  | 'schemaMap'
  | 'schemaOrSchemas'
  | 'stringArray'
  | 'stringArrayMap'
  | 'dependencies'
  | 'array'
  | 'enum'
  | 'type'
  | 'id'
  | 'anchor'
  | 'vocabulary';

const draft07Rules: Readonly<Record<string, Rule>> = {
  $id: 'string',
  $schema: 'string',
  $ref: 'string',
  $comment: 'string',
  title: 'string',
  description: 'string',
  default: 'any',
  readOnly: 'boolean',
  examples: 'array',
  multipleOf: 'positive',
  maximum: 'number',
  exclusiveMaximum: 'number',
  minimum: 'number',
  exclusiveMinimum: 'number',
  maxLength: 'count',
  minLength: 'count',
  pattern: 'string',
  additionalItems: 'schema',
  items: 'schemaOrSchemas',
  maxItems: 'count',
  minItems: 'count',
  uniqueItems: 'boolean',
  contains: 'schema',
  maxProperties: 'count',
  minProperties: 'count',
  required: 'stringArray',
  additionalProperties: 'schema',
  definitions: 'schemaMap',
  properties: 'schemaMap',
  patternProperties: 'schemaMap',
  dependencies: 'dependencies',
  propertyNames: 'schema',
  const: 'any',
  enum: 'enum',
  type: 'type',
  format: 'string',
  contentMediaType: 'string',
  contentEncoding: 'string',
  if: 'schema',
  then: 'schema',
  else: 'schema',
  allOf: 'schemas',
  anyOf: 'schemas',
  oneOf: 'schemas',
  not: 'schema',
};

const draft2019Rules: Readonly<Record<string, Rule>> = {
  ...draft07Rules,
  $id: 'id',
  $anchor: 'anchor',
  $vocabulary: 'vocabulary',
  $defs: 'schemaMap',
  $recursiveRef: 'string',
  $recursiveAnchor: 'boolean',
  enum: 'array',
  writeOnly: 'boolean',
  deprecated: 'boolean',
  unevaluatedItems: 'schema',
  unevaluatedProperties: 'schema',
  dependentSchemas: 'schemaMap',
  dependentRequired: 'stringArrayMap',
  maxContains: 'count',
  minContains: 'count',
  contentSchema: 'schema',
};

const draft2020Rules: Readonly<Record<string, Rule>> = {
  ...draft2019Rules,
  $dynamicRef: 'string',
  $dynamicAnchor: 'anchor',
  $recursiveAnchor: 'anchor',
  items: 'schema',
  prefixItems: 'schemas',
};
delete (draft2020Rules as Record<string, Rule>).additionalItems;

const metaRules: Readonly<Record<MetaDialect, Readonly<Record<string, Rule>>>> = {
  '2020-12': draft2020Rules,
  '2019-09': draft2019Rules,
  'draft-07': draft07Rules,
};

const anchorPatterns: Readonly<Record<MetaDialect, RegExp>> = {
  '2020-12': /^[A-Za-z_][-A-Za-z0-9._]*$/u,
  '2019-09': /^[A-Za-z][-A-Za-z0-9.:_]*$/u,
  'draft-07': /^[A-Za-z_][-A-Za-z0-9._]*$/u, // unused: draft-07 has no $anchor
};

const typeNames = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);

/**
 * The keywords ajv's compiler knows in each dialect, with the JSON types their values must have
 * (ajv throws `<keyword> value must be [...]` otherwise, meta-schema or not).
 */
type ValueType = 'string' | 'number' | 'boolean' | 'array' | 'object';
const draft07Compiled: Readonly<Record<string, readonly ValueType[]>> = {
  $comment: [],
  id: [],
  const: [],
  $ref: ['string'],
  maximum: ['number'],
  minimum: ['number'],
  exclusiveMaximum: ['number'],
  exclusiveMinimum: ['number'],
  multipleOf: ['number'],
  maxLength: ['number'],
  minLength: ['number'],
  pattern: ['string'],
  maxProperties: ['number'],
  minProperties: ['number'],
  required: ['array'],
  maxItems: ['number'],
  minItems: ['number'],
  uniqueItems: ['boolean'],
  type: ['string', 'array'],
  nullable: ['boolean'],
  enum: ['array'],
  not: ['object', 'boolean'],
  anyOf: ['array'],
  oneOf: ['array'],
  allOf: ['array'],
  if: ['object', 'boolean'],
  then: ['object', 'boolean'],
  else: ['object', 'boolean'],
  propertyNames: ['object', 'boolean'],
  additionalProperties: ['boolean', 'object'],
  dependencies: ['object'],
  properties: ['object'],
  patternProperties: ['object'],
  additionalItems: ['boolean', 'object'],
  items: ['object', 'array', 'boolean'],
  contains: ['object', 'boolean'],
  format: ['string'],
};
const draft2019Compiled: Readonly<Record<string, readonly ValueType[]>> = {
  ...draft07Compiled,
  $dynamicAnchor: ['string'],
  $dynamicRef: ['string'],
  $recursiveAnchor: ['boolean'],
  $recursiveRef: ['string'],
  dependentRequired: ['object'],
  dependentSchemas: ['object'],
  maxContains: ['number'],
  minContains: ['number'],
  unevaluatedProperties: ['boolean', 'object'],
  unevaluatedItems: ['boolean', 'object'],
};
const draft2020Compiled: Readonly<Record<string, readonly ValueType[]>> = {
  ...draft2019Compiled,
  prefixItems: ['array'],
  items: ['object', 'boolean'],
};
delete (draft2020Compiled as Record<string, readonly ValueType[]>).additionalItems;

const compiledKeywords: Readonly<Record<MetaDialect, typeof draft07Compiled>> = {
  '2020-12': draft2020Compiled,
  '2019-09': draft2019Compiled,
  'draft-07': draft07Compiled,
};

// ajv's own anchor check when it collects `$anchor`s and `$dynamicAnchor`s.
const ajvAnchor = /^[a-z_][-a-z0-9._]*$/i;
// How json-schema-traverse (ajv's walk for `$id`s and anchors) reads a schema's members.
const traversedArrays = new Set(['items', 'allOf', 'anyOf', 'oneOf']);
const traversedMaps = new Set([
  '$defs',
  'definitions',
  'properties',
  'patternProperties',
  'dependencies',
]);
const untraversed = new Set([
  'default',
  'enum',
  'const',
  'required',
  'maximum',
  'minimum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'multipleOf',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
]);

class ShapeFailure extends Error {}

function toMetaDialect(dialect: SchemaDialect): MetaDialect {
  return dialect === '2020-12' || dialect === '2019-09' ? dialect : 'draft-07';
}

/**
 * Decides whether a prepared schema is usable, without ajv: valid against its dialect's
 * meta-schema (a schema without `$schema` that is not valid 2020-12 but valid draft-07 is
 * draft-07, as the compiler decides), then free of what ajv's compiler refuses (a `type` name
 * it does not know, an empty `enum`, `nullable` without `type`, the keyword `id`, a `pattern`
 * that is not an ECMAScript regex, a local `$ref` that resolves to nothing). Never throws.
 */
export function checkSchemaShape(prepared: PreparedSchema): SchemaShape {
  const schema = prepared.copy;
  if (typeof schema === 'boolean') return { ok: true, dialect: prepared.dialect };
  let dialect = prepared.dialect;
  const problem = metaProblem(schema, toMetaDialect(dialect));
  if (problem !== undefined) {
    if (prepared.dialectAssumed && metaProblem(schema, 'draft-07') === undefined)
      dialect = 'draft-07';
    else return invalid(`schema is not valid JSON Schema ${dialect}: ${problem}`);
  }
  const compileProblem = new CompileCheck(toMetaDialect(dialect)).run(schema);
  if (compileProblem !== undefined) return invalid(`schema cannot be compiled: ${compileProblem}`);
  return { ok: true, dialect };
}

function invalid(problem: string): SchemaProblem {
  return { ok: false, code: 'SCHEMA_INVALID', problem: preview(problem, 600) };
}

// ---- the meta-schema ---------------------------------------------------------------------------

/** The first way `schema` breaks the dialect's meta-schema, as `<pointer> <message>`. */
function metaProblem(schema: Record<string, unknown>, dialect: MetaDialect): string | undefined {
  const path: string[] = [];
  const fail = (message: string): never => {
    throw new ShapeFailure(`${pointer(path)} ${message}`);
  };
  const rules = metaRules[dialect];

  const checkSchema = (node: unknown): void => {
    if (typeof node === 'boolean') return;
    if (!isPlainObject(node)) fail('must be object,boolean');
    const object = node as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const rule = Object.hasOwn(rules, key) ? rules[key] : undefined;
      if (rule === undefined) continue;
      path.push(key);
      checkValue(object[key], rule);
      path.pop();
    }
  };

  const each = (items: readonly unknown[], check: (item: unknown) => void): void => {
    items.forEach((item, index) => {
      path.push(String(index));
      check(item);
      path.pop();
    });
  };
  const members = (node: Record<string, unknown>, check: (item: unknown) => void): void => {
    for (const key of Object.keys(node)) {
      path.push(key);
      check(node[key]);
      path.pop();
    }
  };
  const stringArray = (value: unknown): void => {
    if (!Array.isArray(value)) fail('must be array');
    const items = value as unknown[];
    each(items, (item) => {
      if (typeof item !== 'string') fail('must be string');
    });
    if (new Set(items).size !== items.length) fail('must NOT have duplicate items');
  };
  const object = (value: unknown): Record<string, unknown> => {
    if (!isPlainObject(value)) fail('must be object');
    return value as Record<string, unknown>;
  };

  const checkValue = (value: unknown, rule: Rule): void => {
    switch (rule) {
      case 'any':
        return;
      case 'string':
      case 'boolean':
      case 'number':
        if (typeof value !== rule) fail(`must be ${rule}`);
        return;
      case 'positive':
        if (typeof value !== 'number') fail('must be number');
        if ((value as number) <= 0) fail('must be > 0');
        return;
      case 'count':
        if (typeof value !== 'number' || !Number.isInteger(value)) fail('must be integer');
        if ((value as number) < 0) fail('must be >= 0');
        return;
      case 'schema':
        checkSchema(value);
        return;
      case 'schemas':
        if (!Array.isArray(value)) fail('must be array');
        if ((value as unknown[]).length === 0) fail('must NOT have fewer than 1 items');
        each(value as unknown[], checkSchema);
        return;
      case 'schemaOrSchemas':
        if (Array.isArray(value)) checkValue(value, 'schemas');
        else if (typeof value !== 'boolean' && !isPlainObject(value))
          fail('must be object,boolean or a non-empty array of schemas');
        else checkSchema(value);
        return;
      case 'schemaMap':
        members(object(value), checkSchema);
        return;
      case 'stringArray':
        stringArray(value);
        return;
      case 'stringArrayMap':
        members(object(value), stringArray);
        return;
      case 'dependencies':
        members(object(value), (item) => {
          if (Array.isArray(item)) stringArray(item);
          else if (typeof item !== 'boolean' && !isPlainObject(item))
            fail('must be a schema or an array of unique strings');
          else checkSchema(item);
        });
        return;
      case 'array':
        if (!Array.isArray(value)) fail('must be array');
        return;
      case 'enum':
        if (!Array.isArray(value)) fail('must be array');
        if ((value as unknown[]).length === 0) fail('must NOT have fewer than 1 items');
        if (hasDuplicates(value as unknown[])) fail('must NOT have duplicate items');
        return;
      case 'type':
        if (typeof value === 'string') {
          if (!typeNames.has(value)) fail('must be equal to one of the allowed values');
          return;
        }
        if (
          !Array.isArray(value) ||
          value.length === 0 ||
          value.some((item) => typeof item !== 'string' || !typeNames.has(item)) ||
          new Set(value).size !== value.length
        )
          fail(
            'must be equal to one of the allowed values (a type name or a non-empty array of unique type names)',
          );
        return;
      case 'id':
        if (typeof value !== 'string') fail('must be string');
        if (!/^[^#]*#?$/u.test(value as string)) fail('must match pattern "^[^#]*#?$"');
        return;
      case 'anchor':
        if (typeof value !== 'string') fail('must be string');
        if (!anchorPatterns[dialect].test(value as string))
          fail(`must match pattern "${anchorPatterns[dialect].source}"`);
        return;
      case 'vocabulary':
        members(object(value), (item) => {
          if (typeof item !== 'boolean') fail('must be boolean');
        });
        return;
    }
  };

  try {
    checkSchema(schema);
    return undefined;
  } catch (error) {
    if (error instanceof ShapeFailure) return error.message;
    if (error instanceof RangeError) return '(root) is nested too deeply to check';
    throw error;
  }
}

// ---- what ajv's compiler refuses -----------------------------------------------------------------

/**
 * Walks the places ajv compiles (the root, its applicators, and whatever a `$ref` reaches) for
 * what ajv's code generation throws on, and checks that every `$ref` resolves.
 */
class CompileCheck {
  readonly #dialect: MetaDialect;
  readonly #keywords: Readonly<Record<string, readonly ValueType[]>>;
  readonly #compiled = new Set<object>();
  readonly #resources = new Map<string, object | boolean>();
  readonly #seen = new Set<string>();
  readonly #refs: { ref: string; base: string; keyword: string }[] = [];
  readonly #bases = new Map<object, string>();
  #path: string[] = [];
  #root: object | undefined;

  constructor(dialect: MetaDialect) {
    this.#dialect = dialect;
    this.#keywords = compiledKeywords[dialect];
  }

  run(schema: Record<string, unknown>): string | undefined {
    try {
      const rootId = typeof schema.$id === 'string' ? schema.$id : undefined;
      const rootBase = resolveUri(rootId ?? '', rootBaseUri) ?? rootBaseUri;
      this.#root = schema;
      this.#collect(schema, withoutFragment(rootBase), true);
      this.#compile(schema);
      for (let index = 0; index < this.#refs.length; index++) {
        const site = this.#refs[index]!;
        const target = this.#resolve(site.ref, site.base);
        if (target === undefined)
          throw new ShapeFailure(`can't resolve reference ${site.ref} from id ${site.base}`);
        if (typeof target === 'object') {
          this.#path = ['(reference)', site.ref];
          this.#compile(target);
        }
      }
      return undefined;
    } catch (error) {
      if (error instanceof ShapeFailure) return preview(error.message, 300);
      if (error instanceof RangeError) return 'schema is nested too deeply to check';
      throw error;
    }
  }

  /**
   * Records every schema resource (`$id`) and anchor where ajv's `getSchemaRefs` finds them (the
   * walk of json-schema-traverse with `allKeys`), refusing what it refuses: an anchor that is not
   * a name, and two subschemas with the same `$id` or anchor.
   */
  #collect(node: unknown, base: string, root = false): void {
    if (!isPlainObject(node)) return;
    let inner = base;
    if (root) this.#resources.set(base, node);
    else {
      if (typeof node.$id === 'string') {
        const resolved = resolveUri(node.$id, base);
        if (resolved !== undefined) {
          this.#addResource(resolved, node);
          // draft-07's `"$id": "#name"` names a place, not a resource.
          if (fragmentOf(resolved) === '') inner = withoutFragment(resolved);
        }
      }
      for (const keyword of ['$anchor', '$dynamicAnchor']) {
        const anchor = node[keyword];
        if (typeof anchor !== 'string') continue;
        if (!ajvAnchor.test(anchor)) throw new ShapeFailure(`invalid anchor "${anchor}"`);
        this.#addResource(`${inner}#${anchor}`, node);
      }
    }
    this.#bases.set(node, inner);
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (Array.isArray(value)) {
        if (traversedArrays.has(key)) for (const item of value) this.#collect(item, inner);
      } else if (traversedMaps.has(key)) {
        if (typeof value === 'object' && value !== null)
          for (const item of Object.values(value)) this.#collect(item, inner);
      } else if (!untraversed.has(key)) this.#collect(value, inner);
    }
  }

  #addResource(uri: string, node: object): void {
    const key = withoutEmptyFragment(uri);
    if (this.#seen.has(key))
      throw new ShapeFailure(`reference "${key}" resolves to more than one schema`);
    this.#seen.add(key);
    if (!this.#resources.has(key)) this.#resources.set(key, node);
  }

  #resolve(ref: string, base: string): unknown {
    const resolved = resolveUri(ref, base);
    if (resolved === undefined) return undefined;
    const direct = this.#resources.get(resolved);
    if (direct !== undefined && direct !== this.#root) return direct;
    const document = this.#resources.get(withoutFragment(resolved));
    if (document === undefined) return undefined;
    let fragment: string;
    try {
      fragment = decodeURIComponent(fragmentOf(resolved));
    } catch {
      return undefined;
    }
    if (fragment === '') return document;
    if (!fragment.startsWith('/')) return undefined;
    let node: unknown = document;
    for (const token of fragment.slice(1).split('/')) {
      const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
      if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
      node = (node as Record<string, unknown>)[key];
      // ajv takes a truthy `$id` of every object on the way as a new base URI (but under these
      // keywords), and fails on one that is not a string: so does this.
      const id = (node as { $id?: unknown } | null)?.$id;
      if (id && typeof id !== 'string' && !SCOPE_KEEPING.has(key)) return undefined;
    }
    // Whatever is there, schema or not, ajv compiles (to nothing it refuses), except null.
    return node ?? undefined;
  }

  /** Checks one schema ajv compiles, and the subschemas it compiles with it. */
  #compile(node: unknown): void {
    if (!isPlainObject(node) || this.#compiled.has(node)) return;
    this.#compiled.add(node);
    const base = this.#bases.get(node) ?? rootBaseUri;
    const fail = (message: string): never => {
      throw new ShapeFailure(`${message} (at ${pointer(this.#path)})`);
    };
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (key === 'id') fail('NOT SUPPORTED: keyword "id", use "$id" for schema ID');
      const types = Object.hasOwn(this.#keywords, key) ? this.#keywords[key] : undefined;
      if (
        types !== undefined &&
        types.length > 0 &&
        !types.some((type) => hasValueType(value, type))
      )
        fail(`${key} value must be ${JSON.stringify(types)}`);
    }
    const types = jsonTypes(node.type);
    if (types === undefined) fail(`type must be JSONType or JSONType[]: ${String(node.type)}`);
    if (types!.includes('null')) {
      if (node.nullable === false) fail('type: null contradicts nullable: false');
    } else if (types!.length === 0 && node.nullable !== undefined)
      fail('"nullable" cannot be used without "type"');
    if (Array.isArray(node.enum) && node.enum.length === 0) fail('enum must have non-empty array');
    if (typeof node.pattern === 'string') checkPattern(node.pattern, fail);
    // ajv compiles `patternProperties` keys unless every one of their subschemas accepts
    // anything (then only a failing `additionalProperties` uses them, and, in 2019-09 and
    // 2020-12, not always even that: see docs/architecture.md, "Tool schemas", for that leniency).
    if (isPlainObject(node.patternProperties)) {
      const patterns = node.patternProperties;
      if (
        Object.values(patterns).some((item) => this.#hasRules(item)) ||
        (node.additionalProperties !== undefined && this.#hasRules(node.additionalProperties))
      )
        for (const pattern of Object.keys(patterns)) checkPattern(pattern, fail);
    }
    for (const keyword of ['$dynamicRef', '$recursiveRef']) {
      const ref = node[keyword];
      if (Object.hasOwn(this.#keywords, keyword) && typeof ref === 'string' && !ref.startsWith('#'))
        fail(`"${keyword}" only supports hash fragment reference`);
    }
    if (typeof node.$ref === 'string') this.#refs.push({ ref: node.$ref, base, keyword: '$ref' });

    const sub = (key: string, value: unknown): void => {
      this.#path.push(key);
      this.#compile(value);
      this.#path.pop();
    };
    const subs = (key: string, value: unknown): void => {
      if (Array.isArray(value)) value.forEach((item, index) => sub(`${key}/${index}`, item));
    };
    const map = (key: string, value: unknown): void => {
      if (isPlainObject(value))
        for (const name of Object.keys(value)) sub(`${key}/${name}`, value[name]);
    };
    for (const key of ['not', 'propertyNames', 'additionalProperties', 'contains'])
      sub(key, node[key]);
    // ajv compiles `if`, `then` and `else` only when `if` is there and `then` or `else` can fail.
    if (node.if !== undefined && (this.#hasRules(node.then) || this.#hasRules(node.else))) {
      sub('if', node.if);
      sub('then', node.then);
      sub('else', node.else);
    }
    subs('allOf', node.allOf);
    subs('oneOf', node.oneOf);
    // Draft-07's compiler (no `unevaluated*` to track) skips an `anyOf` that has a branch any
    // value passes, and compiles none of its branches.
    if (
      this.#dialect !== 'draft-07' ||
      !Array.isArray(node.anyOf) ||
      node.anyOf.every((branch) => this.#hasRules(branch))
    )
      subs('anyOf', node.anyOf);
    map('properties', node.properties);
    map('patternProperties', node.patternProperties);
    map('dependencies', node.dependencies);
    if (this.#dialect === '2020-12') {
      subs('prefixItems', node.prefixItems);
      sub('items', node.items);
    } else if (Array.isArray(node.items)) {
      subs('items', node.items);
      sub('additionalItems', node.additionalItems);
    } else sub('items', node.items);
    if (this.#dialect !== 'draft-07') {
      map('dependentSchemas', node.dependentSchemas);
      sub('unevaluatedItems', node.unevaluatedItems);
      sub('unevaluatedProperties', node.unevaluatedProperties);
    }
  }

  #hasRules(node: unknown): boolean {
    if (node === false) return true;
    return (
      isPlainObject(node) && Object.keys(node).some((key) => Object.hasOwn(this.#keywords, key))
    );
  }
}

function checkPattern(pattern: string, fail: (message: string) => never): void {
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    fail(`pattern ${preview(pattern, 60)}: ${error instanceof Error ? error.message : 'invalid'}`);
  }
}

function jsonTypes(type: unknown): string[] | undefined {
  const types: unknown[] = Array.isArray(type) ? type : type ? [type] : [];
  return types.every((item) => typeof item === 'string' && typeNames.has(item))
    ? (types as string[])
    : undefined;
}

function hasValueType(value: unknown, type: ValueType): boolean {
  if (type === 'array') return Array.isArray(value);
  if (type === 'object')
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  return typeof value === type;
}

// ---- helpers -----------------------------------------------------------------------------------

function pointer(path: readonly string[]): string {
  if (path.length === 0) return '(root)';
  return preview(
    `/${path.map((token) => token.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`,
    100,
  );
}

function resolveUri(reference: string, base: string): string | undefined {
  try {
    return new URL(reference, base).href;
  } catch {
    return undefined;
  }
}

function withoutFragment(uri: string): string {
  const hash = uri.indexOf('#');
  return hash === -1 ? uri : uri.slice(0, hash);
}

function withoutEmptyFragment(uri: string): string {
  return uri.endsWith('#') ? uri.slice(0, -1) : uri;
}

function fragmentOf(uri: string): string {
  const hash = uri.indexOf('#');
  return hash === -1 ? '' : uri.slice(hash + 1);
}
