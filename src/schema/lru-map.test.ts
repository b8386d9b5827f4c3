import { describe, expect, it } from 'vitest';
import { LruMap } from './lru-map.js';

describe('LruMap', () => {
  it('keeps at most maxEntries, dropping the least recently used', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('a')).toBe(1); // `a` is now the most recent
    map.set('c', 3);
    expect(map.size).toBe(2);
    expect(map.get('b')).toBeUndefined();
    expect(map.get('a')).toBe(1);
    expect(map.get('c')).toBe(3);
    map.set('a', 10); // replacing counts as a use
    map.set('d', 4);
    expect(map.get('c')).toBeUndefined();
    expect(map.get('a')).toBe(10);
    map.clear();
    expect(map.size).toBe(0);
  });

  it('keeps nothing with maxEntries 0', () => {
    const map = new LruMap<string, number>(0);
    map.set('a', 1);
    expect(map.size).toBe(0);
    expect(map.get('a')).toBeUndefined();
  });
});
