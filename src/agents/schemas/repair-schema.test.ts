import { describe, expect, it } from 'vitest';
import { repairSchema } from './repair-schema.js';
import { SchemaDiagnostics } from './schema-diagnostics.js';
import type { JsonSchemaNode } from './json-schema-node.js';

describe('repairSchema', () => {
  it('drops keyword values of the wrong kind and turns boolean subschemas into objects', () => {
    const schema: JsonSchemaNode = {
      type: 'object',
      required: ['a', 1, 'a'],
      properties: {
        a: true,
        b: false,
        c: 'x',
        d: { type: ['string', 7], minLength: -1, items: 5 },
      },
      additionalProperties: 'no',
      anyOf: [],
      enum: 3,
      exclusiveMinimum: true,
      minimum: 2,
      not: true,
    };
    const diagnostics = new SchemaDiagnostics('t', 'anthropic');
    repairSchema(schema, diagnostics);
    expect(schema).toEqual({
      type: 'object',
      required: ['a'],
      properties: { a: {}, b: { not: {} }, c: {}, d: { type: ['string'] } },
      exclusiveMinimum: 2,
      not: {},
    });
    expect(diagnostics.finish().length).toBeGreaterThanOrEqual(8);
  });
});
