import { describe, expect, it } from 'vitest';
import { MAX_LISTED_REFS, jsonStringBytes } from './schema-walk.js';
import { prepareSchema, type PreparedSchema } from './prepare-schema.js';
import { toSchemaDialect } from './schema-dialect.js';

const limits = { maxDepth: 64, maxBytes: 256 * 1024 };

function prepare(schema: unknown, within = limits): PreparedSchema {
  const result = prepareSchema(schema, within);
  if (!result.ok) throw new Error(`${result.code}: ${result.problem}`);
  return result;
}

function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

describe('jsonStringBytes', () => {
  it.each([
    '',
    'plain',
    'quote " and backslash \\',
    'controls \n\t\r\b\f \u0000 \u001f',
    'two-byte é ß, three-byte € 中, four-byte 😀',
    'lone high \ud800 and lone low \udc00 surrogates',
    '\u2028\u2029\u007f',
  ])('is the UTF-8 length of JSON.stringify(%j)', (text) => {
    expect(jsonStringBytes(text)).toBe(utf8Bytes(JSON.stringify(text)));
  });
});

describe('prepareSchema: size', () => {
  it.each<[string, unknown]>([
    ['an object', { type: 'object', properties: { a: { type: 'string', maxLength: 10 } } }],
    ['nested arrays and data', { enum: [[], [1, -2.5, 1e21, null, true, false], { x: {} }, ''] }],
    ['empty containers', { properties: {}, required: [], allOf: [{}, {}] }],
    ['unicode', { description: '€😀\n"\\', title: 'ü' }],
    ['undefined members, left out as JSON.stringify does', { a: undefined, b: [undefined], c: 1 }],
  ])('counts %s exactly as its JSON text', (_name, schema) => {
    const bytes = utf8Bytes(JSON.stringify(schema));
    expect(prepare(schema, { maxDepth: 64, maxBytes: bytes }).text).toBe(JSON.stringify(schema));
    expect(prepareSchema(schema, { maxDepth: 64, maxBytes: bytes - 1 })).toMatchObject({
      ok: false,
      code: 'SCHEMA_TOO_LARGE',
    });
  });

  it('stops early on a huge string or key without reading it all', () => {
    const huge = 'x'.repeat(10_000_000);
    expect(prepareSchema({ description: huge }, limits)).toMatchObject({
      code: 'SCHEMA_TOO_LARGE',
    });
    expect(prepareSchema({ properties: { [huge]: {} } }, limits)).toMatchObject({
      code: 'SCHEMA_TOO_LARGE',
    });
  });

  it('stops early on a shared subtree that would serialise exponentially', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let index = 0; index < 30; index++) schema = { anyOf: [schema, schema] };
    const started = performance.now();
    expect(prepareSchema(schema, limits)).toMatchObject({ code: 'SCHEMA_TOO_LARGE' });
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('prepareSchema: depth', () => {
  it('counts objects and arrays, data included', () => {
    expect(prepareSchema({ properties: { a: {} } }, { maxDepth: 3, maxBytes: 1000 }).ok).toBe(true);
    expect(prepareSchema({ properties: { a: {} } }, { maxDepth: 2, maxBytes: 1000 })).toMatchObject(
      {
        code: 'SCHEMA_TOO_DEEP',
        problem: 'schema is nested more than 2 levels deep (at /properties/a)',
      },
    );
    expect(prepareSchema({ const: [[[1]]] }, { maxDepth: 3, maxBytes: 1000 })).toMatchObject({
      code: 'SCHEMA_TOO_DEEP',
      problem: 'schema is nested more than 3 levels deep (at /const/0/0)',
    });
  });
});

describe('prepareSchema: the copy', () => {
  it('is a deep copy: changing it leaves the schema alone', () => {
    const schema = { type: 'object', properties: { a: { enum: [{ x: 1 }] } } };
    const { copy } = prepare(schema) as unknown as { copy: typeof schema };
    expect(copy).toEqual(schema);
    expect(copy.properties).not.toBe(schema.properties);
    expect(copy.properties.a.enum[0]).not.toBe(schema.properties.a.enum[0]);
  });

  it('drops the root $schema only, and chooses the dialect from it', () => {
    const prepared = prepare({
      $schema: 'http://json-schema.org/draft-07/schema',
      properties: { a: { $schema: 'x' } },
    });
    expect(prepared.dialect).toBe('draft-07');
    expect(prepared.dialectAssumed).toBe(false);
    expect(prepared.copy).toEqual({ properties: { a: { $schema: 'x' } } });
    expect(prepare({}).dialectAssumed).toBe(true);
  });

  it('keeps `__proto__` members as own members', () => {
    const schema = JSON.parse('{"properties":{"__proto__":{"type":"string"}}}') as unknown;
    const { copy } = prepare(schema) as unknown as { copy: { properties: object } };
    expect(Object.keys(copy.properties)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(copy.properties)).toBe(Object.prototype);
  });

  it('converts draft-04 `id` and boolean exclusive bounds', () => {
    const { copy } = prepare({
      $schema: 'http://json-schema.org/draft-04/schema#',
      id: 'https://example.com/a.json',
      properties: {
        low: { minimum: 1, exclusiveMinimum: true },
        high: { maximum: 9, exclusiveMaximum: false },
        id: { type: 'string' },
      },
    });
    expect(copy).toEqual({
      $id: 'https://example.com/a.json',
      properties: {
        low: { exclusiveMinimum: 1 },
        high: { maximum: 9 },
        id: { type: 'string' },
      },
    });
  });

  it('refuses what is not JSON', () => {
    expect(prepareSchema({ a: 1n }, limits)).toMatchObject({
      code: 'SCHEMA_INVALID',
      problem: 'schema is not JSON: a bigint at /a',
    });
    expect(prepareSchema({ a: new Map() }, limits)).toMatchObject({
      problem: 'schema is not JSON: a Map object at /a',
    });
    expect(prepareSchema({ a: Infinity }, limits)).toMatchObject({
      problem: 'schema is not JSON: the number Infinity at /a',
    });
  });
});

describe('prepareSchema: $ref', () => {
  function refsOf(schema: Record<string, unknown>) {
    const prepared = prepare(schema);
    return { external: prepared.externalRefs, copy: prepared.copy as Record<string, unknown> };
  }

  it.each<[string, Record<string, unknown>, string[]]>([
    ['a JSON pointer', { $ref: '#/$defs/a', $defs: { a: {} } }, []],
    ['an anchor', { $ref: '#a', $defs: { a: { $anchor: 'a' } } }, []],
    ['the empty ref', { $ref: '' }, []],
    ['an http URI', { $ref: 'http://example.com/s.json' }, ['http://example.com/s.json']],
    ['a file URI', { $ref: 'file:///etc/passwd' }, ['file:///etc/passwd']],
    ['a relative file without $id', { $ref: 'other.json#/a' }, ['other.json#/a']],
    ['the root $id', { $id: 'https://e.com/r', $ref: 'https://e.com/r#/$defs/a' }, []],
    ['a relative ref to a nested $id', { $ref: 'b.json', $defs: { b: { $id: 'b.json' } } }, []],
    [
      'a relative ref against the root $id',
      { $id: 'https://e.com/dir/r.json', $ref: 'sibling.json' },
      ['sibling.json'],
    ],
    [
      'a nested $id resolved against its parent',
      {
        $id: 'https://e.com/dir/r.json',
        $ref: 'https://e.com/dir/b.json',
        $defs: { b: { $id: 'b.json' } },
      },
      [],
    ],
    ['a urn $id', { $id: 'urn:example:root', $ref: 'urn:example:root#/$defs/a' }, []],
    ['an unparsable URI', { $ref: 'http://[bad' }, ['http://[bad']],
    ['a $dynamicRef elsewhere', { $dynamicRef: 'https://e.com/d#meta' }, ['https://e.com/d#meta']],
  ])('%s', (_name, schema, external) => {
    const { external: found, copy } = refsOf(schema);
    expect(found).toEqual(external);
    for (const keyword of ['$ref', '$dynamicRef'])
      expect(keyword in copy).toBe(keyword in schema && external.length === 0);
  });

  it('keeps the other keywords beside a removed ref', () => {
    const { copy } = refsOf({ $ref: 'http://e.com/a', type: 'string', minLength: 2 });
    expect(copy).toEqual({ type: 'string', minLength: 2 });
  });

  it('leaves refs inside data and members named $ref alone', () => {
    const data = { $ref: 'http://e.com/data' };
    const schema = {
      const: data,
      enum: [data],
      default: data,
      examples: [data],
      properties: { $ref: { type: 'string' } },
    };
    const { external, copy } = refsOf(schema);
    expect(external).toEqual([]);
    expect(copy).toEqual(schema);
  });

  it(`removes every external ref but lists at most ${MAX_LISTED_REFS}`, () => {
    const properties = Object.fromEntries(
      Array.from({ length: 30 }, (_, index) => [`p${index}`, { $ref: `http://e.com/${index}` }]),
    );
    const { external, copy } = refsOf({ properties });
    expect(external).toHaveLength(MAX_LISTED_REFS);
    expect(JSON.stringify(copy)).not.toContain('$ref');
  });

  it('finds refs in every kind of subschema place', () => {
    const ref = { $ref: 'http://e.com/x' };
    const { copy, external } = refsOf({
      items: [ref],
      prefixItems: [ref],
      additionalProperties: ref,
      dependentSchemas: { a: ref },
      dependencies: { b: ref, c: ['d'] },
      if: ref,
      then: ref,
      else: ref,
      not: ref,
      'x-vendor': { nested: ref },
    });
    expect(external).toEqual(['http://e.com/x']);
    expect(JSON.stringify(copy)).not.toContain('$ref');
  });
});

describe('toSchemaDialect', () => {
  it.each([
    ['https://json-schema.org/draft/2020-12/schema', '2020-12'],
    ['http://json-schema.org/draft/2020-12/schema#', '2020-12'],
    ['https://json-schema.org/draft/2019-09/schema', '2019-09'],
    ['http://json-schema.org/draft-07/schema#', 'draft-07'],
    ['https://json-schema.org/draft-07/schema', 'draft-07'],
    ['http://json-schema.org/draft-06/schema#', 'draft-06'],
    ['http://json-schema.org/draft-04/schema#', 'draft-04'],
    ['http://json-schema.org/schema#', '2020-12'],
    ['https://example.com/schema', undefined],
  ])('%s is %s', (uri, dialect) => {
    expect(toSchemaDialect(uri)).toBe(dialect);
  });
});
