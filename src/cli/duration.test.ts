import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['3s', 3000],
    ['500ms', 500],
    ['1.5s', 1500],
    ['2m', 120_000],
    ['1500', 1500],
    [' 10S ', 10_000],
  ])('%s is %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', 'soon', '3 days', '-1s', '0s'])('refuses %j', (text) =>
    expect(() => parseDuration(text)).toThrow(/duration/),
  );
});
