import { describe, expect, it } from 'vitest';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { DotenvSyntaxError, parseDotenv } from './dotenv.js';

describe('parseDotenv', () => {
  it('reads the usual forms', () => {
    const text = [
      '# a comment',
      '',
      'PLAIN=value',
      'export EXPORTED=yes',
      'SPACED = padded value  ',
      'INLINE=abc # comment',
      'HASH=abc#def',
      "SINGLE='no $expansion \\n here'",
      'DOUBLE="line\\nnext \\"q\\""',
      'MULTI="first',
      'second"',
      'EMPTY=',
      'REF=${OTHER}',
    ].join('\r\n');
    expect(parseDotenv(text)).toEqual({
      PLAIN: 'value',
      EXPORTED: 'yes',
      SPACED: 'padded value',
      INLINE: 'abc',
      HASH: 'abc#def',
      SINGLE: 'no $expansion \\n here',
      DOUBLE: 'line\nnext "q"',
      MULTI: 'first\nsecond',
      EMPTY: '',
      REF: '${OTHER}',
    });
  });

  it('names the line of a mistake, never its content', () => {
    for (const [text, line] of [
      ['A=1\nsecret-without-equals', 2],
      ['A=1\n\n1BAD=x', 3],
      ['A="unterminated', 1],
      ["A='x' trailing", 1],
    ] as const) {
      let caught: unknown;
      try {
        parseDotenv(text);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(DotenvSyntaxError);
      expect(caught).toBeInstanceOf(McpHostError);
      expect((caught as DotenvSyntaxError).code).toBe('CONFIG_INVALID');
      expect((caught as DotenvSyntaxError).line).toBe(line);
      expect((caught as DotenvSyntaxError).details).toEqual({ line });
      expect((caught as Error).message).not.toMatch(/secret|unterminated"|BAD|trailing/);
    }
  });

  it('does not pollute prototypes', () => {
    const parsed = parseDotenv('__proto__=x\nconstructor=y');
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
