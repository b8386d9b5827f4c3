import { describe, expect, it } from 'vitest';
import { McpHostError } from '../errors/mcp-host-error.js';
import { canonicalJson, MAX_CANONICAL_JSON_DEPTH } from './canonical-json.js';

/** The IEEE 754 double with these bits (RFC 8785 appendix B lists them so). */
function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

function refusal(value: unknown): McpHostError {
  try {
    canonicalJson(value);
  } catch (error) {
    expect(error).toBeInstanceOf(McpHostError);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    return error as McpHostError;
  }
  throw new Error('canonicalJson accepted the value');
}

describe('canonicalJson (RFC 8785)', () => {
  it('serialises the example of RFC 8785 section 3.2.2', () => {
    // The RFC's input, member for member: numbers as written there, escapes as written there.
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
        ' "literals": [null, true, false]}',
    ) as unknown;
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts members by UTF-16 code units (RFC 8785 section 3.2.3)', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    const values = Object.values(JSON.parse(canonicalJson(input)) as Record<string, string>);
    // Parsing puts the integer-like key "1" first again, so compare the text's order instead.
    const order = [...canonicalJson(input).matchAll(/:"([^"]+)"/g)].map((m) => m[1]);
    expect(order).toEqual([
      'Carriage Return',
      'One',
      'Control',
      'Latin Small Letter O With Diaeresis',
      'Euro Sign',
      'Emoji: Grinning Face', // U+1F600 is the surrogate pair D83D DE00: before U+FB33
      'Hebrew Letter Dalet With Dagesh',
    ]);
    expect(values).toHaveLength(7);
  });

  it('sorts nested objects, keeps array order, and writes no whitespace', () => {
    expect(canonicalJson({ b: [3, { z: 1, a: [] }, 1], a: { y: null, x: 'x y' } })).toBe(
      '{"a":{"x":"x y","y":null},"b":[3,{"a":[],"z":1},1]}',
    );
    expect(canonicalJson({ b: 1, a: 2 })).toBe(canonicalJson({ a: 2, b: 1 }));
  });

  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'], // -0
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ])('writes the double 0x%s as %s (RFC 8785 appendix B)', (bits, text) => {
    expect(canonicalJson(fromBits(bits))).toBe(text);
  });

  it('writes the number forms around the exponent thresholds as ECMAScript does', () => {
    expect(canonicalJson([1e21, 1e20, 1e-7, 1e-6, -0, 0.1 + 0.2, 100, -1.5])).toBe(
      '[1e+21,100000000000000000000,1e-7,0.000001,0,0.30000000000000004,100,-1.5]',
    );
  });

  it('escapes strings as JSON.stringify does', () => {
    const text = 'quote " backslash \\ slash / tab \t nul \u0000 del \u007f é 😀 \u2028';
    expect(canonicalJson(text)).toBe(JSON.stringify(text));
    expect(canonicalJson('\u001f')).toBe('"\\u001f"');
  });

  it('drops undefined members, writes undefined array slots as null, honours toJSON', () => {
    const date = new Date(Date.UTC(2025, 0, 2, 3, 4, 5));
    // eslint-disable-next-line no-sparse-arrays
    const sparse = [1, , 3];
    expect(
      canonicalJson({
        a: undefined,
        b: [undefined, sparse],
        when: date,
        custom: { toJSON: (key: string) => ({ key }) },
        boxed: [Object(1) as unknown, Object('s') as unknown, Object(false) as unknown],
      }),
    ).toBe(
      '{"b":[null,[1,null,3]],"boxed":[1,"s",false],"custom":{"key":"custom"},"when":"2025-01-02T03:04:05.000Z"}',
    );
  });

  it('accepts a value reached twice without a cycle, and objects without a prototype', () => {
    const shared = { x: 1 };
    const bare = Object.create(null) as Record<string, unknown>;
    bare['__proto__'] = shared;
    expect(canonicalJson({ a: shared, b: [shared, shared], c: bare })).toBe(
      '{"a":{"x":1},"b":[{"x":1},{"x":1}],"c":{"__proto__":{"x":1}}}',
    );
  });

  it.each([
    ['NaN', NaN, '$'],
    ['Infinity', { a: [1, Infinity] }, '$.a[1]'],
    ['-Infinity', { 'odd key': -Infinity }, '$["odd key"]'],
    ['a BigInt', { n: 1n }, '$.n'],
    ['a function', { f: () => 1 }, '$.f'],
    ['a function in an array', [() => 1], '$[0]'],
    ['a symbol', { s: Symbol('x') }, '$.s'],
    ['a lone surrogate', { s: 'a\ud800b' }, '$.s'],
    ['a lone surrogate in a key', { '\udc00': 1 }, '$["\\udc00"]'],
    ['a Map', { m: new Map([[1, 2]]) }, '$.m'],
    ['a class instance', { c: new (class Thing {})() }, '$.c'],
    ['a promise', Promise.resolve(1), '$'],
    ['a top-level undefined', undefined, '$'],
  ])('refuses %s with INVALID_ARGUMENT naming where', (_label, value, where) => {
    const error = refusal(value);
    expect(error.details).toEqual({ path: where });
    expect(error.message).toContain(`at ${where}`);
  });

  it('refuses cycles, through objects and arrays', () => {
    const object: Record<string, unknown> = { a: 1 };
    object.self = object;
    expect(refusal(object).details).toEqual({ path: '$.self' });
    const array: unknown[] = [1];
    array.push({ back: array });
    expect(refusal(array).message).toContain('a cycle at $[1].back');
  });

  it(`accepts nesting up to ${MAX_CANONICAL_JSON_DEPTH} levels and refuses deeper`, () => {
    const nest = (levels: number): unknown => {
      let value: unknown = 0;
      for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { v: value };
      return value;
    };
    expect(() => canonicalJson(nest(MAX_CANONICAL_JSON_DEPTH))).not.toThrow();
    expect(refusal(nest(MAX_CANONICAL_JSON_DEPTH + 1)).message).toContain('nesting deeper');
    // Far deeper input fails the same way, not with a stack overflow.
    expect(refusal(nest(100_000)).code).toBe('INVALID_ARGUMENT');
  });
});
