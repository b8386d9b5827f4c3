import { describe, expect, it } from 'vitest';
import { compileRe2Pattern, createRe2RegExp, toJsSemantics } from './re2-regexp.js';

function tester(pattern: string, flags = 'u') {
  const unsupported: string[] = [];
  const regExp = createRe2RegExp({ onUnsupported: (p) => unsupported.push(p) })(pattern, flags);
  return { test: (input: string) => regExp.test(input), unsupported, name: regExp.toString() };
}

describe('createRe2RegExp', () => {
  it('gives every pattern its own name, as ajv dedupes compiled patterns by it', () => {
    const engine = createRe2RegExp();
    expect(engine('^a$', 'u').toString()).toBe('/^a$/u');
    expect(engine('^b$', 'u').toString()).not.toBe(engine('^a$', 'u').toString());
    expect(engine('(?=a)', 'u').toString()).not.toBe(engine('(?=b)', 'u').toString());
    expect(typeof engine.code).toBe('string');
  });

  it.each<[string, string, boolean]>([
    ['^[a-z]+$', 'abc', true],
    ['^[a-z]+$', 'abC', false],
    ['b', 'abc', true], // unanchored, as JSON Schema's `pattern` is
    ['^\\d{3}-\\d{4}$', '555-1234', true],
    ['^[\\u0041-\\u005A]+$', 'ABC', true],
    ['^\\u{1F600}$', '😀', true],
    ['^.$', '😀', true],
    ['^(?<year>\\d{4})$', '2024', true],
    ['(?<=a)b', 'ab', true],
    ['(?<=a)b', 'cb', false],
    ['(?<!a)b', 'cb', true],
    ['(?<!a)b', 'ab', false],
    ['^\\p{Lu}', 'Ärger', true],
    ['^\\/api\\/', '/api/x', true],
    ['^\\\\k$', '\\k', true],
    ['^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', 'a@b.co', true],
    ['^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', 'a\u00a0b@c.de', false],
  ])('%s on %j is %s, as in ECMAScript', (pattern, input, expected) => {
    expect(new RegExp(pattern, 'u').test(input)).toBe(expected);
    const { test, unsupported } = tester(pattern);
    expect(test(input)).toBe(expected);
    expect(unsupported).toEqual([]);
  });

  it('gives \\s, \\S and . their ECMAScript meaning, which differs from RE2', () => {
    for (const space of ['\u00a0', '\u2028', '\ufeff', '\u3000', '\t', '\v']) {
      expect(tester('^\\s$').test(space)).toBe(true);
      expect(tester('^[\\s]$').test(space)).toBe(true);
      expect(tester('^\\S$').test(space)).toBe(false);
    }
    for (const terminator of ['\n', '\r', '\u2028', '\u2029']) {
      expect(tester('^.$').test(terminator)).toBe(false);
      expect(tester('^.$', 'su').test(terminator)).toBe(true);
    }
    expect(tester('^[.]$').test('x')).toBe(false);
    expect(tester('^\\\\s$').test('\\s')).toBe(true);
  });

  it('rewrites only outside escapes, and copies POSIX classes and a leading ] whole', () => {
    expect(toJsSemantics('\\\\s', false)).toBe('\\\\s');
    expect(toJsSemantics('[.]', false)).toBe('[.]');
    expect(toJsSemantics('[[:alpha:].]', false)).toBe('[[:alpha:].]');
    expect(toJsSemantics('[]a].', false)).toBe('[]a][^\\n\\r\\x{2028}\\x{2029}]');
    expect(toJsSemantics('a.b', true)).toBe('a.b');
  });

  it('honours the i, m and s flags', () => {
    expect(tester('^abc$', 'iu').test('ABC')).toBe(true);
    expect(tester('^b$', 'mu').test('a\nb')).toBe(true);
    expect(tester('^b$', 'u').test('a\nb')).toBe(false);
  });

  it('lets a valid pattern RE2 cannot run match anything, and reports it', () => {
    for (const pattern of ['^(?=.*\\d).{8,}$', '^(?!x)', '(a)\\1', '\\k<n>(?<n>x)']) {
      const { test, unsupported, name } = tester(pattern);
      expect(test('anything')).toBe(true);
      expect(unsupported).toEqual([pattern]);
      expect(name).toContain('unsupported');
    }
  });

  it('throws for a pattern that is not valid ECMAScript', () => {
    for (const pattern of ['[', '(a', 'a{2,1}', '\\p{NoSuchProperty}'])
      expect(() => tester(pattern)).toThrow(/is not a valid ECMAScript regular expression/);
    expect(() => compileRe2Pattern('(', 'u')).toThrow();
  });

  it('matches catastrophic patterns in linear time', () => {
    const started = performance.now();
    expect(tester('^(a+)+$').test('a'.repeat(1_000_000) + '!')).toBe(false);
    expect(tester('^(a|aa)+$').test('a'.repeat(100_000) + '!')).toBe(false);
    expect(tester('^(\\w+\\s?)*$').test('word '.repeat(20_000) + '!')).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
