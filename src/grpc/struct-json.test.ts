import { describe, expect, it } from 'vitest';
import { McpHostError } from '../errors/mcp-host-error.js';
import { fromStruct, fromValue, toStruct, toValue } from './struct-json.js';

describe('JSON as google.protobuf.Struct', () => {
  it('round-trips every kind of JSON value', () => {
    const json = {
      text: 'héllo',
      number: -1.5,
      zero: 0,
      yes: true,
      no: false,
      nothing: null,
      list: [1, 'two', { three: [3] }, [], null],
      nested: { deeper: { deepest: {} } },
    };
    expect(fromStruct(toStruct(json))).toEqual(json);
    expect(toStruct({ a: 'x', b: 2 })).toEqual({
      fields: { a: { stringValue: 'x' }, b: { numberValue: 2 } },
    });
  });

  it('gives what JSON cannot hold as null, as JSON.stringify does, and drops undefined members', () => {
    expect(toValue(Number.NaN)).toEqual({ nullValue: 'NULL_VALUE' });
    expect(toValue(undefined)).toEqual({ nullValue: 'NULL_VALUE' });
    expect(toValue(10n)).toEqual({ nullValue: 'NULL_VALUE' });
    expect(fromStruct(toStruct({ gone: undefined, kept: 1 }))).toEqual({ kept: 1 });
  });

  it('reads an absent struct as {} and an empty value as null', () => {
    expect(fromStruct(undefined)).toEqual({});
    expect(fromStruct({})).toEqual({});
    expect(fromValue(undefined)).toBeNull();
    expect(fromValue({})).toBeNull();
    expect(fromValue({ nullValue: 'NULL_VALUE' })).toBeNull();
  });

  it('keeps a __proto__ key from the wire a plain key', () => {
    const object = fromStruct(
      JSON.parse(
        '{"fields":{"__proto__":{"structValue":{"fields":{"polluted":{"boolValue":true}}}}}}',
      ) as never,
    );
    expect(Object.hasOwn(object, '__proto__')).toBe(true);
    expect((object as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
  });

  it('refuses absurd nesting both ways (INVALID_ARGUMENT)', () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 500; i++) deep = { d: deep };
    expect(() => toStruct(deep)).toThrow(McpHostError);
    let struct: Record<string, unknown> = { fields: {} };
    for (let i = 0; i < 500; i++) struct = { fields: { d: { structValue: struct } } };
    expect(() => fromStruct(struct)).toThrow(/nested deeper/);
  });
});
