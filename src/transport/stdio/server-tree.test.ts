import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import { silentLogger, type Logger } from '../../internal/logger.js';
import { deferred } from '../../internal/wait.js';
import { OrphanWatchdog } from './orphan-watchdog.js';
import { ServerTree } from './server-tree.js';

/** A watchdog of its own, with a way to end it and wait until it is gone. */
function ownWatchdog(): { watchdog: OrphanWatchdog; logger: Logger; end: () => Promise<void> } {
  const ended = deferred<string>();
  const logger: Logger = { ...silentLogger, debug: (message) => ended.resolve(message) };
  const watchdog = new OrphanWatchdog();
  return {
    watchdog,
    logger,
    // Holding nothing, it says in a debug line that it ended, and is not started again.
    end: async () => {
      process.kill(watchdog.pid!, 'SIGKILL');
      await ended.promise;
    },
  };
}

/** A tree rooted at a `sleep` of its own process group, watched by a watchdog of its own. */
function watchedSleep(guard: ReturnType<typeof leakGuard>) {
  const { watchdog, logger, end } = ownWatchdog();
  const tree = new ServerTree({ watchdog, logger });
  const server = spawn('sleep', ['100'], { stdio: 'ignore', detached: true });
  guard.trackPid(server.pid);
  const exited = once(server, 'exit');
  tree.setRoot(server.pid!);
  guard.trackPid(watchdog.pid);
  return { watchdog, tree, server, exited, end };
}

describe.skipIf(process.platform === 'win32')('ServerTree and the orphan watchdog', () => {
  it('has the watchdog hold the group from setRoot() until release()', async () => {
    await using guard = leakGuard();
    const { watchdog, tree, server, exited, end } = watchedSleep(guard);
    expect(watchdog.groups).toEqual([server.pid]);

    tree.release();
    expect(watchdog.groups).toEqual([]);
    server.kill('SIGKILL');
    await exited;
    await end();
  });

  it('lets go of the group in killNow() (the exit hook): the group has SIGKILL pending', async () => {
    await using guard = leakGuard();
    const { watchdog, tree, exited, end } = watchedSleep(guard);

    tree.killNow();

    expect(watchdog.groups).toEqual([]);
    expect(await exited).toEqual([null, 'SIGKILL']);
    tree.release();
    await end();
  });

  it('gives every tree a marker of its own, shaped as a UUID, naming this process', () => {
    const markers = Array.from({ length: 1000 }, () => new ServerTree().marker);
    expect(new Set(markers).size).toBe(markers.length);
    const pid = process.pid.toString(16).padStart(8, '0');
    for (const marker of markers)
      expect(marker).toMatch(
        new RegExp(`^${pid}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`),
      );
  });
});
