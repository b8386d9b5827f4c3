import { describe, expect, it } from 'vitest';
import { toGeminiSchema } from './gemini-schema.js';
import { SchemaDiagnostics } from './schema-diagnostics.js';
import type { JsonSchemaNode } from './json-schema-node.js';

function gemini(schema: JsonSchemaNode): { schema: JsonSchemaNode; changes: string[] } {
  const diagnostics = new SchemaDiagnostics('t', 'gemini');
  const out = toGeminiSchema(structuredClone(schema), diagnostics);
  return { schema: out, changes: diagnostics.finish().map((d) => d.change) };
}

function property(schema: JsonSchemaNode): unknown {
  return (gemini({ type: 'object', properties: { p: schema } }).schema.properties as JsonSchemaNode)
    .p;
}

describe('toGeminiSchema', () => {
  it('rewrites nullable unions as nullable: true', () => {
    expect(property({ type: ['string', 'null'] })).toEqual({ type: 'string', nullable: true });
    expect(property({ anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] })).toEqual({
      type: 'integer',
      minimum: 1,
      nullable: true,
    });
    expect(property({ type: 'string', enum: ['a', null] })).toEqual({
      type: 'string',
      enum: ['a'],
      nullable: true,
    });
  });

  it('writes const as a one-value enum and drops enums of non-strings into the description', () => {
    expect(property({ const: 'x' })).toEqual({ type: 'string', enum: ['x'] });
    expect(property({ type: 'integer', enum: [1, 2] })).toEqual({
      type: 'integer',
      description: 'one of: 1, 2',
    });
  });

  it('turns exclusive bounds into inclusive ones, noted in the description', () => {
    expect(property({ type: 'number', exclusiveMinimum: 0, maximum: 5 })).toEqual({
      type: 'number',
      minimum: 0,
      maximum: 5,
      description: 'greater than 0',
    });
  });

  it('keeps only Gemini fields and supported formats', () => {
    const { schema, changes } = gemini({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      properties: {
        when: { type: 'string', format: 'date-time' },
        url: { type: 'string', format: 'uri', description: 'where' },
        n: { type: 'integer', format: 'int64', multipleOf: 2 },
        tags: { type: 'array', items: { type: 'string' }, uniqueItems: true, minItems: 1 },
      },
      required: ['when', 'missing', 'when'],
      patternProperties: { '^x': { type: 'string' } },
    });
    expect(schema).toEqual({
      type: 'object',
      properties: {
        when: { type: 'string', format: 'date-time' },
        url: { type: 'string', description: 'where (format: "uri")' },
        n: { type: 'integer', format: 'int64', description: 'multipleOf: 2' },
        tags: {
          type: 'array',
          items: { type: 'string' },
          minItems: 1,
          description: 'uniqueItems: true',
        },
      },
      required: ['when'],
    });
    expect(changes).toEqual(expect.arrayContaining(['dropped-keyword', 'filtered-required']));
  });

  it('inlines references and cuts a cycle after a bounded number of expansions', () => {
    const { schema, changes } = gemini({
      type: 'object',
      properties: { n: { $ref: '#/$defs/N' } },
      $defs: { N: { type: 'object', properties: { next: { $ref: '#/$defs/N' } } } },
    });
    const text = JSON.stringify(schema);
    expect(text).not.toContain('$ref');
    expect(text).not.toContain('$defs');
    expect(changes).toContain('cut-ref');
    expect(text.match(/"next"/g)).toHaveLength(3);
  });

  it('merges allOf, reads oneOf as anyOf and splits type arrays', () => {
    expect(property({ allOf: [{ type: 'string' }, { maxLength: 3 }] })).toEqual({
      type: 'string',
      maxLength: 3,
    });
    expect(property({ oneOf: [{ type: 'string' }, { type: 'boolean' }] })).toEqual({
      anyOf: [{ type: 'string' }, { type: 'boolean' }],
    });
    expect(property({ type: ['string', 'boolean'], minLength: 1 })).toEqual({
      anyOf: [{ type: 'string', minLength: 1 }, { type: 'boolean' }],
    });
  });
});
