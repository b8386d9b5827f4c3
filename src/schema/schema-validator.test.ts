import { describe, expect, it } from 'vitest';
import { SchemaValidator } from './schema-validator.js';
import { compiled, failure, deepFreeze } from '../../test/helpers/schema-validator-helpers.js';

describe('SchemaValidator: JSON Schema 2020-12 (the default)', () => {
  const schema = {
    type: 'object',
    properties: {
      items: {
        type: 'array',
        items: { $ref: '#/$defs/item' },
      },
      point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false },
      kind: { const: 'order' },
      status: { enum: ['open', 'closed'] },
      id: {
        oneOf: [
          { type: 'string', minLength: 1 },
          { type: 'integer', minimum: 1 },
        ],
      },
    },
    required: ['items'],
    $defs: {
      item: {
        type: 'object',
        properties: { price: { type: 'number' } },
        required: ['price'],
      },
    },
  };

  it('accepts matching values', async () => {
    const check = await compiled(schema);
    expect(check.dialect).toBe('2020-12');
    expect(check.externalRefs).toEqual([]);
    expect(check.warnings).toEqual([]);
    expect(
      check.validate({
        items: [{ price: 1.5 }],
        point: [1, 2],
        kind: 'order',
        status: 'open',
        id: 3,
      }),
    ).toEqual({ valid: true });
  });

  it.each([
    [{ items: [{ price: 'x' }] }, '/items/0/price must be number'],
    [{}, "(root) must have required property 'items'"],
    [{ items: [], point: [1, 'b'] }, '/point/1 must be number'],
    [{ items: [], point: [1, 2, 3] }, '/point must NOT have more than 2 items'],
    [{ items: [], kind: 'invoice' }, '/kind must be equal to constant ("order")'],
    [
      { items: [], status: 'lost' },
      '/status must be equal to one of the allowed values (["open","closed"])',
    ],
    [{ items: [], id: 0 }, '/id must match exactly one schema in oneOf'],
  ])('rejects %j with a readable reason', async (value, reason) => {
    const result = failure((await compiled(schema)).validate(value));
    expect(result.errors).toContain(reason);
    expect(result.message).toContain(reason);
  });

  it('treats a schema with an explicit 2020-12 $schema the same way', async () => {
    const check = await compiled({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'string' }],
    });
    expect(check.dialect).toBe('2020-12');
    expect(check.validate(['a', 1]).valid).toBe(true);
    expect(failure(check.validate([1])).errors).toEqual(['/0 must be string']);
  });
});

describe('SchemaValidator: draft-07 (zod-to-json-schema)', () => {
  const schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      name: { $ref: '#/definitions/name' },
      pair: {
        type: 'array',
        items: [{ type: 'string' }, { type: 'number' }],
        additionalItems: false,
      },
      unit: { type: 'string', enum: ['kg', 'lb'] },
      mode: { const: 'fast' },
      value: { oneOf: [{ type: 'string' }, { type: 'number' }] },
    },
    required: ['name'],
    additionalProperties: false,
    definitions: { name: { type: 'string', minLength: 2 } },
  };

  it('accepts matching values, with tuple `items`', async () => {
    const check = await compiled(schema);
    expect(check.dialect).toBe('draft-07');
    expect(
      check.validate({ name: 'ab', pair: ['x', 1], unit: 'kg', mode: 'fast', value: 2 }),
    ).toEqual({
      valid: true,
    });
  });

  it.each([
    [{ name: 'a' }, '/name must NOT have fewer than 2 characters'],
    [{ name: 'ab', pair: ['x', 'y'] }, '/pair/1 must be number'],
    [{ name: 'ab', pair: ['x', 1, 2] }, '/pair must NOT have more than 2 items'],
    [{ name: 'ab', extra: 1 }, "(root) must NOT have additional properties ('extra')"],
    [{ name: 'ab', unit: 'g' }, '/unit must be equal to one of the allowed values (["kg","lb"])'],
    [{ name: 'ab', mode: 'slow' }, '/mode must be equal to constant ("fast")'],
    [{ name: 'ab', value: true }, '/value must match exactly one schema in oneOf'],
  ])('rejects %j with a readable reason', async (value, reason) => {
    expect(failure((await compiled(schema)).validate(value)).errors).toContain(reason);
  });

  it('reads `$defs`-less draft-07 without $schema as draft-07 when 2020-12 rejects it, with a warning', async () => {
    const check = await compiled({ type: 'array', items: [{ type: 'string' }] });
    expect(check.dialect).toBe('draft-07');
    expect(check.warnings.join(' ')).toMatch(
      /not valid JSON Schema 2020-12 .* validated as draft-07/,
    );
    expect(failure(check.validate([1])).errors).toEqual(['/0 must be string']);
  });

  it('keeps draft-04 exclusive bounds working', async () => {
    const check = await compiled({
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'number',
      maximum: 5,
      exclusiveMaximum: true,
    });
    expect(check.dialect).toBe('draft-04');
    expect(check.validate(4).valid).toBe(true);
    expect(failure(check.validate(5)).errors).toEqual(['(root) must be < 5']);
  });

  it('supports 2019-09', async () => {
    const check = await compiled({
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      type: 'object',
      properties: { a: { type: 'string' } },
      unevaluatedProperties: false,
    });
    expect(check.dialect).toBe('2019-09');
    expect(failure(check.validate({ a: 'x', b: 1 })).errors).toEqual([
      "(root) must NOT have unevaluated properties ('b')",
    ]);
  });

  it('validates an unknown $schema as 2020-12, with a warning', async () => {
    const check = await compiled({ $schema: 'https://example.com/my-dialect', type: 'string' });
    expect(check.dialect).toBe('2020-12');
    expect(check.warnings.join(' ')).toContain('unknown $schema');
  });
});

