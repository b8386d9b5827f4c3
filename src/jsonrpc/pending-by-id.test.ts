import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { PendingById } from './pending-by-id.js';

interface Item {
  readonly id: number;
  readonly payload?: number[];
}

const item = (id: number): Item => ({ id });

describe('PendingById', () => {
  it('finds, removes and counts items by id, and refuses what is not there', () => {
    const pending = new PendingById<Item>();
    const a = item(1);
    const b = item(2);
    pending.add(a);
    pending.add(b);
    expect(pending.size).toBe(2);
    expect(pending.get(1)).toBe(a);
    expect(pending.get(2)).toBe(b);
    expect(pending.get(3)).toBeUndefined();
    expect(pending.get(1.5)).toBeUndefined();
    expect(pending.get(-1)).toBeUndefined();
    expect(pending.delete(item(1))).toBe(false); // another object with the same id
    expect(pending.delete(a)).toBe(true);
    expect(pending.delete(a)).toBe(false);
    expect(pending.get(1)).toBeUndefined();
    expect(pending.size).toBe(1);
  });

  it('keeps a slow request reachable after thousands of newer ids passed its slot', () => {
    const pending = new PendingById<Item>();
    const slow = item(1);
    pending.add(slow);
    for (let id = 2; id < 5000; id++) {
      const quick = item(id);
      pending.add(quick);
      expect(pending.get(id)).toBe(quick);
      expect(pending.delete(quick)).toBe(true);
    }
    expect(pending.size).toBe(1);
    expect(pending.get(1)).toBe(slow);
    expect(pending.values()).toEqual([slow]);
    expect(pending.delete(slow)).toBe(true);
    expect(pending.size).toBe(0);
  });

  it('grows with many in flight, keeps every one, and lists them all', () => {
    const pending = new PendingById<Item>();
    const items = Array.from({ length: 3000 }, (_, i) => item(i + 1));
    for (const each of items) pending.add(each);
    expect(pending.size).toBe(3000);
    for (const each of items) expect(pending.get(each.id)).toBe(each);
    expect(pending.values().sort((x, y) => x.id - y.id)).toEqual(items);
    // Settled out of order, every other one first.
    for (const each of items.filter((x) => x.id % 2 === 0)) expect(pending.delete(each)).toBe(true);
    for (const each of items)
      expect(pending.get(each.id)).toBe(each.id % 2 === 0 ? undefined : each);
    for (const each of items.filter((x) => x.id % 2 === 1)) expect(pending.delete(each)).toBe(true);
    expect(pending.size).toBe(0);
    expect(pending.values()).toEqual([]);
    const later = item(3001);
    pending.add(later);
    expect(pending.get(3001)).toBe(later);
  });

  it('holds no settled request: each one can be collected at once', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const pending = new PendingById<Item>();
    const refs: WeakRef<Item>[] = [];
    (() => {
      for (let id = 1; id <= 100; id++) {
        const each = { id, payload: new Array<number>(100).fill(id) };
        refs.push(new WeakRef(each));
        pending.add(each);
        if (id % 10 !== 0) pending.delete(each);
      }
    })();
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    const alive = refs.filter((ref) => ref.deref() !== undefined).map((ref) => ref.deref()!.id);
    expect(alive).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    expect(pending.size).toBe(10);
  });
});
