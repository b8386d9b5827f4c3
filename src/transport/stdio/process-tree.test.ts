import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import { listProcesses, pidsWithEnvMarker, startTimeOf } from './process-tree.js';

describe.skipIf(process.platform !== 'linux')('pidsWithEnvMarker', () => {
  it('finds a marked process, and skips it when it started before the given start time', async () => {
    await using guard = leakGuard();
    const marker = `test-${process.pid}-${Date.now()}`;
    const child = spawn('sleep', ['30'], { env: { PATH: process.env.PATH, TEST_MARK: marker } });
    await once(child, 'spawn');
    guard.trackPid(child.pid);
    try {
      const started = startTimeOf(child.pid!);
      expect(started).toBeGreaterThan(0);
      const processes = listProcesses();
      expect(pidsWithEnvMarker('TEST_MARK', marker, processes)).toEqual([child.pid]);
      expect(pidsWithEnvMarker('TEST_MARK', marker, processes, started)).toEqual([child.pid]);
      // Started before the tree's root: it cannot have inherited the root's mark.
      expect(pidsWithEnvMarker('TEST_MARK', marker, processes, started! + 1)).toEqual([]);
      expect(pidsWithEnvMarker('TEST_MARK', 'another-mark', processes)).toEqual([]);
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  });

  it('finds the mark past a large environment, and still lists every process after', async () => {
    await using guard = leakGuard();
    const marker = `test-${process.pid}-${Date.now()}-large`;
    // 40 KB of environment before the mark: read in more than one piece (the reused buffer is 4 KiB).
    const env = { PATH: process.env.PATH, BULK: 'x'.repeat(40_000), TEST_MARK: marker };
    const child = spawn('sleep', ['30'], { env });
    await once(child, 'spawn');
    guard.trackPid(child.pid);
    try {
      const processes = listProcesses();
      expect(pidsWithEnvMarker('TEST_MARK', marker, processes)).toEqual([child.pid]);
      const again = listProcesses().find((p) => p.pid === child.pid);
      expect(again).toMatchObject({ pid: child.pid, ppid: process.pid, state: expect.any(String) });
      expect(again?.startTime).toBe(startTimeOf(child.pid!));
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  });
});

describe.skipIf(process.platform !== 'linux')('listProcesses', () => {
  it('reads the fields after a command name that holds spaces and parentheses', async () => {
    await using guard = leakGuard();
    // Its name, as `stat` shows it in parentheses (15 bytes at most): `123 (a) b (c) d) S 45 …`.
    const child = spawn(
      process.execPath,
      [
        '-e',
        "process.title = 'a) b (c) d'; process.stdout.write('ok'); setInterval(() => {}, 1000)",
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], detached: true },
    );
    guard.trackPid(child.pid);
    try {
      const [ready] = (await once(child.stdout, 'data')) as [Buffer];
      expect(ready.toString()).toBe('ok');
      const found = listProcesses().find((p) => p.pid === child.pid);
      // detached: it leads a process group of its own.
      expect(found).toMatchObject({ pid: child.pid, ppid: process.pid, pgid: child.pid });
      expect(found?.state).toMatch(/^[RS]$/);
      // Started after this process, in clock ticks since boot: the 20th field after the name.
      expect(found?.startTime).toBeGreaterThanOrEqual(startTimeOf(process.pid)!);
      expect(found?.startTime).toBe(startTimeOf(child.pid!));
      const self = listProcesses().find((p) => p.pid === process.pid);
      // Running, or sleeping where the test runs in a worker thread (stat is the main thread's).
      expect(self).toMatchObject({ ppid: process.ppid, state: expect.stringMatching(/^[RS]$/) });
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  });
});

describe.skipIf(process.platform !== 'linux')('isAlive', () => {
  it('on a Node without process.getBuiltinModule, calls a live process alive before node:fs has loaded', async () => {
    await using guard = leakGuard();
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    await once(child, 'spawn');
    guard.trackPid(child.pid);
    // A fresh copy of the module and of what it loads, on a Node without getBuiltinModule (it
    // answers nothing: the same path).
    vi.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined);
    try {
      vi.resetModules();
      const tree = await import('./process-tree.js');
      const { whenBuiltin } = await import('../../internal/builtin.js');
      // node:fs is still being imported, so /proc cannot be read: kill(0)'s answer stands.
      expect(tree.isAlive(child.pid!)).toBe(true);
      await whenBuiltin('node:fs');
      // Read from /proc now: running, then gone once it has exited.
      expect(tree.isAlive(child.pid!)).toBe(true);
      child.kill('SIGKILL');
      await once(child, 'exit');
      expect(tree.isAlive(child.pid!)).toBe(false);
    } finally {
      vi.restoreAllMocks();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    }
  });
});
