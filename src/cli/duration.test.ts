import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['3s', 3000],
    ['500ms', 500],
    ['1.5s', 1500],
    ['2m', 120_000],
    ['2147483647ms', 2 ** 31 - 1],
    [' 10S ', 10_000],
  ])('%s is %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', 'soon', '3 days', '-1s', '0s', '2147484s', '2147483648ms'])('refuses %j', (text) =>
    expect(() => parseDuration(text)).toThrow(/duration|longest timer/),
  );

  it('refuses a bare number, naming the units', () => {
    expect(() => parseDuration('5')).toThrow("'5' has no unit: write 5ms, 5s, 5m or 5h");
  });
});
