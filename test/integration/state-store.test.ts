/**
 * Several real processes share one state file: every update is a read-modify-write under the file
 * lock, so none is lost; a holder that hangs makes the others time out with a typed error, and
 * once it is dead its lock is broken.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { McpHostError } from '../../src/index.js';
import { FileStateStore } from '../../src/node.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { nextLine, startWorker } from '../helpers/worker-process.js';
import { tempDir } from '../helpers/scratch.js';

const workerScript = fileURLToPath(new URL('../fixtures/state-worker.mjs', import.meta.url));

describe('FileStateStore shared by several processes', () => {
  it('loses no update: 4 processes × 50 increments of one key end at exactly 200', async () => {
    await using guard = leakGuard();
    using dir = tempDir();
    const path = join(dir.path, 'state.json');
    const workers = Array.from({ length: 4 }, () =>
      startWorker(guard, workerScript, [path, 'increment', '50']),
    );
    // Everyone loaded and waiting, then one start signal: the updates really overlap.
    for (const worker of workers) expect(await nextLine(worker)).toBe('ready');
    for (const worker of workers) worker.child.stdin.end('go\n');
    const results = await Promise.all(
      workers.map(async (worker) => {
        const result = JSON.parse(await nextLine(worker)) as { values: number[]; waits: number };
        await worker.exited;
        return result;
      }),
    );

    await using store = new FileStateStore({ path });
    expect(await store.get('test', 'counter')).toBe(200);
    // Each update saw the previous one: the values stored are 1..200, each exactly once.
    const values = results.flatMap((result) => result.values).sort((a, b) => a - b);
    expect(values).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    // And they did contend for the lock (otherwise this test would prove nothing).
    expect(results.reduce((sum, result) => sum + result.waits, 0)).toBeGreaterThan(0);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('times out on a lock held by a hung process, and breaks it once that process is dead', async () => {
    await using guard = leakGuard();
    using dir = tempDir();
    const path = join(dir.path, 'state.json');
    const holder = startWorker(guard, workerScript, [path, 'hold']);
    expect(await nextLine(holder)).toBe('holding');
    const lock = JSON.parse(readFileSync(`${path}.lock`, 'utf8')) as { pid: number };
    expect(lock.pid).toBe(holder.child.pid);

    await using store = new FileStateStore({ path, lockTimeoutMs: 200, staleLockMs: 60_000 });
    const error = await store.set('era', 'a', 1).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpHostError);
    expect(error).toMatchObject({
      code: 'STATE_LOCK_TIMEOUT',
      details: { path, lockPath: `${path}.lock`, holderPid: holder.child.pid },
    });
    expect((error as Error).message).toContain(`process ${holder.child.pid}`);
    // Reading takes no lock: still possible while the holder hangs.
    expect(await store.get('era', 'a')).toBeUndefined();

    holder.child.kill('SIGKILL');
    await holder.exited;
    // The lock is far younger than staleLockMs, but its process is dead: broken at once.
    await store.set('era', 'a', 1);
    expect(await store.get('era', 'a')).toBe(1);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });
});
