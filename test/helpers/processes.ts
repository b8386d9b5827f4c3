/**
 * The process table as /proc shows it (Linux), read independently of the code under test. A
 * zombie (`Z`) counts as dead: PID 1 here does not always reap re-parented orphans.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessEntry {
  pid: number;
  ppid: number;
  pgid: number;
  /** One letter: R, S, D, Z, T, … */
  state: string;
  command: string;
}

export function readProcess(pid: number): ProcessEntry | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses.
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  const [state = '?', ppid, pgid] = stat.slice(close + 2).split(' ');
  return {
    pid,
    ppid: Number(ppid),
    pgid: Number(pgid),
    state,
    command: stat.slice(open + 1, close),
  };
}

export function listProcesses(): ProcessEntry[] {
  const list: ProcessEntry[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProcess(Number(entry));
    if (info !== undefined) list.push(info);
  }
  return list;
}

/** Whether `pid` exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  const info = readProcess(pid);
  return info !== undefined && info.state !== 'Z' && info.state !== 'X';
}

/** The environment a process was started with, or undefined when it is gone. */
export function readEnviron(pid: number): Map<string, string> | undefined {
  let raw: string;
  try {
    raw = readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return undefined;
  }
  const env = new Map<string, string>();
  for (const entry of raw.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return env;
}

/** A process's arguments (`argv`), or undefined when it is gone. */
export function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return undefined;
  }
}

/**
 * Whether `pid` is mcp-host's orphan watchdog: `sh -c <script> mcp-host-watchdog`, one per process
 * that spawned a stdio server, living as long as that process.
 */
export function isOrphanWatchdog(pid: number): boolean {
  const argv = commandLine(pid);
  return argv?.[1] === '-c' && argv[3] === 'mcp-host-watchdog';
}

/** Running descendants of `rootPid`, found through parent links. */
export function runningDescendants(rootPid: number, processes = listProcesses()): ProcessEntry[] {
  const found: ProcessEntry[] = [];
  const roots = new Set([rootPid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of processes) {
      if (roots.has(p.ppid) && !roots.has(p.pid)) {
        roots.add(p.pid);
        if (p.state !== 'Z' && p.state !== 'X') found.push(p);
        grew = true;
      }
    }
  }
  return found;
}

/** Running processes whose environment holds `name=value`. */
export function runningWithEnv(
  name: string,
  value: string,
  processes = listProcesses(),
): ProcessEntry[] {
  return processes.filter(
    (p) => p.pid !== process.pid && p.state !== 'Z' && readEnviron(p.pid)?.get(name) === value,
  );
}

/**
 * Waits until none of `pids` runs, up to `timeoutMs`; returns those still running. Only for
 * processes that are not our children (killed from another process's exit hook, say): for those
 * there is no exit event to wait on, so /proc is polled.
 */
export async function waitUntilGone(pids: readonly number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const running = pids.filter(isRunning);
    if (running.length === 0 || Date.now() >= deadline) return running;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
