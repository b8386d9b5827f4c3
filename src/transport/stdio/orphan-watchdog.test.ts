import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import { isOrphanWatchdog, isRunning } from '../../../test/helpers/processes.js';
import type { Logger } from '../../internal/logger.js';
import { deferred } from '../../internal/wait.js';
import {
  OrphanWatchdog,
  orphanWatchdog,
  ORPHAN_WATCHDOG_NAME,
  ORPHAN_WATCHDOG_SCRIPT,
} from './orphan-watchdog.js';
import { StdioTransport } from './stdio-transport.js';

type Exit = [code: number | null, signal: NodeJS.Signals | null];

/** The watchdog's script run by `/bin/sh` as the host runs it, with `prelude` first. */
function runScript(
  prelude = '',
  script = ORPHAN_WATCHDOG_SCRIPT,
): ChildProcess & {
  exited: Promise<Exit>;
} {
  const child = spawn('/bin/sh', ['-c', prelude + script, ORPHAN_WATCHDOG_NAME], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return Object.assign(child, { exited: once(child, 'exit') as Promise<Exit> });
}

/**
 * A process leading its own group, as a server is spawned; `ignoreTerm` makes it ignore SIGTERM.
 * Resolves once the shell has run its trap (it says so), so a signal can never come before it.
 */
async function group(ignoreTerm = false): Promise<ChildProcess & { exited: Promise<Exit> }> {
  const script = `${ignoreTerm ? "trap '' TERM; " : ''}echo ready; exec sleep 100`;
  const child = spawn('/bin/sh', ['-c', script], {
    stdio: ['ignore', 'pipe', 'ignore'],
    detached: true,
  });
  const exited = once(child, 'exit') as Promise<Exit>;
  await once(child.stdout, 'data');
  child.stdout.destroy();
  return Object.assign(child, { exited });
}

const quietLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

describe.skipIf(process.platform === 'win32')('the orphan watchdog script', () => {
  it('kills the groups it holds when its stdin ends, and not those released', async () => {
    await using guard = leakGuard();
    const [held, released] = [await group(), await group()];
    guard.trackPid(held.pid);
    guard.trackPid(released.pid);
    const watchdog = runScript();
    guard.trackPid(watchdog.pid);

    watchdog.stdin!.end(`+ ${held.pid}\n+ ${released.pid}\n- ${released.pid}\n`);

    expect(await held.exited).toEqual([null, 'SIGTERM']);
    expect(await watchdog.exited).toEqual([0, null]);
    expect(released.exitCode).toBeNull(); // still running
    released.kill('SIGKILL');
    await released.exited;
  });

  it('survives SIGINT, SIGTERM, SIGHUP and SIGQUIT while the host lives', async () => {
    await using guard = leakGuard();
    const held = await group();
    guard.trackPid(held.pid);
    // The script, saying on stdout once its first line (the traps) has run.
    const [traps, ...rest] = ORPHAN_WATCHDOG_SCRIPT.split('\n');
    expect(traps).toMatch(/^trap '' /);
    const watchdog = runScript('', [traps, 'echo armed', ...rest].join('\n'));
    guard.trackPid(watchdog.pid);
    watchdog.stdin!.write(`+ ${held.pid}\n`);
    await once(watchdog.stdout!, 'data');
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const) watchdog.kill(signal);

    watchdog.stdin!.end();
    // Had a signal ended it, the watchdog would exit first and the group would be left running.
    const first = await Promise.race([
      held.exited.then((exit) => ({ held: exit })),
      watchdog.exited.then((exit) => ({ watchdog: exit })),
    ]);
    expect(first).toEqual({ held: [null, 'SIGTERM'] });
    expect(await watchdog.exited).toEqual([0, null]);
  });

  it('sends SIGKILL a second after SIGTERM to a group that ignores SIGTERM', async () => {
    await using guard = leakGuard();
    const stubborn = await group(true);
    guard.trackPid(stubborn.pid);
    const watchdog = runScript();
    guard.trackPid(watchdog.pid);

    watchdog.stdin!.end(`+ ${stubborn.pid}\n`);

    expect(await stubborn.exited).toEqual([null, 'SIGKILL']);
    expect(await watchdog.exited).toEqual([0, null]);
  });

  it('never signals group 0 or 1, or anything but a group id', async () => {
    await using guard = leakGuard();
    // `kill` and `sleep` replaced by functions that say what they were asked: nothing is sent.
    const watchdog = runScript('kill() { echo "kill $*"; }; sleep() { echo "sleep $*"; }\n');
    guard.trackPid(watchdog.pid);
    let output = '';
    watchdog.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));

    watchdog.stdin!.end(
      [
        '+ 0',
        '+ 1',
        '+ -7',
        '+ 07',
        '+ 1e3',
        '+',
        '+ 12 13',
        '* 44',
        '+ 42',
        '+ 43',
        '- 43',
        '',
      ].join('\n'),
    );

    expect(await watchdog.exited).toEqual([0, null]);
    expect(output).toBe('kill -s TERM -- -42\nsleep 1\nkill -s KILL -- -42\n');
  });

  it('exits at once when its stdin ends holding nothing', async () => {
    await using guard = leakGuard();
    const watchdog = runScript('sleep() { echo "sleep $*"; }\n');
    guard.trackPid(watchdog.pid);
    let output = '';
    watchdog.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    watchdog.stdin!.end('+ 42\n- 42\n');
    expect(await watchdog.exited).toEqual([0, null]);
    expect(output).toBe('');
  });
});

