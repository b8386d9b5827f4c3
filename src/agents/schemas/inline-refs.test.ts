import { describe, expect, it } from 'vitest';
import { inlineRefs } from './inline-refs.js';
import { SchemaDiagnostics } from './schema-diagnostics.js';
import type { JsonSchemaNode } from './json-schema-node.js';

const limits = { maxRecursion: 0, maxInlinedNodes: 1000, maxRefDepth: 32 };

function inline(
  schema: JsonSchemaNode,
  options = limits,
): { schema: JsonSchemaNode; cuts: number } {
  return inlineRefs(structuredClone(schema), new SchemaDiagnostics('t', 'anthropic'), options);
}

describe('inlineRefs', () => {
  it('replaces references by their targets and drops $defs', () => {
    expect(
      inline({
        properties: { a: { $ref: '#/$defs/A', description: 'a' } },
        $defs: { A: { type: 'string' } },
      }),
    ).toEqual({ schema: { properties: { a: { type: 'string', description: 'a' } } }, cuts: 0 });
  });

  it('keeps constraints beside a reference as an allOf with the target', () => {
    const { schema } = inline({
      properties: { a: { $ref: '#/$defs/A', maxLength: 3 } },
      $defs: { A: { type: 'string' } },
    });
    expect(schema.properties).toEqual({ a: { maxLength: 3, allOf: [{ type: 'string' }] } });
  });

  it('cuts a cycle at its first repetition, or after maxRecursion expansions', () => {
    const schema = { properties: { next: { $ref: '#' } }, type: 'object' };
    expect(inline(schema)).toEqual({
      schema: {
        type: 'object',
        properties: {
          next: { type: 'object', description: expect.stringContaining('recursive') as unknown },
        },
      },
      cuts: 1,
    });
    const twice = inline(schema, { ...limits, maxRecursion: 2 });
    expect(JSON.stringify(twice.schema).match(/"next"/g)).toHaveLength(3);
  });

  it('bounds the work on references that multiply', () => {
    const defs: JsonSchemaNode = { L40: { type: 'string' } };
    for (let i = 0; i < 40; i++)
      defs[`L${i}`] = {
        type: 'object',
        properties: { l: { $ref: `#/$defs/L${i + 1}` }, r: { $ref: `#/$defs/L${i + 1}` } },
      };
    const { schema, cuts } = inline({ properties: { x: { $ref: '#/$defs/L0' } }, $defs: defs });
    expect(cuts).toBeGreaterThan(0);
    expect(JSON.stringify(schema).length).toBeLessThan(1_000_000);
  });
});
