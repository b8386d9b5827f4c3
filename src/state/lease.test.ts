/** The lease contract (test/helpers/lease-contract.ts) on both stores, plus what is file-only. */
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leaseContract, type LeaseStoreUnderTest } from '../../test/helpers/lease-contract.js';
import { tempDir } from '../../test/helpers/scratch.js';
import { now } from '../../test/helpers/timing.js';
import { FileStateStore } from './file-state-store.js';
import { MemoryStateStore } from './state-store.js';

function fileStore(): LeaseStoreUnderTest & { path: string } {
  const dir = tempDir();
  const path = join(dir.path, 'nested', 'state.json');
  const store = new FileStateStore({ path });
  return {
    store,
    path,
    [Symbol.asyncDispose]: async () => {
      await store.close();
      dir[Symbol.dispose]();
    },
  };
}

describe('MemoryStateStore leases', () => {
  leaseContract(() => {
    const store = new MemoryStateStore();
    return { store, [Symbol.asyncDispose]: () => store.close() };
  });
});

describe('FileStateStore leases', () => {
  leaseContract(fileStore);

  it('are shared by two stores on one file (as by two processes), and kept in the file', async () => {
    await using t = fileStore();
    await using other = new FileStateStore({ path: t.path });
    const lease = await t.store.lease('refresh', 'k', { ttlMs: 60_000 });
    const waiting = other.lease('refresh', 'k', { ttlMs: 60_000 });
    const file = JSON.parse(readFileSync(t.path, 'utf8')) as {
      leases: Record<string, Record<string, { generation: number; holder?: { pid: number } }>>;
    };
    expect(file.leases.refresh!.k).toMatchObject({ generation: 1, holder: { pid: process.pid } });
    await lease.release();
    const next = await waiting;
    expect(next.generation).toBe(2);
    await next.release();
    expect(statSync(t.path).mode & 0o777).toBe(0o600);
  });

  it('takes over at once from a holder that is a dead process on this host', async () => {
    await using t = fileStore();
    await t.store.set('x', 'y', 1); // creates the file
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const file = JSON.parse(readFileSync(t.path, 'utf8')) as Record<string, unknown>;
    file.leases = {
      refresh: {
        k: {
          generation: 7,
          holder: { token: 't', pid: dead, hostname: hostname(), expiresAt: Date.now() + 600_000 },
        },
      },
    };
    writeFileSync(t.path, JSON.stringify(file));
    const started = now();
    const lease = await t.store.lease('refresh', 'k', { ttlMs: 60_000, timeoutMs: 5_000 });
    expect(now() - started).toBeLessThan(5_000);
    expect(lease.generation).toBe(8);
    await lease.release();
  });

  it('waits for expiry when the holder is on another host (its pid cannot be checked)', async () => {
    await using t = fileStore();
    await t.store.set('x', 'y', 1);
    const file = JSON.parse(readFileSync(t.path, 'utf8')) as Record<string, unknown>;
    const expiresAt = Date.now() + 300;
    file.leases = {
      refresh: {
        k: {
          generation: 2,
          holder: { token: 't', pid: 1, hostname: 'elsewhere.invalid', expiresAt },
        },
      },
    };
    writeFileSync(t.path, JSON.stringify(file));
    const lease = await t.store.lease('refresh', 'k', { ttlMs: 60_000, timeoutMs: 10_000 });
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    expect(lease.generation).toBe(3);
    await lease.release();
  });

  it('treats a malformed leases member as free leases, and keeps values intact', async () => {
    await using t = fileStore();
    await t.store.set('x', 'y', 1);
    const file = JSON.parse(readFileSync(t.path, 'utf8')) as Record<string, unknown>;
    file.leases = { refresh: { k: 'junk', j: { holder: 5 } }, other: [] };
    writeFileSync(t.path, JSON.stringify(file));
    const lease = await t.store.lease('refresh', 'k', { ttlMs: 60_000, timeoutMs: 0 });
    expect(lease.generation).toBe(1);
    const j = await t.store.lease('refresh', 'j', { ttlMs: 60_000, timeoutMs: 0 });
    await Promise.all([lease.release(), j.release()]);
    expect(await t.store.get('x', 'y')).toBe(1);
  });

  it('close() releases the leases the store holds', async () => {
    await using t = fileStore();
    const lease = await t.store.lease('refresh', 'k', { ttlMs: 60_000 });
    await t.store.close();
    expect(lease.held).toBe(false);
    await using other = new FileStateStore({ path: t.path });
    const next = await other.lease('refresh', 'k', { ttlMs: 60_000, timeoutMs: 0 });
    expect(next.generation).toBe(2);
    await next.release();
  });
});
