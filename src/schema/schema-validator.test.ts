import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { McpHostError } from '../errors/index.js';
import {
  SchemaValidator,
  createSchemaValidator,
  defaultSchemaValidatorOptions,
  type CompiledSchema,
  type SchemaCheck,
  type ValidationResult,
} from './index.js';

const validator = createSchemaValidator();

async function compiled(schema: unknown, on = validator): Promise<CompiledSchema> {
  const check = await on.compile(schema);
  if (!check.ok) throw new Error(`expected a usable schema, got ${check.code}: ${check.problem}`);
  return check;
}

async function problem(schema: unknown, on = validator) {
  const check = await on.compile(schema);
  if (check.ok) throw new Error('expected a problem, the schema compiled');
  return check;
}

function failure(result: ValidationResult): { errors: readonly string[]; message: string } {
  if (result.valid) throw new Error('expected the value to be invalid');
  return result;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** A loopback HTTP server that counts the requests it gets; `await using` closes it. */
async function countingServer() {
  const server = createServer((request, response) => {
    counter.requests++;
    response.setHeader('content-type', 'application/schema+json');
    response.end(JSON.stringify({ type: 'string' }));
  });
  const counter = { requests: 0 };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return counter.requests;
    },
    server,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

/** The listening-socket handles, after letting closed ones finish closing (a few loop turns). */
async function serverHandlesOnceSettled(): Promise<string[]> {
  const handles = () => process.getActiveResourcesInfo().filter((kind) => kind === 'TCPServerWrap');
  for (let turn = 0; turn < 50 && handles().length > 0; turn++)
    await new Promise((resolve) => setImmediate(resolve));
  return handles();
}

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

describe('SchemaValidator: $ref', () => {
  it('never fetches a network $ref: it accepts anything there and is reported', async () => {
    const baseline = await serverHandlesOnceSettled();
    {
      await using server = await countingServer();
      const ref = `${server.url}/s.json`;
      const schema = {
        type: 'object',
        properties: { remote: { $ref: ref }, local: { $ref: '#/$defs/local' } },
        $defs: { local: { type: 'integer' } },
      };
      const fresh = new SchemaValidator();
      const check = await compiled(schema, fresh);
      expect(check.externalRefs).toEqual([ref]);
      expect(check.warnings.join(' ')).toContain('never fetched');
      expect(check.validate({ remote: 42, local: 1 }).valid).toBe(true);
      expect(check.validate({ remote: { any: ['thing'] } }).valid).toBe(true);
      expect(failure(check.validate({ remote: 'x', local: 'y' })).errors).toEqual([
        '/local must be integer',
      ]);

      // A relative ref against a network $id, a network $schema and $dynamicRef: none fetched.
      const relative = await compiled(
        {
          $id: `${server.url}/root.json`,
          $schema: `${server.url}/meta.json`,
          properties: { a: { $ref: 'other.json#/x' }, b: { $dynamicRef: `${server.url}/d.json` } },
        },
        fresh,
      );
      expect(relative.externalRefs).toEqual(['other.json#/x', `${server.url}/d.json`]);
      expect(relative.validate({ a: 1, b: 2 }).valid).toBe(true);
      expect(server.requests).toBe(0);
      expect(server.server.listening).toBe(true);
    }
    expect(await serverHandlesOnceSettled()).toEqual(baseline);
  });

  it('resolves refs to $ids declared inside the schema, and keeps the refs inside data', async () => {
    const check = await compiled({
      $id: 'https://example.com/schemas/order.json',
      type: 'object',
      properties: {
        line: { $ref: 'line.json' },
        total: { $ref: 'https://example.com/schemas/order.json#/$defs/money' },
        marker: { const: { $ref: 'https://example.com/not-a-ref.json' } },
      },
      $defs: {
        money: { type: 'number' },
        line: { $id: 'line.json', type: 'object', required: ['sku'] },
      },
    });
    expect(check.externalRefs).toEqual([]);
    expect(failure(check.validate({ line: {} })).errors).toEqual([
      "/line must have required property 'sku'",
    ]);
    expect(failure(check.validate({ total: '1' })).errors).toEqual(['/total must be number']);
    expect(check.validate({ marker: { $ref: 'https://example.com/not-a-ref.json' } }).valid).toBe(
      true,
    );
    expect(failure(check.validate({ marker: {} })).errors[0]).toMatch(
      /^\/marker must be equal to constant/,
    );
  });

  it('reports a local $ref that resolves nowhere as invalid', async () => {
    const check = await problem({ properties: { a: { $ref: '#/$defs/missing' } } });
    expect(check.code).toBe('SCHEMA_INVALID');
    expect(check.problem).toContain('#/$defs/missing');
  });

  it('validates recursive schemas, and a stack overflow on absurd data is a result, not a throw', async () => {
    const check = await compiled({
      $ref: '#/$defs/node',
      $defs: {
        node: {
          type: 'object',
          properties: { value: { type: 'number' }, next: { $ref: '#/$defs/node' } },
        },
      },
    });
    expect(failure(check.validate({ next: { next: { value: 'x' } } })).errors).toEqual([
      '/next/next/value must be number',
    ]);
    let deep: Record<string, unknown> = {};
    for (let index = 0; index < 200_000; index++) deep = { next: deep };
    const result = failure(check.validate(deep));
    expect(result.message).toMatch(/could not be validated/);
  });
});

describe('SchemaValidator: untrusted patterns', () => {
  const evil = 'a'.repeat(40) + '!';
  const long = 'a'.repeat(200_000) + '!';

  it('runs a catastrophic `pattern` in linear time', async () => {
    const started = performance.now();
    const check = await compiled({ type: 'string', pattern: '^(a+)+$' }, new SchemaValidator());
    expect(failure(check.validate(evil)).errors).toEqual(['(root) must match pattern "^(a+)+$"']);
    expect(check.validate(long).valid).toBe(false);
    expect(check.validate('aaaa').valid).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('runs catastrophic `patternProperties` keys in linear time, also while compiling', async () => {
    const started = performance.now();
    const check = await compiled(
      {
        type: 'object',
        // A property name matching the pattern: ajv's strict mode would test it with RegExp.
        properties: { [evil]: {} },
        patternProperties: { '^(a+)+$': { type: 'number' }, '^(x+x+)+y$': { type: 'string' } },
      },
      new SchemaValidator(),
    );
    expect(check.validate({ [evil]: 'not checked', [long]: 'not checked', aaa: 1 }).valid).toBe(
      true,
    );
    expect(failure(check.validate({ aaa: 'x' })).errors).toEqual(['/aaa must be number']);
    expect(check.validate({ ['x'.repeat(50_000)]: 1 }).valid).toBe(true);
    expect(failure(check.validate({ xxy: 1 })).errors).toEqual(['/xxy must be string']);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('accepts anything for a pattern RE2 cannot run, and reports it', async () => {
    const check = await compiled({
      type: 'object',
      properties: { password: { type: 'string', pattern: '^(?=.*[A-Z]).{8,}$' } },
      patternProperties: { '^(a)\\1$': { type: 'number' } },
    });
    expect(check.unsupportedPatterns).toEqual(['^(?=.*[A-Z]).{8,}$', '^(a)\\1$']);
    expect(check.warnings.join(' ')).toContain('any string is accepted there');
    expect(check.validate({ password: 'short', aa: 'x' }).valid).toBe(true);
    expect(failure(check.validate({ password: 1 })).errors).toEqual(['/password must be string']);
  });

  it('reports a pattern that is not a valid ECMAScript regex as invalid', async () => {
    const check = await problem({ type: 'string', pattern: '([a-z' });
    expect(check.code).toBe('SCHEMA_INVALID');
    expect(check.problem).toContain('"([a-z" is not a valid ECMAScript regular expression');
  });
});

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
