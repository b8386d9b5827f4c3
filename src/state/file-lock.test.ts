import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { tempDir } from '../../test/helpers/scratch.js';
import { silentLogger } from '../internal/logger.js';
import { acquireFileLock, isProcessAlive } from './file-lock.js';

describe('acquireFileLock', () => {
  it('gives the lock to one holder at a time, even when all start by breaking a dead lock', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const options = {
      timeoutMs: 10_000,
      staleMs: 60_000,
      logger: silentLogger,
      guardedPath: join(dir.path, 'state.json'),
    };
    // The race this guards against (a second breaker removing the lock the first one just took)
    // needs an unlucky interleaving: several rounds of 16 contenders make it show up reliably
    // when breaking is done naively (remove whatever lock is there), which this test then fails.
    for (let round = 0; round < 30; round++) {
      const lockPath = join(dir.path, `round-${round}.lock`);
      writeFileSync(
        lockPath,
        JSON.stringify({ pid: dead, hostname: hostname(), createdAt: Date.now(), token: 'dead' }),
      );
      let inside = 0;
      let maxInside = 0;
      let entries = 0;
      // No in-process queue here: the contenders race on the file system alone.
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          const lock = await acquireFileLock(lockPath, options);
          inside++;
          entries++;
          maxInside = Math.max(maxInside, inside);
          // Hold it for a few file-system round trips, giving the others every chance to get in.
          for (let i = 0; i < 3; i++) await readFile(lockPath);
          inside--;
          await lock.release();
        }),
      );
      expect(entries).toBe(16);
      expect(maxInside).toBe(1);
    }
    expect(readdirSync(dir.path)).toEqual([]);
  }, 60_000);

  it('release is idempotent and leaves a lock that is no longer ours alone', async () => {
    using dir = tempDir();
    const lockPath = join(dir.path, 'x.lock');
    const options = {
      timeoutMs: 0,
      staleMs: 60_000,
      logger: silentLogger,
      guardedPath: join(dir.path, 'x'),
    };
    const lock = await acquireFileLock(lockPath, options);
    // Someone broke it (we held it too long) and took it: our release must not remove theirs.
    writeFileSync(
      lockPath,
      JSON.stringify({ pid: 1, hostname: 'h', createdAt: 0, token: 'theirs' }),
    );
    await lock.release();
    await lock.release();
    expect(readdirSync(dir.path)).toEqual(['x.lock']);
  });
});

describe('isProcessAlive', () => {
  it('knows this process is alive and an exited one is not', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(spawnSync(process.execPath, ['-e', '']).pid)).toBe(false);
    expect(isProcessAlive(0)).toBe(false);
    expect(isProcessAlive(-1)).toBe(false);
  });
});
