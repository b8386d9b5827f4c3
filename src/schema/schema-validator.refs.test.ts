import { describe, expect, it } from 'vitest';
import { SchemaValidator } from './schema-validator.js';
import {
  compiled,
  problem,
  failure,
  countingServer,
  serverHandlesOnceSettled,
} from '../../test/helpers/schema-validator-helpers.js';

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

  it('resolves "#" to the root: a tree schema is usable to check() and compile() alike', async () => {
    const tree = {
      type: 'object',
      properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
      required: ['name'],
    };
    expect(new SchemaValidator().check(tree)).toMatchObject({ ok: true });
    const check = await compiled(tree);
    expect(check.validate({ name: 'a', children: [{ name: 'b', children: [] }] })).toEqual({
      valid: true,
    });
    expect(failure(check.validate({ name: 'a', children: [{ children: [] }] })).errors).toEqual([
      "/children/0 must have required property 'name'",
    ]);
    // A schema that names its own URI keeps it, and "#" still finds it.
    const named = await compiled({ $id: 'https://example.test/tree', ...tree });
    expect(failure(named.validate({ name: 'a', children: [{}] })).errors).toHaveLength(1);
  });

  it('agrees with compile() on a ref through an object whose $id is not a string', async () => {
    // ajv takes each object's $id on a pointer's way as a base URI, and fails on a number.
    const schema = { $ref: '#/$defs/a', $defs: { a: { type: 'string' }, $id: 42 } };
    expect(new SchemaValidator().check(schema)).toMatchObject({ ok: false });
    expect((await new SchemaValidator().compile(schema)).ok).toBe(false);
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
