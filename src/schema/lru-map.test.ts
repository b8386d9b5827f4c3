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

  it('counts a repeated hit on the newest entry as a use, and forgets it on clear', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('b')).toBe(2);
    expect(map.get('b')).toBe(2);
    expect(map.get('a')).toBe(1); // a is the newest now, b the oldest
    map.set('c', 3);
    expect(map.get('b')).toBeUndefined();
    expect(map.get('a')).toBe(1);
    map.clear();
    expect(map.get('a')).toBeUndefined();
    map.set('a', 5);
    expect(map.get('a')).toBe(5);
  });
});
