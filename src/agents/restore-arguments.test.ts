import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../jsonrpc/message.js';
import { restoreArguments } from './restore-arguments.js';

const schema: JsonObject = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    maybe: { type: ['string', 'null'] },
    either: { anyOf: [{ type: 'number' }, { type: 'null' }] },
    page: { $ref: '#/$defs/page' },
    tags: { type: 'array', items: { $ref: '#/definitions/tag' } },
  },
  required: ['name'],
  $defs: {
    page: {
      type: 'object',
      properties: { size: { type: 'integer' }, cursor: { type: 'string' } },
      required: ['size'],
    },
  },
  definitions: {
    tag: { type: 'object', properties: { label: { type: 'string' }, colour: { type: 'string' } } },
  },
};

describe('restoreArguments', () => {
  it('drops nulls of optional, non-nullable properties at every depth', () => {
    const args: JsonObject = {
      name: null,
      maybe: null,
      either: null,
      page: { size: null, cursor: null },
      tags: [{ label: 'a', colour: null }, { label: null }],
    };
    expect(restoreArguments(args, schema)).toEqual({
      name: null,
      maybe: null,
      either: null,
      page: { size: null },
      tags: [{ label: 'a' }, {}],
    });
    // The model's object is never changed.
    expect(args.page).toEqual({ size: null, cursor: null });
  });

  it('returns the arguments themselves when nothing is dropped', () => {
    const args: JsonObject = { name: 'x', page: { size: 1 }, tags: [{ label: 'a' }] };
    expect(restoreArguments(args, schema)).toBe(args);
  });

  it('passes on what its schema does not describe, and survives hostile schemas', () => {
    const cyclic: JsonObject = {
      type: 'object',
      properties: { next: { $ref: '#/$defs/a' } },
      $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } },
    };
    const args: JsonObject = { next: { deep: null }, other: null };
    expect(restoreArguments(args, cyclic)).toEqual({ next: { deep: null } });
    let deep: JsonObject = { leaf: null };
    for (let i = 0; i < 100; i++) deep = { child: deep };
    const recursive: JsonObject = {
      type: 'object',
      properties: { child: { $ref: '#' }, leaf: { type: 'string' } },
    };
    expect(() => restoreArguments(deep, recursive)).not.toThrow();
  });
});