describe.skipIf(process.platform === 'win32')('OrphanWatchdog', () => {
  it('starts on first need, holds and releases groups, and is started again if it dies', async () => {
    await using guard = leakGuard();
    const replaced = deferred<string>();
    const ended = deferred<string>();
    const logger: Logger = {
      ...quietLogger,
      warn: (message) => replaced.resolve(message),
      debug: (message) => ended.resolve(message),
    };
    const watchdog = new OrphanWatchdog();
    expect(watchdog.pid).toBeUndefined();

    watchdog.start(logger);
    const first = watchdog.pid;
    expect(first).toBeGreaterThan(0);
    guard.trackPid(first);
    watchdog.hold(4242, logger);
    watchdog.hold(4343, logger);
    watchdog.hold(1, logger); // never
    watchdog.release(4343);
    expect(watchdog.groups).toEqual([4242]);

    process.kill(first!, 'SIGKILL');
    const said = await replaced.promise;
    const second = watchdog.pid;
    expect(said).toBe(
      `the orphan watchdog (pid ${first}) was killed by SIGKILL; a new one (pid ${second}) holds 1 server(s)`,
    );
    expect(second).toBeGreaterThan(0);
    expect(second).not.toBe(first);
    guard.trackPid(second);

    // Holding nothing, a watchdog that dies is not replaced until it is needed.
    watchdog.release(4242);
    process.kill(second!, 'SIGKILL');
    expect(await ended.promise).toBe(`the orphan watchdog (pid ${second}) was killed by SIGKILL`);
    expect(watchdog.pid).toBeUndefined();
  });
});

describe.skipIf(process.platform === 'win32')('StdioTransport and the watchdog', () => {
  /** A server that exits at stdin EOF. */
  const server = { command: process.execPath, args: ['-e', 'process.stdin.resume()'] };

  it("has this process's watchdog hold the server's group until its tree is gone", async () => {
    await using guard = leakGuard();
    const transport = new StdioTransport(server);
    await transport.start();
    const pid = transport.pid!;
    guard.trackPid(pid);
    const watchdog = orphanWatchdog();

    expect(watchdog.groups).toContain(pid);
    expect(isOrphanWatchdog(watchdog.pid!)).toBe(true);
    expect(isRunning(watchdog.pid!)).toBe(true);

    await transport.close();
    expect(watchdog.groups).not.toContain(pid);
  });

  it('leaves the server out with watchdog: false', async () => {
    await using guard = leakGuard();
    const transport = new StdioTransport({ ...server, watchdog: false });
    await transport.start();
    guard.trackPid(transport.pid);
    expect(orphanWatchdog().groups).not.toContain(transport.pid);
    await transport.close();
  });
});
