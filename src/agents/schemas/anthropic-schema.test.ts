import { describe, expect, it } from 'vitest';
import { toAnthropicSchema } from './anthropic-schema.js';
import { SchemaDiagnostics } from './schema-diagnostics.js';
import type { JsonSchemaNode } from './json-schema-node.js';

function anthropic(schema: JsonSchemaNode): {
  schema: JsonSchemaNode;
  changes: string[];
  messages: string[];
} {
  const diagnostics = new SchemaDiagnostics('t', 'anthropic');
  const out = toAnthropicSchema(structuredClone(schema), diagnostics);
  const list = diagnostics.finish();
  return { schema: out, changes: list.map((d) => d.change), messages: list.map((d) => d.message) };
}

describe('toAnthropicSchema', () => {
  it('keeps a plain object schema as written', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'string', format: 'uri', default: 'x' },
        b: { oneOf: [{ type: 'string' }, { type: 'number' }] },
      },
      required: ['a'],
      additionalProperties: false,
    };
    expect(anthropic(schema)).toEqual({ schema, changes: [], messages: [] });
  });

  it('inlines local references and refuses a cycle, cutting it with a description', () => {
    const { schema, changes, messages } = anthropic({
      type: 'object',
      properties: { tree: { $ref: '#/definitions/Node' } },
      definitions: {
        Node: {
          type: 'object',
          properties: { kids: { type: 'array', items: { $ref: '#/definitions/Node' } } },
        },
      },
    });
    expect(schema).toEqual({
      type: 'object',
      properties: {
        tree: {
          type: 'object',
          properties: {
            kids: {
              type: 'array',
              items: {
                type: 'object',
                description: expect.stringContaining('(recursive)') as unknown,
              },
            },
          },
        },
      },
    });
    expect(changes).toContain('cut-ref');
    expect(messages.find((m) => m.includes('cycle'))).toMatch(
      /^tool 't' \(anthropic\), at \/properties\/tree\/properties\/kids\/items: /,
    );
  });

  it('makes the root an object without a top-level union', () => {
    const { schema, changes } = anthropic({
      oneOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { type: 'object', properties: { b: { type: 'string' } }, required: ['b'] },
      ],
    });
    expect(schema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
    });
    expect(schema).not.toHaveProperty('oneOf');
    expect(schema).not.toHaveProperty('required');
    expect(changes).toEqual(expect.arrayContaining(['set-root-type', 'flattened-root-union']));
  });

  it('removes references it cannot resolve and junk types', () => {
    const { schema, changes } = anthropic({
      type: 'object',
      properties: {
        geo: { $ref: 'https://example.com/geo.json', description: 'where' },
        n: { type: 'nmber' },
      },
    });
    expect(schema.properties).toEqual({ geo: { description: 'where' }, n: {} });
    expect(changes).toEqual(expect.arrayContaining(['removed-ref', 'dropped-keyword']));
  });
});