describe('SchemaValidator: the schema as sent', () => {
  it('never changes the schema, and the caller keeps every object it holds', async () => {
    const item = { $ref: 'https://example.com/item.json', description: 'an item' };
    const limits = { type: 'number', maximum: 5, exclusiveMaximum: true };
    const schema = {
      $schema: 'http://json-schema.org/draft-04/schema#',
      id: 'https://example.com/root.json',
      type: 'object',
      properties: { item, limit: limits, tags: { type: 'array', items: [{ type: 'string' }] } },
      definitions: { self: { $ref: '#' } },
    };
    const before = structuredClone(schema);
    const fresh = new SchemaValidator();
    const check = await compiled(schema, fresh);
    check.validate({ item: 1, limit: 3, tags: ['a'] });
    check.validate({ limit: 'x' });
    expect(schema).toEqual(before);
    expect(schema.properties.item).toBe(item);
    expect(item.$ref).toBe('https://example.com/item.json');
    expect(schema.properties.limit).toBe(limits);
    expect(schema.$schema).toBe('http://json-schema.org/draft-04/schema#');
  });

  it('compiles a deeply frozen schema (so nothing tries to write to it)', async () => {
    const schema = deepFreeze({
      $schema: 'http://json-schema.org/draft-07/schema#',
      properties: { a: { $ref: 'http://example.com/a.json' }, b: { pattern: '^x' } },
    });
    const check = await compiled(schema, new SchemaValidator());
    expect(check.validate({ a: 1, b: 'x' }).valid).toBe(true);
  });

  it('never changes the value it validates', async () => {
    const check = await compiled({
      type: 'object',
      properties: { a: { type: 'string', default: 'x' } },
      additionalProperties: false,
    });
    const value = { b: 1 };
    failure(check.validate(value));
    expect(value).toEqual({ b: 1 });
  });
});

describe('SchemaValidator.compiled', () => {
  it('gives, synchronously, what compile() gave for the same schema object while it is cached', async () => {
    const validator = new SchemaValidator();
    const schema = { type: 'object', properties: { n: { type: 'integer' } } };
    expect(validator.compiled(schema)).toBeUndefined();
    const check = await validator.compile(schema);
    expect(validator.compiled(schema)).toBe(check);
    // Another object with the same text was never compiled by object: compile() finds it by text.
    const twin = structuredClone(schema);
    expect(validator.compiled(twin)).toBeUndefined();
    expect(await validator.compile(twin)).toBe(check);
    expect(validator.compiled(twin)).toBe(check);
    validator.clearCache();
    expect(validator.compiled(schema)).toBeUndefined();
  });

  it('keeps nothing with maxCacheEntries 0', async () => {
    const validator = new SchemaValidator({ maxCacheEntries: 0 });
    const schema = { type: 'string' };
    await validator.compile(schema);
    expect(validator.compiled(schema)).toBeUndefined();
  });
});
