/**
 * The contract every `StateStore` keeps, as a reusable suite: call `stateStoreContract(make)`
 * inside a `describe` with a factory for a fresh, empty store. It runs on the memory and file
 * stores (src/state/state-store.test.ts) and on PostgreSQL (src/postgres/postgres-state-store.test.ts).
 */
import { expect, it } from 'vitest';
import type { StateStore } from '../../src/state/state-store.js';
import { rejection } from './peer-harness.js';

export interface StoreUnderTest extends AsyncDisposable {
  store: StateStore & { close(): Promise<void> };
}

/** Records the keys a watcher is told, and waits for them without sleeping. */
export function watchRecorder(): {
  keys: string[];
  listener: (key: string) => void;
  /** Resolves once `count` keys were recorded; rejects after `timeoutMs` (default 5 s). */
  until(count: number, timeoutMs?: number): Promise<string[]>;
} {
  const keys: string[] = [];
  let wake: (() => void) | undefined;
  return {
    keys,
    listener: (key) => {
      keys.push(key);
      wake?.();
    },
    async until(count, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (keys.length < count) {
        const remaining = deadline - Date.now();
        if (remaining <= 0)
          throw new Error(`watch: ${keys.length} of ${count} keys after ${timeoutMs} ms`);
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, remaining);
        });
        clearTimeout(timer);
        wake = undefined;
      }
      return [...keys];
    },
  };
}

export interface StateStoreContractOptions {
  /** The store has `watch` (the memory and PostgreSQL stores). */
  watch?: boolean;
}

