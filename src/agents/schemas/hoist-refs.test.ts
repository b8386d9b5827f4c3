import { describe, expect, it } from 'vitest';
import { hoistRefs } from './hoist-refs.js';
import { SchemaDiagnostics } from './schema-diagnostics.js';
import type { JsonSchemaNode } from './json-schema-node.js';

function hoist(schema: JsonSchemaNode): {
  schema: JsonSchemaNode;
  unresolved: string[];
  changes: string[];
} {
  const diagnostics = new SchemaDiagnostics('t', 'openai');
  const out = hoistRefs(structuredClone(schema), diagnostics);
  return { ...out, changes: diagnostics.finish().map((d) => d.change) };
}

describe('hoistRefs', () => {
  it('leaves references into the root $defs alone', () => {
    const schema = { properties: { a: { $ref: '#/$defs/A' } }, $defs: { A: { type: 'string' } } };
    expect(hoist(schema)).toEqual({ schema, unresolved: [], changes: [] });
  });

  it('moves used definitions into $defs and drops unused ones', () => {
    const { schema, changes } = hoist({
      properties: { a: { $ref: '#/definitions/A' } },
      definitions: { A: { type: 'string' }, B: { type: 'number' } },
    });
    expect(schema).toEqual({
      properties: { a: { $ref: '#/$defs/A' } },
      $defs: { A: { type: 'string' } },
    });
    expect(changes).toEqual(['rewrote-ref', 'moved-definitions']);
  });

  it('copies the targets of other pointers and anchors into $defs, without clashing', () => {
    const { schema } = hoist({
      properties: {
        a: { type: 'object', properties: { x: { type: 'integer' } }, $defs: { A: { const: 1 } } },
        b: { $ref: '#/properties/a/properties/x' },
        c: { $ref: '#/properties/a/$defs/A' },
        d: { $ref: '#here' },
        e: { $ref: '#/properties/a/properties/x' },
      },
      $defs: { A: { type: 'null' }, H: { $anchor: 'here', type: 'boolean' } },
    });
    expect(schema.properties).toMatchObject({
      a: { type: 'object', properties: { x: { type: 'integer' } } },
      b: { $ref: '#/$defs/x' },
      c: { $ref: '#/$defs/A_2' },
      d: { $ref: '#/$defs/H' },
      e: { $ref: '#/$defs/x' },
    });
    expect((schema.properties as JsonSchemaNode).a).not.toHaveProperty('$defs');
    expect(schema.$defs).toEqual({
      A: { type: 'null' },
      H: { $anchor: 'here', type: 'boolean' },
      x: { type: 'integer' },
      A_2: { const: 1 },
    });
  });

  it('replaces a root $ref by its target, keeping the root annotations', () => {
    const { schema } = hoist({
      $ref: '#/definitions/Args',
      description: 'args',
      definitions: { Args: { type: 'object', properties: { q: { type: 'string' } } } },
    });
    expect(schema).toMatchObject({
      type: 'object',
      properties: { q: { type: 'string' } },
      description: 'args',
    });
    expect(schema).not.toHaveProperty('$ref');
  });

  it('removes references it cannot resolve, never fetching them', () => {
    const { schema, unresolved, changes } = hoist({
      properties: {
        a: { $ref: 'https://example.com/x.json' },
        b: { $ref: '#/nowhere' },
        c: { $ref: '#/properties/%zz' },
        d: { $ref: '#/properties/e' },
        e: { $ref: '#/properties/d' },
      },
    });
    expect(schema.properties).toEqual({ a: {}, b: {}, c: {}, d: {}, e: {} });
    expect(unresolved).toHaveLength(5);
    expect(changes.every((c) => c === 'removed-ref')).toBe(true);
  });

  it('resolves the root, dynamic references and escaped pointer tokens', () => {
    const { schema } = hoist({
      properties: { self: { $dynamicRef: '#' }, odd: { $ref: '#/$defs/a~1b' } },
      $defs: { 'a/b': { type: 'string' } },
    });
    expect(schema.properties).toEqual({ self: { $ref: '#' }, odd: { $ref: '#/$defs/a~1b' } });
  });
});
