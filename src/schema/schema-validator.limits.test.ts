import { describe, expect, it } from 'vitest';
import { McpHostError } from '../errors/mcp-host-error.js';
import { SchemaValidator, defaultSchemaValidatorOptions } from './schema-validator.js';
import { type SchemaCheck } from './schema-check.js';
import { compiled, problem, failure } from '../../test/helpers/schema-validator-helpers.js';

describe('SchemaValidator: limits and invalid schemas', () => {
  function nested(levels: number): Record<string, unknown> {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let index = 1; index < levels; index++) schema = { not: schema };
    return schema;
  }

  it('accepts a schema exactly maxDepth deep and refuses one level more', async () => {
    const small = new SchemaValidator({ maxDepth: 5 });
    expect((await small.compile(nested(5))).ok).toBe(true);
    const check = await problem(nested(6), small);
    expect(check.code).toBe('SCHEMA_TOO_DEEP');
    expect(check.problem).toBe(
      'schema is nested more than 5 levels deep (at /not/not/not/not/not)',
    );
    expect((await problem(nested(100_000))).code).toBe('SCHEMA_TOO_DEEP');
  });

  it('accepts a schema of exactly maxBytes of JSON and refuses one byte more', async () => {
    const schema = { description: 'ü€😀"\n'.repeat(50), type: 'string' };
    const bytes = new TextEncoder().encode(JSON.stringify(schema)).length;
    expect((await new SchemaValidator({ maxBytes: bytes }).compile(schema)).ok).toBe(true);
    const check = await problem(schema, new SchemaValidator({ maxBytes: bytes - 1 }));
    expect(check).toEqual({
      ok: false,
      code: 'SCHEMA_TOO_LARGE',
      problem: `schema is larger than ${bytes - 1} bytes as JSON`,
    });
    expect((await problem({ enum: ['x'.repeat(300 * 1024)] })).code).toBe('SCHEMA_TOO_LARGE');
  });

  it.each<[string, unknown, RegExp]>([
    [
      'type: 42',
      { type: 42 },
      /^schema is not valid JSON Schema 2020-12: \/type must be equal to one of the allowed values/,
    ],
    [
      'required: "x"',
      { required: 'x' },
      /^schema is not valid JSON Schema 2020-12: \/required must be array/,
    ],
    [
      'draft-07 required: "x"',
      { $schema: 'http://json-schema.org/draft-07/schema#', required: 'x' },
      /^schema is not valid JSON Schema draft-07: \/required must be array/,
    ],
    ['a number', 42, /^a schema must be a JSON object or a boolean, not a number$/],
    ['null', null, /not null$/],
    ['an array', [{ type: 'string' }], /not an array$/],
    ['a non-string $schema', { $schema: 7 }, /^\$schema must be a string$/],
    [
      'a function inside',
      { properties: { a: () => 1 } },
      /^schema is not JSON: a function at \/properties\/a$/,
    ],
    ['NaN inside', { minimum: Number.NaN }, /^schema is not JSON: the number NaN at \/minimum$/],
    ['a Date inside', { default: new Date(0) }, /^schema is not JSON: a Date object at \/default$/],
  ])('reports %s as SCHEMA_INVALID with the reason', async (_name, schema, reason) => {
    const check = await problem(schema);
    expect(check.code).toBe('SCHEMA_INVALID');
    expect(check.problem).toMatch(reason);
  });

  it('reports a cyclic object as invalid instead of looping', async () => {
    const schema: Record<string, unknown> = { type: 'object', properties: {} };
    (schema.properties as Record<string, unknown>).self = schema;
    const check = await problem(schema);
    expect(check).toMatchObject({
      code: 'SCHEMA_INVALID',
      problem: 'schema is not JSON: a cycle at /properties/self',
    });
  });

  it('handles the boolean schemas true and false', async () => {
    const anything = await compiled(true);
    const nothing = await compiled(false);
    for (const value of [null, 1, 'x', { a: [] }]) {
      expect(anything.validate(value)).toEqual({ valid: true });
      expect(failure(nothing.validate(value)).errors).toEqual(['(root) boolean schema is false']);
    }
  });

  it('compiles `__proto__` members without touching any prototype', async () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"a":{"type":"number"}},"required":["__proto__"]}',
    ) as unknown;
    const check = await compiled(schema);
    expect(check.validate(JSON.parse('{"__proto__":"x","a":1}')).valid).toBe(true);
    expect(failure(check.validate(JSON.parse('{"__proto__":"x","a":"1"}'))).errors).toEqual([
      '/a must be number',
    ]);
    expect(failure(check.validate({ a: 1 })).errors).toEqual([
      "(root) must have required property '__proto__'",
    ]);
    expect(({} as Record<string, unknown>).type).toBeUndefined();
  });

  it('does not let inherited members meet `required`', async () => {
    const check = await compiled({ required: ['constructor', 'toString'] });
    expect(failure(check.validate({})).errors).toEqual([
      "(root) must have required property 'constructor'",
    ]);
    expect(check.validate({ constructor: 1, toString: 2 }).valid).toBe(true);
  });
});

