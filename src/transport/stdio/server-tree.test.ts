import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import { waitUntilGone } from '../../../test/helpers/processes.js';
import { silentLogger, type Logger } from '../../internal/logger.js';
import { deferred } from '../../internal/wait.js';
import { OrphanWatchdog } from './orphan-watchdog.js';
import { ServerTree, TREE_MARKER_ENV } from './server-tree.js';

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

  it.skipIf(process.platform !== 'linux')(
    'finds members born after an earlier snapshot, one that left the group and lost its parent too',
    async () => {
      await using guard = leakGuard();
      const tree = new ServerTree();
      // On its line: a child in its group, and (through a shell that has exited when the empty
      // line is printed) a grandchild in a session of its own, re-parented: only the tree's
      // marker still names it.
      const root = spawn(
        'sh',
        ['-c', "read _; sleep 100 & echo $!; sh -c 'setsid sleep 100 & echo $!'; echo; wait"],
        {
          stdio: ['pipe', 'pipe', 'ignore'],
          detached: true,
          env: { ...process.env, [TREE_MARKER_ENV]: tree.marker },
        },
      );
      guard.trackPid(root.pid);
      const exited = once(root, 'exit');
      tree.setRoot(root.pid!);
      // The first snapshot reads every process; none of the tree's but the root runs yet.
      expect(tree.snapshot()).toEqual([]);

      let output = '';
      root.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const printed = deferred<number[]>();
      root.stdout.on('data', () => {
        const lines = output.split('\n');
        if (lines.length > 3) printed.resolve(lines.slice(0, 2).map(Number));
      });
      root.stdin.end('go\n');
      const members = await printed.promise;
      for (const pid of members) guard.trackPid(pid);

      // The next snapshot reads only the processes started since: both are found.
      expect(tree.snapshot().sort()).toEqual([...members].sort());
      tree.signal('SIGKILL');
      expect(await exited).toEqual([null, 'SIGKILL']);
      expect(await waitUntilGone(members, 5000)).toEqual([]);
      expect(tree.snapshot()).toEqual([]);
      tree.release();
    },
  );
});
