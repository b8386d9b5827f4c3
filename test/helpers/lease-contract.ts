/**
 * The lease contract every `StateStore` with `lease()` keeps, as a reusable suite: call
 * `leaseContract(make)` inside a `describe` with a factory for a fresh, empty store (the
 * PostgreSQL store runs the same cases). Timing bounds are generous; nothing sleeps.
 */
import { expect, it } from 'vitest';
import type { Lease } from '../../src/state/lease.js';
import type { StateStore } from '../../src/state/state-store.js';
import { now } from './timing.js';
import { rejection } from './peer-harness.js';

export interface LeaseStoreUnderTest extends AsyncDisposable {
  store: StateStore & { lease: NonNullable<StateStore['lease']>; close(): Promise<void> };
}

export function leaseContract(
  make: () => LeaseStoreUnderTest | Promise<LeaseStoreUnderTest>,
): void {
  it('grants a free lease at once, with generation 1, then one more at each grant', async () => {
    await using t = await make();
    const before = Date.now();
    const first = await t.store.lease('refresh', 'k', { ttlMs: 60_000 });
    expect(first.generation).toBe(1);
    expect(first.held).toBe(true);
    expect(first.signal.aborted).toBe(false);
    expect(first.expiresAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(first.expiresAt).toBeLessThanOrEqual(Date.now() + 60_000);
    await first.release();
    expect(first.held).toBe(false);
    expect(first.signal.aborted).toBe(true);
    await first.release(); // idempotent
    const second = await t.store.lease('refresh', 'k', { ttlMs: 60_000 });
    expect(second.generation).toBe(2);
    await second.release();
    {
      await using third = await t.store.lease('refresh', 'k', { ttlMs: 60_000 });
      expect(third.generation).toBe(3);
    }
    // `await using` released it: the next grant is immediate.
    const fourth = await t.store.lease('refresh', 'k', { ttlMs: 60_000, timeoutMs: 0 });
    expect(fourth.generation).toBe(4);
    await fourth.release();
  });

  it('is exclusive: a waiter gets the lease when the holder releases it, not before', async () => {
    await using t = await make();
    const holder = await t.store.lease('refresh', 'k', { ttlMs: 60_000 });
    let releasedAt = Infinity;
    const waiting = t.store.lease('refresh', 'k', { ttlMs: 60_000 }).then((lease) => {
      expect(now()).toBeGreaterThanOrEqual(releasedAt);
      return lease;
    });
    // Give the waiter a chance to (wrongly) get it: a few of its polls.
    const early = await Promise.race([
      waiting.then(() => 'granted'),
      t.store.lease('refresh', 'k', { ttlMs: 1, timeoutMs: 50 }).then(
        () => 'granted to the third',
        () => 'still held',
      ),
    ]);
    expect(early).toBe('still held');
    releasedAt = now();
    await holder.release();
    const next = await waiting;
    expect(next.generation).toBe(2);
    // Woken by the release, not by the expiry a minute away.
    expect(now() - releasedAt).toBeLessThan(5_000);
    await next.release();
  });

  it('never lets two of 20 concurrent takers hold it at once; generations 1..20', async () => {
    await using t = await make();
    let holding = 0;
    let maxHolding = 0;
    const generations: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        const lease = await t.store.lease('refresh', 'k', { ttlMs: 60_000 });
        holding++;
        maxHolding = Math.max(maxHolding, holding);
        generations.push(lease.generation);
        // Hold it for a while, as a network request would (work, not a wait for an event).
        await new Promise((resolve) => setTimeout(resolve, 20));
        holding--;
        await lease.release();
      }),
    );
    expect(maxHolding).toBe(1);
    expect(generations).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('expires after ttlMs when its holder never releases it: the next taker gets it then', async () => {
    await using t = await make();
    const ttlMs = 300;
    const holder = await t.store.lease('refresh', 'k', { ttlMs });
    const started = now();
    const next = await t.store.lease('refresh', 'k', { ttlMs: 60_000 });
    const waited = now() - started;
    expect(next.generation).toBe(2);
    expect(waited).toBeGreaterThanOrEqual(ttlMs - 50); // not before (the clock's granularity aside)
    expect(waited).toBeLessThan(ttlMs + 5_000);
    // The old holder's signal said so, and its late release leaves the new holder alone.
    expect(holder.signal.aborted).toBe(true);
    expect(holder.held).toBe(false);
    await holder.release();
    expect(next.held).toBe(true);
    await rejection(t.store.lease('refresh', 'k', { ttlMs: 1, timeoutMs: 30 }));
    await next.release();
  });

  it('keeps leases apart from values and from each other', async () => {
    await using t = await make();
    await t.store.set('refresh', 'k', { value: 1 });
    const a = await t.store.lease('refresh', 'k', { ttlMs: 60_000 });
    const b = await t.store.lease('refresh', 'other', { ttlMs: 60_000, timeoutMs: 0 });
    const c = await t.store.lease('elsewhere', 'k', { ttlMs: 60_000, timeoutMs: 0 });
    expect([a.generation, b.generation, c.generation]).toEqual([1, 1, 1]);
    expect(await t.store.get('refresh', 'k')).toEqual({ value: 1 });
    expect(await t.store.entries('refresh')).toEqual([['k', { value: 1 }]]);
    await t.store.set('refresh', 'k', { value: 2 }); // values change under a held lease
    expect(await t.store.get('refresh', 'k')).toEqual({ value: 2 });
    await Promise.all([a.release(), b.release(), c.release()]);
  });

  it('fails a wait with STATE_LOCK_TIMEOUT after timeoutMs', async () => {
    await using t = await make();
    const holder = await t.store.lease('refresh', 'k', { ttlMs: 60_000 });
    const started = now();
    const error = await rejection(t.store.lease('refresh', 'k', { ttlMs: 1000, timeoutMs: 100 }));
    expect(now() - started).toBeGreaterThanOrEqual(90);
    expect(now() - started).toBeLessThan(5_000);
    expect(error.code).toBe('STATE_LOCK_TIMEOUT');
    expect(error.message).toContain("'refresh/k'");
    expect(error.details).toMatchObject({ namespace: 'refresh', key: 'k', leaseTimeoutMs: 100 });
    await holder.release();
  });

  it('stops waiting with ABORTED when the signal aborts, the reason as cause', async () => {
    await using t = await make();
    const holder = await t.store.lease('refresh', 'k', { ttlMs: 60_000 });
    const controller = new AbortController();
    const waiting = t.store.lease('refresh', 'k', { ttlMs: 1000, signal: controller.signal });
    const reason = new Error('caller gave up');
    controller.abort(reason);
    const error = await rejection(waiting);
    expect(error.code).toBe('ABORTED');
    expect(error.cause).toBe(reason);
    const already = await rejection(
      t.store.lease('other', 'k', { ttlMs: 1, signal: controller.signal }),
    );
    expect(already.code).toBe('ABORTED');
    await holder.release();
    // The abandoned wait took nothing: the lease is free.
    const next = await t.store.lease('refresh', 'k', { ttlMs: 1000, timeoutMs: 0 });
    await next.release();
  });

  it('refuses bad names and options with INVALID_ARGUMENT', async () => {
    await using t = await make();
    for (const ttlMs of [0, -1, Number.NaN, Infinity])
      expect((await rejection(t.store.lease('refresh', 'k', { ttlMs }))).code).toBe(
        'INVALID_ARGUMENT',
      );
    expect((await rejection(t.store.lease('', 'k', { ttlMs: 1 }))).code).toBe('INVALID_ARGUMENT');
    expect((await rejection(t.store.lease('refresh', '', { ttlMs: 1 }))).code).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('on close, fails waiters and later calls with STATE_CLOSED', async () => {
    await using t = await make();
    const holder: Lease = await t.store.lease('refresh', 'k', { ttlMs: 60_000 });
    const waiting = rejection(t.store.lease('refresh', 'k', { ttlMs: 1000 }));
    const started = now();
    await t.store.close();
    expect((await waiting).code).toBe('STATE_CLOSED');
    expect(now() - started).toBeLessThan(5_000);
    expect((await rejection(t.store.lease('refresh', 'k', { ttlMs: 1 }))).code).toBe(
      'STATE_CLOSED',
    );
    await holder.release();
  });
}
