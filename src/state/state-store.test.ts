/** The store contract (test/helpers/state-store-contract.ts) on MemoryStateStore and FileStateStore. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/scratch.js';
import { FileStateStore } from './file-state-store.js';
import { MemoryStateStore } from './state-store.js';
import {
  stateStoreContract,
  type StoreUnderTest,
} from '../../test/helpers/state-store-contract.js';

const kinds: Array<[string, () => StoreUnderTest]> = [
  [
    'MemoryStateStore',
    () => {
      const store = new MemoryStateStore();
      return { store, [Symbol.asyncDispose]: () => store.close() };
    },
  ],
  [
    'FileStateStore',
    () => {
      const dir = tempDir();
      const store = new FileStateStore({ path: join(dir.path, 'nested', 'state.json') });
      return {
        store,
        [Symbol.asyncDispose]: async () => {
          await store.close();
          dir[Symbol.dispose]();
        },
      };
    },
  ],
];

describe.each(kinds)('%s', (kind, make) => {
  stateStoreContract(make, { watch: kind === 'MemoryStateStore' });
});

describe('MemoryStateStore.watch', () => {
  it('tells each watcher of its namespace the key after every write, never inside it', async () => {
    const store = new MemoryStateStore();
    const seen: string[] = [];
    const other: string[] = [];
    const watching = store.watch('pins', (key) => seen.push(key));
    using _other = store.watch('era', (key) => other.push(key));
    store.watch('pins', () => {
      throw new Error('a failing watcher');
    });
    const written = store.set('pins', 'a', 1);
    expect(seen).toEqual([]);
    await written;
    await store.update('pins', 'b', () => 2);
    await store.delete('pins', 'a');
    await expect(store.update('pins', 'c', () => Symbol('no JSON'))).rejects.toThrow();
    await Promise.resolve();
    expect(seen).toEqual(['a', 'b', 'a']);
    expect(other).toEqual([]);
    watching[Symbol.dispose]();
    await store.set('pins', 'd', 4);
    await Promise.resolve();
    expect(seen).toEqual(['a', 'b', 'a']);
    await store.close();
  });
});
