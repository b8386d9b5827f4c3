import { describe, expect, it } from 'vitest';
import { ReplayBuffer } from './replay-buffer.js';

describe('ReplayBuffer', () => {
  it('gives ids unique in the session and replays the events of one stream after an id', () => {
    const buffer = new ReplayBuffer<string>({ maxEvents: 10, maxBytes: 1024 });
    const a = buffer.openStream('a');
    const b = buffer.openStream('b');
    const primed = buffer.mark(a);
    const a1 = buffer.record(a, 'a1');
    const b1 = buffer.record(b, 'b1');
    const a2 = buffer.record(a, 'a2');
    expect(new Set([primed, a1, b1, a2]).size).toBe(4);
    expect(buffer.after(primed)).toEqual({
      stream: a,
      tag: 'a',
      events: [
        { id: a1, data: 'a1' },
        { id: a2, data: 'a2' },
      ],
    });
    // Never another stream's events.
    expect(buffer.after(a1)).toEqual({ stream: a, tag: 'a', events: [{ id: a2, data: 'a2' }] });
    expect(buffer.after(b1)).toEqual({ stream: b, tag: 'b', events: [] });
  });

  it('refuses ids it never gave: malformed, of no stream, not issued yet', () => {
    const buffer = new ReplayBuffer<string>({ maxEvents: 10, maxBytes: 1024 });
    const a = buffer.openStream('a');
    buffer.record(a, 'x');
    for (const id of ['', 'nope', '1', '1-', '-1', '1-1-1', `${a + 1}-1`, `${a}-2`, '9'.repeat(40)])
      expect(buffer.after(id)).toEqual({ problem: 'unknown' });
  });

  it('holds at most maxEvents: the oldest go first, and a resumption that needs one is expired', () => {
    const buffer = new ReplayBuffer<string>({ maxEvents: 3, maxBytes: 1024 });
    const a = buffer.openStream('a');
    const primed = buffer.mark(a);
    const ids = ['1', '2', '3', '4', '5'].map((data) => buffer.record(a, data));
    expect(buffer.eventCount).toBe(3);
    expect(buffer.after(primed)).toEqual({ problem: 'expired' });
    expect(buffer.after(ids[0]!)).toEqual({ problem: 'expired' });
    // From the last event gone on, nothing is missing.
    expect(buffer.after(ids[1]!)).toMatchObject({
      events: [{ data: '3' }, { data: '4' }, { data: '5' }],
    });
    expect(buffer.after(ids[3]!)).toMatchObject({ events: [{ data: '5' }] });
  });

  it('holds at most maxBytes (the oldest go first); an event larger than all is not held', () => {
    const buffer = new ReplayBuffer<string>({ maxEvents: 100, maxBytes: 10 });
    const a = buffer.openStream('a');
    const b = buffer.openStream('b');
    const a1 = buffer.record(a, 'aaaa');
    const b1 = buffer.record(b, 'bbbb');
    buffer.record(a, 'cccc');
    expect(buffer.byteCount).toBe(8);
    // a's first event went for a's third: a resumption before it is expired, b's is whole.
    expect(buffer.after(a1)).toMatchObject({ events: [{ data: 'cccc' }] });
    expect(buffer.after(b1)).toMatchObject({ events: [] });
    const last = buffer.mark(b);
    buffer.record(b, 'x'.repeat(11));
    expect(buffer.byteCount).toBe(8);
    expect(buffer.after(last)).toEqual({ problem: 'expired' });
    expect(buffer.after(b1)).toEqual({ problem: 'expired' });
  });

  it('forgets a finished stream once none of its events is held; clear() drops everything', () => {
    const buffer = new ReplayBuffer<string>({ maxEvents: 2, maxBytes: 1024 });
    const a = buffer.openStream('a');
    const a1 = buffer.record(a, 'a1');
    buffer.finish(a);
    // Finished, but its event is held: still resumable.
    expect(buffer.after(buffer.mark(buffer.openStream('c')))).toMatchObject({ events: [] });
    expect(buffer.after(a1)).toMatchObject({ tag: 'a', events: [] });
    const b = buffer.openStream('b');
    buffer.record(b, 'b1');
    buffer.record(b, 'b2');
    expect(buffer.after(a1)).toEqual({ problem: 'unknown' });
    expect(buffer.streamCount).toBe(2);
    // Many finished streams leave nothing behind once their events are gone.
    for (let i = 0; i < 1000; i++) {
      const s = buffer.openStream('s');
      buffer.record(s, 'x');
      buffer.finish(s);
    }
    expect(buffer.streamCount).toBeLessThanOrEqual(4);
    expect(buffer.eventCount).toBe(2);
    buffer.clear();
    expect([buffer.eventCount, buffer.byteCount, buffer.streamCount]).toEqual([0, 0, 0]);
  });
});
