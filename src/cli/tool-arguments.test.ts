import { describe, expect, it } from 'vitest';
import { parseArgPairs, parseArgsJson } from './tool-arguments.js';

const schema = {
  type: 'object',
  properties: {
    zip: { type: 'string' },
    count: { type: 'integer' },
    ratio: { type: 'number' },
    flag: { type: 'boolean' },
    options: { type: 'object' },
    tags: { type: 'array' },
    maybe: { type: ['string', 'null'] },
  },
};

describe('parseArgPairs', () => {
  it('coerces each value by the type the schema gives its key', () => {
    expect(
      parseArgPairs(
        ['zip=01234', 'count=42', 'ratio=0.5', 'flag=true', 'options={"a":1}', 'tags=[1,"x"]'],
        schema,
      ),
    ).toEqual({
      zip: '01234',
      count: 42,
      ratio: 0.5,
      flag: true,
      options: { a: 1 },
      tags: [1, 'x'],
    });
  });

  it('keeps = inside a value, allows null where the schema does', () => {
    expect(parseArgPairs(['zip=a=b', 'maybe=null'], schema)).toEqual({ zip: 'a=b', maybe: null });
  });

  it('reads an untyped key as JSON when it parses, else as a string', () => {
    expect(parseArgPairs(['x=12', 'y=hello', 'z=[1]'], {})).toEqual({ x: 12, y: 'hello', z: [1] });
    expect(parseArgPairs(['x=1'], undefined)).toEqual({ x: 1 });
  });

  it.each([
    ['count=1.5', /count.*integer/],
    ['ratio=abc', /ratio.*number/],
    ['flag=yes', /flag.*boolean/],
    ['options=[1]', /options.*object/],
    ['novalue', /key=value/],
    ['=1', /key=value/],
  ])('refuses %s', (pair, message) => expect(() => parseArgPairs([pair], schema)).toThrow(message));
});

describe('parseArgsJson', () => {
  it('takes a JSON object and refuses anything else', () => {
    expect(parseArgsJson('{"a":1}', '--args')).toEqual({ a: 1 });
    expect(() => parseArgsJson('[1]', 'stdin')).toThrow(/stdin must be a JSON object/);
    expect(() => parseArgsJson('{', '--args')).toThrow(/--args is not JSON/);
  });
});
