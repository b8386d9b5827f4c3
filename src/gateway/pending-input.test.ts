import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpHostError } from '../errors/mcp-host-error.js';
import { PendingInputStore, type PendingEntry } from './pending-input.js';

function entry(): PendingEntry & { expired: McpHostError[] } {
  const expired: McpHostError[] = [];
  return { expired, expire: (reason) => void expired.push(reason) };
}

describe('PendingInputStore', () => {
  afterEach(() => void vi.useRealTimers());

  it('gives each entry an unguessable, single-use state', () => {
    const store = new PendingInputStore();
    const a = entry();
    const b = entry();
    const stateA = store.put(a);
    const stateB = store.put(b);
    expect(stateA).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(stateB).not.toBe(stateA);
    expect(store.size).toBe(2);
    expect(store.take(stateA)).toBe(a);
    expect(store.take(stateA)).toBeUndefined();
    expect(store.take('not-a-state')).toBeUndefined();
    expect(store.take(42)).toBeUndefined();
    expect(store.take(stateB)).toBe(b);
    expect(store.size).toBe(0);
    expect(a.expired).toEqual([]);
  });

  it('refuses an entry beyond maxPending, keeping those waiting', () => {
    const store = new PendingInputStore({ maxPending: 2 });
    const first = store.put(entry());
    store.put(entry());
    expect(() => store.put(entry())).toThrow(expect.objectContaining({ code: 'QUEUE_FULL' }));
    expect(store.take(first)).toBeDefined();
    expect(() => store.put(entry())).not.toThrow();
  });

  it('expires an entry not taken within ttlMs, and then does not know its state', () => {
    vi.useFakeTimers();
    const store = new PendingInputStore({ ttlMs: 1_000 });
    const waiting = entry();
    const state = store.put(waiting);
    const taken = entry();
    const takenState = store.put(taken);
    store.take(takenState);
    vi.advanceTimersByTime(999);
    expect(waiting.expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(waiting.expired).toEqual([expect.objectContaining({ code: 'REQUEST_TIMEOUT' })]);
    expect(taken.expired).toEqual([]);
    expect(store.take(state)).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('expires everything on close and refuses new entries after', () => {
    const store = new PendingInputStore();
    const waiting = entry();
    store.put(waiting);
    const reason = new McpHostError('CONNECTION_CLOSED', 'closed');
    store.close(reason);
    expect(waiting.expired).toEqual([reason]);
    expect(() => store.put(entry())).toThrow(
      expect.objectContaining({ code: 'CONNECTION_CLOSED' }),
    );
  });

  it('refuses bounds that are not whole numbers of 1 or more', () => {
    expect(() => new PendingInputStore({ maxPending: 0 })).toThrow(/maxPending/);
    expect(() => new PendingInputStore({ ttlMs: 1.5 })).toThrow(/ttlMs/);
  });
});
