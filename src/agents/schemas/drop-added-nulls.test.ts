import { describe, expect, it } from 'vitest';
import { dropAddedNulls } from './drop-added-nulls.js';
import { normaliseToolSchema } from './normalise-tool-schema.js';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    limit: { type: 'integer' },
    note: { type: ['string', 'null'] },
    opts: {
      type: 'object',
      properties: { deep: { type: 'boolean' }, keep: { type: 'string' } },
      required: ['keep'],
    },
    list: { type: 'array', items: { $ref: '#/$defs/Item' } },
  },
  required: ['name'],
  $defs: { Item: { type: 'object', properties: { tag: { type: 'string' } } } },
};

describe('dropAddedNulls', () => {
  it('removes the nulls strict mode adds for optional properties, at every depth', () => {
    const args = {
      name: 'x',
      limit: null,
      note: null,
      opts: { deep: null, keep: 'k' },
      list: [{ tag: null }, { tag: 't' }],
    };
    const before = JSON.stringify(args);
    expect(dropAddedNulls(args, schema)).toEqual({
      name: 'x',
      note: null,
      opts: { keep: 'k' },
      list: [{}, { tag: 't' }],
    });
    expect(JSON.stringify(args)).toBe(before);
  });

  it('turns what the strict schema accepts into what the original accepts', () => {
    const strict = normaliseToolSchema('t', schema, 'openai-strict');
    expect(strict.strict).toBe(true);
    expect(strict.schema.required).toEqual(['name', 'limit', 'note', 'opts', 'list']);
    const sent = { name: 'x', limit: null, note: null, opts: null, list: null };
    expect(dropAddedNulls(sent, schema)).toEqual({ name: 'x', note: null });
  });

  it('returns the same object when there is nothing to drop, and leaves unions alone', () => {
    const args = { name: 'x', opts: { keep: null } };
    expect(dropAddedNulls(args, schema)).toBe(args);
    const union = {
      type: 'object',
      properties: { u: { anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }] } },
    };
    const sent = { u: { a: null } };
    expect(dropAddedNulls(sent, union)).toBe(sent);
  });
});
