import { describe, expect, it } from 'vitest';
import { copyJsonSchema } from './copy-json-schema.js';

describe('copyJsonSchema', () => {
  it('copies plain JSON and keeps __proto__ as data', () => {
    const input = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"}}}',
    ) as object;
    const copy = copyJsonSchema(input);
    expect(copy.ok && JSON.stringify(copy.schema)).toBe(JSON.stringify(input));
    expect(copy.ok && Object.getPrototypeOf(copy.schema.properties)).toBe(Object.prototype);
    expect(copy.ok && copy.schema).not.toBe(input);
  });

  it('drops what is not JSON', () => {
    const input: Record<string, unknown> = {
      a: () => 1,
      b: undefined,
      c: Number.NaN,
      d: new Date(0),
      e: [undefined, 1n],
    };
    input.self = input;
    expect(copyJsonSchema(input)).toEqual({ ok: true, schema: { e: [null, null] } });
  });

  it('stops at its bounds', () => {
    expect(copyJsonSchema([])).toEqual({ ok: false, problem: 'the schema is not a JSON object' });
    expect(
      copyJsonSchema({ a: { b: { c: {} } } }, { maxDepth: 3, maxNodes: 100, maxChars: 100 }),
    ).toEqual({
      ok: false,
      problem: 'the schema is nested more than 3 levels deep',
    });
    expect(
      copyJsonSchema({ a: [1, 2, 3, 4] }, { maxDepth: 9, maxNodes: 4, maxChars: 100 }).ok,
    ).toBe(false);
    expect(
      copyJsonSchema({ a: 'x'.repeat(50) }, { maxDepth: 9, maxNodes: 9, maxChars: 20 }).ok,
    ).toBe(false);
  });
});
