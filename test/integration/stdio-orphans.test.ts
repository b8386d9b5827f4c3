/**
 * No orphans whatever ends the host (issue 13): a host process that connected a misbehaving server
 * through `McpHost` (default options, no signal handler) is ended by SIGKILL, by a terminal's
 * Ctrl-C (SIGINT to its whole process group) or by SIGTERM; no process of the server's tree may
 * be alive 6 s later. Only the orphan watchdog can do it: no exit hook runs in any of these.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { leakGuard, type LeakGuard } from '../helpers/leak-guard.js';
import {
  isOrphanWatchdog,
  readEnviron,
  runningDescendants,
  type ProcessEntry,
} from '../helpers/processes.js';
import { reportTiming } from '../helpers/timing.js';

const HOST = fileURLToPath(new URL('../fixtures/hosts/connects-then-waits.ts', import.meta.url));
const TREE_MARKER_ENV = 'MCP_HOST_TREE';
const GONE_WITHIN_MS = 6_000;

/** The fixture host's cases, with how many processes the server's tree has. */
const CASES = [
  { name: 'stubborn', processes: 1 }, // ignores stdin EOF and SIGTERM
  { name: 'sleep-grandchild', processes: 2 }, // leaves its `sleep` behind when it exits at EOF
  { name: 'npx-wrapper', processes: 2 }, // a wrapper forwarding no signal; the server ignores EOF
  { name: 'hung-initialize', processes: 1 }, // never answers initialize, ignores stdin EOF
];

const ENDINGS: { name: string; signal: NodeJS.Signals; end: (host: number) => void }[] = [
  { name: 'SIGKILL to the host', signal: 'SIGKILL', end: (host) => process.kill(host, 'SIGKILL') },
  {
    name: "Ctrl-C (SIGINT to the host's process group)",
    signal: 'SIGINT',
    end: (host) => process.kill(-host, 'SIGINT'),
  },
  {
    name: 'SIGTERM to the host, no handler installed',
    signal: 'SIGTERM',
    end: (host) => process.kill(host, 'SIGTERM'),
  },
  {
    name: "SIGKILL to the host's process group (kill -9 %1)",
    signal: 'SIGKILL',
    end: (host) => process.kill(-host, 'SIGKILL'),
  },
];

/** Polls /proc (these are not our children: no exit event to wait on) until none runs. */
async function goneWithin(guard: LeakGuard, ms: number): Promise<string[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const running = guard.members();
    if (running.length === 0 || Date.now() >= deadline)
      return running.map((p) => `${p.pid} (${p.command})`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

interface FixtureHost {
  pid: number;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  /** Running processes of the server's tree (they carry its marker). */
  tree: ProcessEntry[];
  watchdog: ProcessEntry;
  /** The host's next line on stdout (rejects if it exits first). */
  nextLine(): Promise<string>;
}

/**
 * Starts the fixture host with one server of `name`'s case, waits until the server is set up,
 * and has the guard track everything the host started (the server's tree, by pid and by marker,
 * which finds its members once re-parented; the watchdog; tsx's esbuild service when its cache
 * is cold): none of it may outlive the test.
 */
async function startHost(guard: LeakGuard, name: string): Promise<FixtureHost> {
  // Detached: the host leads its own process group, as a shell's foreground job does.
  const host = spawn(process.execPath, ['--import', 'tsx', HOST, name], {
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  guard.trackPid(host.pid);
  const exited = once(host, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const lines = createInterface({ input: host.stdout });
  const nextLine = async (): Promise<string> => {
    const [line] = (await Promise.race([
      once(lines, 'line'),
      exited.then((how) => Promise.reject(new Error(`the host ended early: ${String(how)}`))),
    ])) as [string];
    return line;
  };
  const ready = JSON.parse(await nextLine()) as {
    host: number;
    sigintListeners: number;
    sigtermListeners: number;
  };
  expect(ready).toEqual({ host: host.pid, sigintListeners: 0, sigtermListeners: 0 });

  const descendants = runningDescendants(host.pid!);
  const tree = descendants.filter((p) => readEnviron(p.pid)?.has(TREE_MARKER_ENV) === true);
  for (const p of descendants) guard.trackPid(p.pid);
  for (const p of tree) guard.trackMarker(readEnviron(p.pid)?.get(TREE_MARKER_ENV));
  const watchdogs = descendants.filter((p) => isOrphanWatchdog(p.pid));
  expect(watchdogs).toHaveLength(1);
  return { pid: host.pid!, exited, tree, watchdog: watchdogs[0]!, nextLine };
}

describe('a host that dies without closing its servers', () => {
  for (const { name, processes } of CASES) {
    for (const { name: ending, signal, end } of ENDINGS) {
      it(`leaves no process of a ${name} server's tree: ${ending}`, async () => {
        await using guard = leakGuard();
        const host = await startHost(guard, name);
        expect(host.tree).toHaveLength(processes);

        const start = Date.now();
        end(host.pid);
        expect(await host.exited).toEqual([null, signal]);

        expect(await goneWithin(guard, GONE_WITHIN_MS)).toEqual([]);
        reportTiming(`orphans of a ${name} server gone after ${ending}`, Date.now() - start);
      });
    }
  }

  it('has a watchdog that was killed replaced, still holding the server', async () => {
    await using guard = leakGuard();
    const host = await startHost(guard, 'stubborn');
    const first = host.watchdog.pid;

    // The host says when the new watchdog holds the server: killed before that line, the host
    // could take the server's group to nobody.
    const replaced = host.nextLine();
    process.kill(first, 'SIGKILL');
    const { watchdog: second } = JSON.parse(await replaced) as { watchdog: number };
    guard.trackPid(second);
    expect(second).not.toBe(first);
    expect(isOrphanWatchdog(second)).toBe(true);
    expect(runningDescendants(host.pid).map((p) => p.pid)).toContain(second);

    process.kill(host.pid, 'SIGKILL');
    expect(await host.exited).toEqual([null, 'SIGKILL']);
    expect(await goneWithin(guard, GONE_WITHIN_MS)).toEqual([]);
  });
});
