import { describe, expect, it } from 'vitest';
import { toOpenAiSchema } from './openai-schema.js';
import { SchemaDiagnostics } from './schema-diagnostics.js';
import type { JsonSchemaNode } from './json-schema-node.js';

function openai(schema: JsonSchemaNode): { schema: JsonSchemaNode; changes: string[] } {
  const diagnostics = new SchemaDiagnostics('t', 'openai');
  const out = toOpenAiSchema(structuredClone(schema), diagnostics);
  return { schema: out, changes: diagnostics.finish().map((d) => d.change) };
}

describe('toOpenAiSchema', () => {
  it('drops $schema, adds root properties and keeps the rest as written', () => {
    expect(
      openai({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        additionalProperties: { type: 'string' },
      }),
    ).toEqual({
      schema: { type: 'object', additionalProperties: { type: 'string' }, properties: {} },
      changes: ['added-properties', 'dropped-keyword'],
    });
  });

  it('keeps recursion as references into the root $defs', () => {
    const { schema } = openai({
      type: 'object',
      properties: { n: { $ref: '#/definitions/N' } },
      definitions: { N: { type: 'object', properties: { next: { $ref: '#/definitions/N' } } } },
    });
    expect(schema).toEqual({
      type: 'object',
      properties: { n: { $ref: '#/$defs/N' } },
      $defs: { N: { type: 'object', properties: { next: { $ref: '#/$defs/N' } } } },
    });
  });

  it('drops what OpenAI refuses at the root', () => {
    const { schema, changes } = openai({
      type: 'object',
      properties: {},
      not: { required: ['x'] },
      enum: [{}],
    });
    expect(schema).toEqual({ type: 'object', properties: {} });
    expect(changes).toEqual(['dropped-keyword', 'dropped-keyword']);
  });

  it('replaces a root that is not an object schema', () => {
    const { schema, changes } = openai({
      type: 'array',
      items: { type: 'string' },
      description: 'd',
    });
    expect(schema).toEqual({ type: 'object', properties: {}, description: 'd' });
    expect(changes).toEqual(['replaced-root']);
  });
});