export function stateStoreContract(
  make: () => StoreUnderTest | Promise<StoreUnderTest>,
  options: StateStoreContractOptions = {},
): void {
  it.runIf(options.watch === true)(
    'tells each watcher of its namespace the key after every write, never inside it',
    async () => {
      await using t = await make();
      const watch = t.store.watch!.bind(t.store);
      const pins = watchRecorder();
      const era = watchRecorder();
      const watching = watch('pins', pins.listener);
      using _era = watch('era', era.listener);
      using _failing = watch('pins', () => {
        throw new Error('a failing watcher');
      });
      const written = t.store.set('pins', 'a', 1);
      expect(pins.keys).toEqual([]);
      await written;
      await t.store.update('pins', 'b', () => 2);
      await t.store.delete('pins', 'a');
      await expect(t.store.update('pins', 'c', () => Symbol('no JSON'))).rejects.toThrow();
      expect(await pins.until(3)).toEqual(['a', 'b', 'a']);
      // A write to another namespace is a barrier: what pins would have seen came before it.
      await t.store.set('era', 'z', 0);
      expect(await era.until(1)).toEqual(['z']);
      expect(pins.keys).toEqual(['a', 'b', 'a']);
      watching[Symbol.dispose]();
      await t.store.set('pins', 'd', 4);
      await t.store.set('era', 'y', 0);
      expect(await era.until(2)).toEqual(['z', 'y']);
      expect(pins.keys).toEqual(['a', 'b', 'a']);
    },
  );

  it('has nothing at first', async () => {
    await using t = await make();
    expect(await t.store.get('era', 'a')).toBeUndefined();
    expect(await t.store.entries('era')).toEqual([]);
  });

  it('gives back what was set, as JSON', async () => {
    await using t = await make();
    const value = { s: 'é 😀 "q"', n: -1.5, big: 1e21, t: true, nil: null, list: [1, [2], {}] };
    await t.store.set('pins', 'fs', value);
    await t.store.set('pins', 'zero', 0);
    await t.store.set('pins', 'null', null);
    expect(await t.store.get('pins', 'fs')).toEqual(value);
    expect(await t.store.get('pins', 'zero')).toBe(0);
    expect(await t.store.get('pins', 'null')).toBeNull();
  });

  it('stores JSON forms: undefined members dropped, a Date as its ISO string', async () => {
    await using t = await make();
    await t.store.set('era', 'a', { when: new Date(0), gone: undefined, kept: 1 });
    expect(await t.store.get('era', 'a')).toStrictEqual({
      kept: 1,
      when: '1970-01-01T00:00:00.000Z',
    });
  });

  it('copies values in and out: mutating them never changes the store', async () => {
    await using t = await make();
    const value = { list: [1] };
    await t.store.set('era', 'a', value);
    value.list.push(2);
    const read = await t.store.get<{ list: number[] }>('era', 'a');
    read!.list.push(3);
    expect(await t.store.get('era', 'a')).toEqual({ list: [1] });
    const [[, entry]] = (await t.store.entries('era')) as [[string, { list: number[] }]];
    entry.list.push(4);
    expect(await t.store.get('era', 'a')).toEqual({ list: [1] });
  });

  it('keeps namespaces apart', async () => {
    await using t = await make();
    await t.store.set('era', 'k', 'era value');
    await t.store.set('pins', 'k', 'pin value');
    expect(await t.store.get('era', 'k')).toBe('era value');
    expect(await t.store.get('pins', 'k')).toBe('pin value');
    expect(await t.store.entries('tokens')).toEqual([]);
  });

  it('lists entries sorted by key (UTF-16 code units)', async () => {
    await using t = await make();
    for (const key of ['b', 'é', 'a', 'B', '10', '9']) await t.store.set('ns', key, key);
    expect((await t.store.entries('ns')).map(([key]) => key)).toEqual([
      '10',
      '9',
      'B',
      'a',
      'b',
      'é',
    ]);
  });

  it('takes keys that are special names in JavaScript objects', async () => {
    await using t = await make();
    await t.store.set('__proto__', '__proto__', { polluted: true });
    await t.store.set('ns', 'constructor', 1);
    expect(await t.store.get('__proto__', '__proto__')).toEqual({ polluted: true });
    expect(await t.store.get('ns', 'constructor')).toBe(1);
    expect(await t.store.get('ns', 'toString')).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('deletes with delete, with set(undefined) and with an update returning undefined', async () => {
    await using t = await make();
    await t.store.set('ns', 'a', 1);
    await t.store.set('ns', 'b', 2);
    await t.store.set('ns', 'c', 3);
    await t.store.delete('ns', 'a');
    await t.store.set('ns', 'b', undefined);
    expect(await t.store.update('ns', 'c', () => undefined)).toBeUndefined();
    await t.store.delete('ns', 'never-there');
    expect(await t.store.entries('ns')).toEqual([]);
    expect(await t.store.get('ns', 'c')).toBeUndefined();
  });

  it('update passes the current value and resolves to the value stored', async () => {
    await using t = await make();
    const seen: unknown[] = [];
    const first = await t.store.update<{ n: number }>('ns', 'k', (current) => {
      seen.push(current);
      return { n: (current?.n ?? 0) + 1 };
    });
    const second = await t.store.update<{ n: number; at?: Date }>('ns', 'k', (current) => {
      seen.push(structuredClone(current));
      return { n: current!.n + 1, at: new Date(0) };
    });
    expect(seen).toEqual([undefined, { n: 1 }]);
    expect(first).toEqual({ n: 1 });
    expect(second).toEqual({ n: 2, at: '1970-01-01T00:00:00.000Z' }); // as stored, not as given
    expect(await t.store.get('ns', 'k')).toEqual(second);
  });

  it('an update whose function throws changes nothing and passes the error on', async () => {
    await using t = await make();
    await t.store.set('ns', 'k', 1);
    const boom = new Error('boom');
    await expect(
      t.store.update('ns', 'k', () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await t.store.get('ns', 'k')).toBe(1);
  });

  it('runs concurrent updates one after another: none is lost', async () => {
    await using t = await make();
    const results = await Promise.all(
      Array.from({ length: 40 }, () =>
        t.store.update<number>('ns', 'counter', (n) => (n ?? 0) + 1),
      ),
    );
    expect(await t.store.get('ns', 'counter')).toBe(40);
    expect([...results].sort((a, b) => a! - b!)).toEqual(
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
  });

  it.each([
    ['NaN', NaN],
    ['a BigInt', 10n],
    ['a function', { f: () => 1 }],
    ['a Map', new Map()],
    [
      'a cycle',
      (() => {
        const o: Record<string, unknown> = {};
        o.o = o;
        return o;
      })(),
    ],
  ])('refuses %s as a value with INVALID_ARGUMENT and stores nothing', async (_label, value) => {
    await using t = await make();
    await t.store.set('ns', 'k', 'before');
    const error = await rejection(t.store.set('ns', 'k', value));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain("'ns/k'");
    expect((await rejection(t.store.update('ns', 'k', () => value))).code).toBe('INVALID_ARGUMENT');
    expect(await t.store.get('ns', 'k')).toBe('before');
  });

  it('refuses empty or non-string namespaces and keys, as a rejection', async () => {
    await using t = await make();
    const calls: Array<() => Promise<unknown>> = [
      () => t.store.get('', 'k'),
      () => t.store.get('ns', ''),
      () => t.store.set('ns', 7 as unknown as string, 1),
      () => t.store.delete(undefined as unknown as string, 'k'),
      () => t.store.update('ns', '', () => 1),
      () => t.store.entries(''),
    ];
    for (const call of calls) expect((await rejection(call())).code).toBe('INVALID_ARGUMENT');
  });

  it('refuses every operation after close (STATE_CLOSED); close is idempotent', async () => {
    await using t = await make();
    await t.store.set('ns', 'k', 1);
    await t.store.close();
    await t.store.close();
    const calls: Array<() => Promise<unknown>> = [
      () => t.store.get('ns', 'k'),
      () => t.store.set('ns', 'k', 2),
      () => t.store.delete('ns', 'k'),
      () => t.store.update('ns', 'k', () => 3),
      () => t.store.entries('ns'),
    ];
    for (const call of calls) expect((await rejection(call())).code).toBe('STATE_CLOSED');
  });
}
