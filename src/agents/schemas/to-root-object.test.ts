import { describe, expect, it } from 'vitest';
import { SchemaDiagnostics } from './schema-diagnostics.js';
import type { JsonSchemaNode } from './json-schema-node.js';
import { toRootObject } from './to-root-object.js';

function root(
  schema: JsonSchemaNode,
  flattenUnions = true,
): { schema: JsonSchemaNode; blocker?: string; changes: string[] } {
  const diagnostics = new SchemaDiagnostics('t', 'openai');
  const out = toRootObject(structuredClone(schema), diagnostics, { flattenUnions });
  return { ...out, changes: diagnostics.finish().map((d) => d.change) };
}

describe('toRootObject', () => {
  it('adds a missing type and properties', () => {
    expect(root({})).toEqual({
      schema: { type: 'object', properties: {} },
      changes: ['set-root-type', 'added-properties'],
    });
    expect(root({ type: ['object', 'null'], properties: {} }).schema.type).toBe('object');
    expect(root({ type: 42, properties: {} }).changes).toEqual(['set-root-type']);
  });

  it('replaces a root of another type, as a blocker', () => {
    const out = root({ type: 'string', description: 'd' });
    expect(out.schema).toEqual({ type: 'object', properties: {}, description: 'd' });
    expect(out.blocker).toContain('not an object schema');
  });

  it('merges a root allOf', () => {
    expect(
      root({ allOf: [{ type: 'object', properties: { a: {} } }, { required: ['a'] }] }).schema,
    ).toEqual({
      type: 'object',
      properties: { a: {} },
      required: ['a'],
    });
  });

  it('flattens a root union of objects, keeping only the names every variant requires', () => {
    const out = root({
      anyOf: [
        {
          type: 'object',
          properties: { a: { type: 'string' }, k: { const: 1 } },
          required: ['a', 'k'],
        },
        {
          type: 'object',
          properties: { b: { type: 'string' }, k: { const: 2 } },
          required: ['b', 'k'],
        },
      ],
    });
    expect(out.schema).toMatchObject({
      type: 'object',
      properties: {
        a: { type: 'string' },
        b: { type: 'string' },
        k: { anyOf: [{ const: 1 }, { const: 2 }] },
      },
      required: ['k'],
    });
    expect(out.blocker).toBeUndefined();
    expect(root({ anyOf: [{ type: 'object' }] }, false).blocker).toContain('union');
  });
});
