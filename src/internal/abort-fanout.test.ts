import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { AbortFanout } from './abort-fanout.js';

interface Item {
  name: string;
}

describe('AbortFanout', () => {
  it('listens once per signal, fails each waiting item once on abort, and none that left', () => {
    const aborted: string[] = [];
    const fanout = new AbortFanout<Item>((item) => aborted.push(item.name));
    const own = new AbortController();
    const shared = new AbortController();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => ({ name }));
    fanout.add(own.signal, a!);
    fanout.add(shared.signal, b!);
    fanout.add(shared.signal, c!);
    fanout.add(shared.signal, d!);
    fanout.add(shared.signal, d!); // twice: still once
    expect(getEventListeners(own.signal, 'abort')).toHaveLength(1);
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(1);
    expect(fanout.signalCount).toBe(2);
    fanout.delete(shared.signal, c!);
    fanout.delete(shared.signal, { name: 'c' }); // not one of its items
    shared.abort();
    own.abort();
    expect(aborted).toEqual(['b', 'd', 'a']);
    expect(fanout.signalCount).toBe(0);
  });

  it('stops listening when a signal’s last item leaves, whether it was alone or shared', () => {
    const fanout = new AbortFanout<Item>(() => {
      throw new Error('never aborted');
    });
    const own = new AbortController();
    const shared = new AbortController();
    const a = { name: 'a' };
    const b = { name: 'b' };
    fanout.add(own.signal, a);
    fanout.delete(own.signal, b); // another item: a still waits
    expect(getEventListeners(own.signal, 'abort')).toHaveLength(1);
    fanout.delete(own.signal, a);
    fanout.add(shared.signal, a);
    fanout.add(shared.signal, b);
    fanout.delete(shared.signal, a);
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(1);
    fanout.delete(shared.signal, b);
    expect(getEventListeners(own.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
    fanout.add(shared.signal, a);
    fanout.clear();
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
    expect(fanout.signalCount).toBe(0);
  });
});
