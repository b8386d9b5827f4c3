import { describe, expect, it } from 'vitest';
import { mergeAllOf } from './merge-all-of.js';

describe('mergeAllOf', () => {
  it('joins properties and required, tightens bounds, intersects types and enums', () => {
    expect(
      mergeAllOf({
        description: 'first',
        allOf: [
          {
            type: ['number', 'string'],
            properties: { a: { type: 'string' } },
            required: ['a'],
            minimum: 1,
          },
          {
            type: 'integer',
            properties: { b: { type: 'number' }, a: { maxLength: 4 } },
            required: ['b'],
            minimum: 3,
            description: 'second',
          },
          { enum: [1, 2, 3] },
          { enum: [2, 3, 4] },
        ],
      }),
    ).toEqual({
      ok: true,
      schema: {
        description: 'first',
        type: 'integer',
        properties: { a: { type: 'string', maxLength: 4 }, b: { type: 'number' } },
        required: ['a', 'b'],
        minimum: 3,
        enum: [2, 3],
      },
    });
  });

  it('resolves references and merges nested allOfs', () => {
    const resolve = (ref: string) =>
      ref === '#/$defs/A' ? { properties: { x: { type: 'string' } } } : undefined;
    expect(
      mergeAllOf({ allOf: [{ $ref: '#/$defs/A' }, { allOf: [{ required: ['x'] }] }] }, resolve),
    ).toEqual({
      ok: true,
      schema: { properties: { x: { type: 'string' } }, required: ['x'] },
    });
    expect(mergeAllOf({ allOf: [{ $ref: '#/$defs/B' }] }, resolve).ok).toBe(false);
  });

  it('refuses what it cannot merge without changing the meaning', () => {
    const reasons = [
      mergeAllOf({ allOf: [{ type: 'string' }, { type: 'number' }] }),
      mergeAllOf({ allOf: [{ enum: [1] }, { enum: [2] }] }),
      mergeAllOf({ allOf: [{ anyOf: [{}] }, { anyOf: [{ type: 'string' }] }] }),
      mergeAllOf({ allOf: [false] }),
      mergeAllOf({
        allOf: [{ properties: { a: {} }, additionalProperties: false }, { properties: { b: {} } }],
      }),
    ].map((result) => (result.ok ? 'merged' : result.reason));
    expect(reasons).toEqual([
      'its branches have no type in common',
      'its branches allow no value in common',
      "its branches give different values for 'anyOf'",
      'a branch is false',
      'one branch forbids properties another one declares',
    ]);
  });
});
