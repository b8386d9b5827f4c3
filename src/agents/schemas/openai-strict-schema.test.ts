import { describe, expect, it } from 'vitest';
import { toOpenAiStrictSchema, type StrictResult } from './openai-strict-schema.js';
import { SchemaDiagnostics } from './schema-diagnostics.js';
import type { JsonSchemaNode } from './json-schema-node.js';

function strict(schema: JsonSchemaNode): { result: StrictResult; changes: string[] } {
  const diagnostics = new SchemaDiagnostics('t', 'openai-strict');
  const result = toOpenAiStrictSchema(structuredClone(schema), diagnostics);
  return { result, changes: diagnostics.finish().map((d) => d.change) };
}

function schemaOf(schema: JsonSchemaNode): JsonSchemaNode {
  const { result } = strict(schema);
  if (!result.ok) throw new Error(result.blockers.map((b) => b.reason).join('; '));
  return result.schema;
}

function blockers(schema: JsonSchemaNode): string {
  const { result } = strict(schema);
  if (result.ok) throw new Error('expected no strict form');
  return result.blockers.map((b) => b.reason).join('; ');
}

describe('toOpenAiStrictSchema', () => {
  it('closes objects, requires every property and makes optional ones nullable', () => {
    const { result, changes } = strict({
      type: 'object',
      properties: {
        a: { type: 'string' },
        b: { type: 'integer', enum: [1, 2] },
        c: { $ref: '#/$defs/C' },
        d: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        e: { const: 'x' },
      },
      required: ['a'],
      $defs: { C: { type: 'boolean' } },
    });
    expect(result).toEqual({
      ok: true,
      schema: {
        type: 'object',
        properties: {
          a: { type: 'string' },
          b: { type: ['integer', 'null'], enum: [1, 2, null] },
          c: { anyOf: [{ $ref: '#/$defs/C' }, { type: 'null' }] },
          d: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] },
          e: { type: ['string', 'null'], enum: ['x', null] },
        },
        required: ['a', 'b', 'c', 'd', 'e'],
        additionalProperties: false,
        $defs: { C: { type: 'boolean' } },
      },
    });
    expect(changes.filter((c) => c === 'made-required-nullable')).toHaveLength(4);
    expect(changes).toContain('closed-object');
  });

  it('keeps supported constraints and drops the others, noting them in the description', () => {
    const out = schemaOf({
      type: 'object',
      properties: {
        s: { type: 'string', pattern: '^a', format: 'email', minLength: 2, default: 'ab' },
        u: { type: 'string', format: 'uri' },
        n: { type: 'number', minimum: 0, exclusiveMaximum: 9, multipleOf: 3 },
        l: { type: 'array', items: { type: 'string' }, minItems: 1, uniqueItems: true },
      },
      required: ['s', 'u', 'n', 'l'],
    });
    const properties = out.properties as Record<string, JsonSchemaNode>;
    expect(properties.s).toEqual({
      type: 'string',
      pattern: '^a',
      format: 'email',
      description: 'minLength: 2 (default: "ab")',
    });
    expect(properties.u).toEqual({ type: 'string', description: 'format: "uri"' });
    expect(properties.n).toEqual({
      type: 'number',
      minimum: 0,
      exclusiveMaximum: 9,
      multipleOf: 3,
    });
    expect(properties.l).toEqual({
      type: 'array',
      items: { type: 'string' },
      minItems: 1,
      description: 'uniqueItems: true',
    });
  });

  it('moves definitions into $defs, hoists other local refs and keeps only used ones', () => {
    const out = schemaOf({
      type: 'object',
      properties: { a: { $ref: '#/definitions/A' }, b: { $ref: '#/properties/a' } },
      required: ['a', 'b'],
      definitions: { A: { type: 'string' }, Unused: { type: 'number' } },
    });
    expect(out.properties).toEqual({ a: { $ref: '#/$defs/A' }, b: { $ref: '#/$defs/A' } });
    expect(out.$defs).toEqual({ A: { type: 'string' } });
  });

  it('expands a reference that has keywords beside it', () => {
    const out = schemaOf({
      type: 'object',
      properties: { a: { $ref: '#/$defs/A', description: 'the a' } },
      required: ['a'],
      $defs: { A: { type: 'string' } },
    });
    expect(out.properties).toEqual({ a: { type: 'string', description: 'the a' } });
  });

  it('merges allOf and drops not, if/then/else', () => {
    const { result, changes } = strict({
      type: 'object',
      allOf: [
        { properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { b: { type: 'number', not: { const: 3 } } }, required: ['b'] },
      ],
      if: { properties: { a: { const: 'x' } } },
      then: { required: ['b'] },
    });
    expect(result.ok && result.schema).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    });
    expect(changes).toEqual(expect.arrayContaining(['merged-all-of', 'dropped-keyword']));
  });

  it('rewrites a oneOf of disjoint variants as anyOf, and refuses one that may overlap', () => {
    const out = schemaOf({
      type: 'object',
      properties: {
        v: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
      },
      required: ['v'],
    });
    expect((out.properties as JsonSchemaNode).v).toEqual({
      anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    });
    expect(
      blockers({
        type: 'object',
        properties: { v: { oneOf: [{ type: 'integer' }, { type: 'number' }] } },
      }),
    ).toContain('oneOf');
  });

  it('splits several types into anyOf branches with their own keywords', () => {
    const out = schemaOf({
      type: 'object',
      properties: { v: { type: ['string', 'integer'], pattern: '^x', minimum: 1 } },
      required: ['v'],
    });
    expect((out.properties as JsonSchemaNode).v).toEqual({
      anyOf: [
        { type: 'string', pattern: '^x' },
        { type: 'integer', minimum: 1 },
      ],
    });
  });

  it('refuses what it cannot express without changing what may be sent', () => {
    expect(blockers({ type: 'object', properties: { a: {} } })).toContain('any type');
    expect(blockers({ type: 'object', properties: { a: { type: 'array' } } })).toContain('items');
    expect(
      blockers({
        type: 'object',
        properties: { a: { type: 'object', additionalProperties: { type: 'string' } } },
      }),
    ).toContain('map');
    expect(
      blockers({
        type: 'object',
        properties: { a: { allOf: [{ type: 'string' }, { type: 'number' }] } },
      }),
    ).toContain('allOf');
    expect(blockers({ type: 'object', properties: { a: { $ref: 'other.json' } } })).toContain(
      'does not resolve',
    );
    expect(blockers({ anyOf: [{ type: 'object' }, { type: 'object' }] })).toContain('union');
  });

  it('enforces the documented limits', () => {
    const properties: JsonSchemaNode = {};
    for (let i = 0; i < 5001; i++) properties[`p${i}`] = { type: 'string' };
    expect(blockers({ type: 'object', properties })).toContain('more than 5000 properties');
    const values = Array.from({ length: 1001 }, (_, i) => `v${i}`);
    expect(
      blockers({ type: 'object', properties: { e: { type: 'string', enum: values } } }),
    ).toContain('more than 1000 enum values');
    let deep: JsonSchemaNode = { type: 'string' };
    for (let i = 0; i < 10; i++)
      deep = { type: 'object', properties: { d: deep }, required: ['d'] };
    expect(blockers(deep)).toContain('more than 10 levels');
    let nine: JsonSchemaNode = { type: 'string' };
    for (let i = 0; i < 9; i++) nine = { type: 'object', properties: { d: nine }, required: ['d'] };
    expect(strict(nine).result.ok).toBe(true);
  });

  it('keeps recursion through $defs and the root', () => {
    const out = schemaOf({
      type: 'object',
      properties: { next: { $ref: '#' }, node: { $ref: '#/$defs/N' } },
      required: ['next', 'node'],
      $defs: {
        N: {
          type: 'object',
          properties: { kids: { type: 'array', items: { $ref: '#/$defs/N' } } },
          required: ['kids'],
        },
      },
    });
    expect(out.properties).toEqual({ next: { $ref: '#' }, node: { $ref: '#/$defs/N' } });
    expect((out.$defs as JsonSchemaNode).N).toMatchObject({ additionalProperties: false });
  });
});
