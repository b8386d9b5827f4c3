import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import { silentLogger } from '../../internal/logger.js';
import { OrphanWatchdog } from './orphan-watchdog.js';
import { ServerTree } from './server-tree.js';

describe.skipIf(process.platform === 'win32')('ServerTree and the orphan watchdog', () => {
  it('has the watchdog hold the group from setRoot() until release()', async () => {
    await using guard = leakGuard();
    const watchdog = new OrphanWatchdog();
    const tree = new ServerTree({ watchdog, logger: silentLogger });
    const server = spawn('sleep', ['100'], { stdio: 'ignore', detached: true });
    guard.trackPid(server.pid);
    const exited = once(server, 'exit');
    tree.setRoot(server.pid!);
    guard.trackPid(watchdog.pid);
    expect(watchdog.groups).toEqual([server.pid]);

    tree.release();
    expect(watchdog.groups).toEqual([]);
    server.kill('SIGKILL');
    await exited;
    process.kill(watchdog.pid!, 'SIGKILL');
  });

  it('lets go of the group in killNow() (the exit hook): the group has SIGKILL pending', async () => {
    await using guard = leakGuard();
    const watchdog = new OrphanWatchdog();
    const tree = new ServerTree({ watchdog, logger: silentLogger });
    const server = spawn('sleep', ['100'], { stdio: 'ignore', detached: true });
    guard.trackPid(server.pid);
    const exited = once(server, 'exit');
    tree.setRoot(server.pid!);
    guard.trackPid(watchdog.pid);

    tree.killNow();

    expect(watchdog.groups).toEqual([]);
    expect(await exited).toEqual([null, 'SIGKILL']);
    tree.release();
    process.kill(watchdog.pid!, 'SIGKILL');
  });
});
