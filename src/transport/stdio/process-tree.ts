import { execFileSync } from 'node:child_process';
import type * as Fs from 'node:fs';
import { builtin } from '../../internal/builtin.js';

/** One process as the operating system lists it. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** One-letter state (`Z` for a zombie). */
  state: string;
  /** When it started, in clock ticks since boot (Linux only). */
  startTime?: number;
}

const hasProc = process.platform === 'linux';

/**
 * Every process of the machine, synchronously (so it also works in an exit hook): `/proc` on
 * Linux, `ps` elsewhere on POSIX, nothing on Windows (where `taskkill /T` walks the tree).
 */
export function listProcesses(): ProcessInfo[] {
  // On Linux: every process /proc lists, as a scan that has seen none.
  if (hasProc) return newProcesses(new Set());
  if (process.platform === 'win32') return [];
  try {
    const out = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,pgid=,stat='], {
      encoding: 'utf8',
      timeout: 2000,
    });
    const list: ProcessInfo[] = [];
    for (const line of out.split('\n')) {
      const [pid, ppid, pgid, state] = line.trim().split(/\s+/);
      if (pid !== undefined && ppid !== undefined && pgid !== undefined) {
        list.push({
          pid: Number(pid),
          ppid: Number(ppid),
          pgid: Number(pgid),
          state: state?.[0] ?? '?',
        });
      }
    }
    return list;
  } catch {
    return [];
  }
}

/**
 * The processes started since the last call given the same `seen`, which is then every process
 * running now and read: a process that exits leaves it (so its id, if reused, reads as new). For
 * repeated scans of one tree: each process is read once (on Linux, a `/proc` listing and the new
 * ones' `stat`, instead of every process's).
 */
export function newProcesses(seen: Set<number>): ProcessInfo[] {
  if (!hasProc) {
    const all = listProcesses();
    const fresh = all.filter((p) => !seen.has(p.pid));
    seen.clear();
    for (const p of all) seen.add(p.pid);
    return fresh;
  }
  const fs = procFs();
  if (fs === undefined) return [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const running = new Set<number>();
  const fresh: ProcessInfo[] = [];
  for (const entry of entries) {
    const code = entry.charCodeAt(0);
    if (code < 48 || code > 57) continue;
    const pid = Number(entry);
    if (seen.has(pid)) {
      running.add(pid);
      continue;
    }
    // One that cannot be read (gone, or hidden) is tried again next time.
    const info = readProcStat(pid);
    if (info === undefined) continue;
    running.add(pid);
    fresh.push(info);
  }
  seen.clear();
  for (const pid of running) seen.add(pid);
  return fresh;
}

/** The buffer `readProcFile` reads into, kept between reads (a larger one is not kept). */
const PROC_BUFFER_BYTES = 4096;
let procBuffer: Buffer | undefined;

/**
 * `node:fs`, to read `/proc` with: undefined off Linux, or while an older Node still imports it
 * (see internal/builtin.ts; a read then finds nothing, and the next one reads again).
 */
function procFs(): typeof Fs | undefined {
  return hasProc ? builtin<typeof Fs>('node:fs') : undefined;
}

/**
 * A file of /proc, read into one reused buffer: the bytes are valid until the next read. The
 * size of these files reads as 0, so `readFileSync` allocated 64 KiB for each, and a tree's
 * snapshot, which reads every process's `stat`, spent half its time allocating.
 */
function readProcFile(path: string): Buffer {
  const fs = procFs();
  if (fs === undefined) throw new Error('node:fs is not loaded yet');
  const fd = fs.openSync(path, 'r');
  try {
    let buffer = (procBuffer ??= Buffer.allocUnsafe(PROC_BUFFER_BYTES));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        const larger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(larger, 0, 0, length);
        buffer = larger;
      }
      const read = fs.readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) return buffer.subarray(0, length);
      length += read;
    }
  } finally {
    fs.closeSync(fd);
  }
}

function readProcStat(pid: number): ProcessInfo | undefined {
  try {
    const stat = readProcFile(`/proc/${pid}/stat`).toString('latin1');
    // The command name is in parentheses and may itself hold spaces or parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      pid,
      state: fields[0] ?? '?',
      ppid: Number(fields[1]),
      pgid: Number(fields[2]),
      startTime: Number(fields[19]),
    };
  } catch {
    return undefined;
  }
}

/**
 * All descendants of `ancestors` (children, grandchildren, …) in `processes`, the ancestors
 * themselves excepted.
 */
export function descendantsOf(
  ancestors: Iterable<number>,
  processes: readonly ProcessInfo[],
): number[] {
  const children = new Map<number, number[]>();
  for (const p of processes) {
    const list = children.get(p.ppid);
    if (list === undefined) children.set(p.ppid, [p.pid]);
    else list.push(p.pid);
  }
  const found: number[] = [];
  const queue = [...ancestors];
  const seen = new Set(queue);
  while (queue.length > 0) {
    const next = children.get(queue.pop()!) ?? [];
    for (const pid of next) {
      if (seen.has(pid)) continue;
      seen.add(pid);
      found.push(pid);
      queue.push(pid);
    }
  }
  return found;
}

/** One process's start time, in clock ticks since boot (Linux only). */
export function startTimeOf(pid: number): number | undefined {
  return hasProc ? readProcStat(pid)?.startTime : undefined;
}

/**
 * Processes whose environment holds `NAME=value` (Linux only). A server tree is marked this way so
 * that descendants that were re-parented (their parent exited) and left the process group are
 * still found. Only processes started at or after `since` (clock ticks since boot: the tree's
 * root's start) are read, as only those can have inherited the mark; reading every process's
 * environment is what costs, and a busy machine has hundreds.
 */
export function pidsWithEnvMarker(
  name: string,
  value: string,
  processes: readonly ProcessInfo[],
  since = 0,
): number[] {
  if (!hasProc) return [];
  const needle = Buffer.from(`${name}=${value}`);
  const found: number[] = [];
  for (const p of processes) {
    if (p.pid === process.pid || p.state === 'Z' || (p.startTime ?? since) < since) continue;
    try {
      if (readProcFile(`/proc/${p.pid}/environ`).includes(needle)) found.push(p.pid);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/** Whether `pid` is a running process (a zombie counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // Without /proc at hand, kill(0)'s answer stands: not "gone" because it cannot be read yet.
  if (procFs() === undefined) return true;
  const info = readProcStat(pid);
  return info !== undefined && info.state !== 'Z' && info.state !== 'X';
}

/** Sends `signal` to each pid, ignoring those already gone. */
export function signalAll(pids: Iterable<number>, signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/** Sends `signal` to a whole process group (POSIX). */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  if (process.platform === 'win32') return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is empty.
  }
}

/** Windows: ends a process and its tree with `taskkill /T /F`. */
export function taskkillTree(pid: number): void {
  try {
    execFileSync('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', timeout: 5000 });
  } catch {
    // Already gone.
  }
}