describe('SchemaValidator: readable, bounded errors', () => {
  it('lists at most three reasons and keeps the message short whatever the data', async () => {
    const check = await compiled({
      anyOf: [
        { type: 'string' },
        { type: 'number' },
        { type: 'boolean' },
        { type: 'null' },
        { type: 'array' },
      ],
    });
    const result = failure(check.validate({}));
    expect(result.errors).toEqual([
      '(root) must be string',
      '(root) must be number',
      '(root) must be boolean',
    ]);
    expect(result.message).toBe(
      '(root) must be string; (root) must be number; (root) must be boolean (and 3 more)',
    );

    const closed = await compiled({ type: 'object', additionalProperties: false });
    const huge = failure(closed.validate({ ['k'.repeat(100_000)]: 1 }));
    expect(huge.message.length).toBeLessThan(300);
    expect(huge.message).toMatch(/^\(root\) must NOT have additional properties \('k+…'\)$/);
  });

  it('keeps a path and a message readable for nested data', async () => {
    const check = await compiled({
      type: 'object',
      properties: {
        'a/b': {
          type: 'array',
          items: { type: 'object', properties: { '~x': { type: 'integer' } } },
        },
      },
    });
    expect(failure(check.validate({ 'a/b': [{ '~x': 1 }, { '~x': 1.5 }] })).errors).toEqual([
      '/a~1b/1/~0x must be integer',
    ]);
  });
});

describe('SchemaValidator: cache', () => {
  const schemaNumber = (index: number) => ({
    type: 'object',
    properties: { [`p${index}`]: { type: 'string' } },
  });

  it('returns the same result for the same schema object, and for equal JSON text', async () => {
    const fresh = new SchemaValidator();
    const schema = schemaNumber(1);
    const first = await fresh.compile(schema);
    expect(await fresh.compile(schema)).toBe(first);
    expect(await fresh.compile(structuredClone(schema))).toBe(first);
    expect(fresh.cacheSize).toBe(1);
    const [a, b] = await Promise.all([
      fresh.compile(schemaNumber(2)),
      fresh.compile(schemaNumber(2)),
    ]);
    expect(a).toBe(b);
    expect(fresh.cacheSize).toBe(2);
  });

  it('caches invalid schemas too, but not schemas over the limits', async () => {
    const fresh = new SchemaValidator({ maxDepth: 3 });
    const invalid = { type: 42 };
    expect(await fresh.compile(invalid)).toBe(await fresh.compile(invalid));
    await fresh.compile({ not: { not: { not: {} } } });
    expect(fresh.cacheSize).toBe(1);
  });

  it('keeps at most maxCacheEntries, dropping the least recently used', async () => {
    const fresh = new SchemaValidator({ maxCacheEntries: 2 });
    const schemas = [schemaNumber(1), schemaNumber(2), schemaNumber(3)];
    const first = await fresh.compile(schemas[0]);
    const second = await fresh.compile(schemas[1]);
    expect(await fresh.compile(schemas[0])).toBe(first); // now the most recently used
    const third = await fresh.compile(schemas[2]);
    expect(fresh.cacheSize).toBe(2);
    expect(await fresh.compile(schemas[0])).toBe(first);
    expect(await fresh.compile(schemas[2])).toBe(third);
    const again = await fresh.compile(schemas[1]);
    expect(again).not.toBe(second);
    expect({ ...again, validate: null }).toEqual({ ...second, validate: null });
    expect(fresh.cacheSize).toBe(2);
    for (let index = 10; index < 50; index++) await fresh.compile(schemaNumber(index));
    expect(fresh.cacheSize).toBe(2);
    fresh.clearCache();
    expect(fresh.cacheSize).toBe(0);
  });

  it('caches nothing with maxCacheEntries 0', async () => {
    const fresh = new SchemaValidator({ maxCacheEntries: 0 });
    const schema = schemaNumber(1);
    const first: SchemaCheck = await fresh.compile(schema);
    expect(await fresh.compile(schema)).not.toBe(first);
    expect(fresh.cacheSize).toBe(0);
  });

  it('refuses unusable options', () => {
    expect(fresh()).toEqual(defaultSchemaValidatorOptions);
    for (const options of [
      { maxDepth: 0 },
      { maxBytes: -1 },
      { maxCacheEntries: 1.5 },
      { maxDepth: Number.NaN },
    ])
      expect(() => new SchemaValidator(options)).toThrow(McpHostError);
    function fresh() {
      return new SchemaValidator({ maxDepth: undefined }).options;
    }
  });
});
