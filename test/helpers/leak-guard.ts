/**
 * Proves a test leaves nothing behind. Each guard knows some processes (pids it was told about,
 * tree markers it was told about, and their descendants); disposing it asserts that none of them
 * runs any more and that no other descendant of this test process runs unless another open guard
 * accounts for it. When the last open guard is disposed it also asserts that the active handles
 * (child processes, pipes, sockets, timers) are back to what they were when the first one opened,
 * and that no uncaught exception, unhandled rejection or process warning happened in between.
 */
import { createHook } from 'node:async_hooks';
import {
  isOrphanWatchdog,
  isRunning,
  listProcesses,
  runningDescendants,
  runningWithEnv,
  type ProcessEntry,
} from './processes.js';

const TREE_MARKER_ENV = 'MCP_HOST_TREE';

/** Event-loop turns to wait for closed handles to finish closing (their close callbacks). */
const HANDLE_SETTLE_TURNS = 50;

/**
 * Where each timer made while a guard is open was created (its first frames), so a timer left
 * running is named by its creation site in the failure, not only counted.
 */
const timerSites = new Map<number, { timer: { hasRef?: () => boolean }; site: string }>();
const timerHook = createHook({
  init(id, type, _trigger, resource) {
    if (type !== 'Timeout') return;
    const stack = new Error().stack ?? '';
    // Past this hook and Node's own timer and async_hooks frames: the code that made the timer.
    const frames = stack
      .split('\n')
      .slice(2)
      .filter((frame) => !frame.includes('node:internal/') && !frame.includes('node:timers'));
    timerSites.set(id, {
      timer: resource,
      site: frames.slice(0, 3).join(' <') || 'unknown',
    });
  },
  destroy(id) {
    timerSites.delete(id);
  },
});

/** Made by the test runner itself (vitest's throttled task updates), not by the code under test. */
const RUNNER_FRAME = /node_modules\/(?:@vitest|vitest)\//;

/** Whether the timer's first frame, the code that called setTimeout, is the runner's. */
function isRunnerSite(site: string): boolean {
  return RUNNER_FRAME.test(site.split(' <')[0] ?? '');
}

/** The timers the code under test made under the guards that keep the process alive. */
function liveCodeTimers(): { site: string }[] {
  return [...timerSites.values()].filter(
    (entry) => entry.timer.hasRef?.() === true && !isRunnerSite(entry.site),
  );
}

/** The creation sites of the code's timers made under the guards that keep the process alive. */
function liveTimerSites(): string[] {
  return liveCodeTimers().map((entry) => `timer created ${entry.site.replace(/\s+/g, ' ').trim()}`);
}

const openGuards = new Set<LeakGuard>();
let baseline = new Map<string, number>();
let processErrors: string[] = [];

const onUncaught = (error: unknown): void =>
  void processErrors.push(`uncaught exception: ${String(error)}`);
const onRejection = (reason: unknown): void =>
  void processErrors.push(`unhandled rejection: ${String(reason)}`);
const onWarning = (warning: Error): void =>
  void processErrors.push(`process warning: ${warning.name}: ${warning.message}`);

function countResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo())
    counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

function resourcesAboveBaseline(): string[] {
  const extra: string[] = [];
  for (const [type, count] of countResources()) {
    // Timers are told apart by where they were made (below): a count against the baseline would
    // miss a leaked one whenever a timer of vitest's own (its reporter's 100 ms throttle), pending
    // when the guard opened, fired before it closed.
    if (type === 'Timeout') continue;
    const before = baseline.get(type) ?? 0;
    if (count > before) extra.push(`${count - before} × ${type}`);
  }
  const timers = liveCodeTimers().length;
  if (timers > 0) extra.push(`${timers} × Timeout`);
  return extra;
}

function describe(p: ProcessEntry): string {
  return `pid ${p.pid} (${p.command}, state ${p.state}, ppid ${p.ppid}, pgid ${p.pgid})`;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

export class LeakGuard implements AsyncDisposable {
  readonly #pids = new Set<number>();
  readonly #markers = new Set<string>();
  #disposed = false;

  constructor() {
    if (openGuards.size === 0) {
      // process.stdout and process.stderr open their handles on first use, which may fall inside
      // a test (Node code paths touch them); open them first so that is never counted as a leak.
      void process.stdout.writable;
      void process.stderr.writable;
      baseline = countResources();
      timerSites.clear();
      timerHook.enable();
      processErrors = [];
      process.on('uncaughtException', onUncaught);
      process.on('unhandledRejection', onRejection);
      process.on('warning', onWarning);
    }
    openGuards.add(this);
  }

  /** A process that must be gone when the guard is disposed (its descendants too). */
  trackPid(pid: number | undefined): void {
    if (pid !== undefined) this.#pids.add(pid);
  }

  /** A server tree marker (`MCP_HOST_TREE`): no process carrying it may survive. */
  trackMarker(marker: string | undefined): void {
    if (marker !== undefined) this.#markers.add(marker);
  }

  /** Running processes this guard knows of. */
  members(processes: ProcessEntry[] = listProcesses()): ProcessEntry[] {
    const found = new Map<number, ProcessEntry>();
    for (const pid of this.#pids) {
      const entry = processes.find((p) => p.pid === pid);
      if (entry !== undefined && isRunning(pid)) found.set(pid, entry);
      for (const d of runningDescendants(pid, processes)) found.set(d.pid, d);
    }
    for (const marker of this.#markers) {
      for (const p of runningWithEnv(TREE_MARKER_ENV, marker, processes)) found.set(p.pid, p);
    }
    return [...found.values()];
  }

  async [Symbol.asyncDispose](): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    openGuards.delete(this);
    const problems: string[] = [];

    const processes = listProcesses();
    const survivors = this.members(processes);
    for (const p of survivors) problems.push(`process survived: ${describe(p)}`);
    const accounted = new Set(survivors.map((p) => p.pid));
    for (const guard of openGuards) for (const p of guard.members(processes)) accounted.add(p.pid);
    for (const p of runningDescendants(process.pid, processes)) {
      if (accounted.has(p.pid)) continue;
      // This process's orphan watchdog (mcp-host's, for its stdio servers) lives as long as it does.
      if (p.ppid === process.pid && isOrphanWatchdog(p.pid)) continue;
      problems.push(`stray child process: ${describe(p)}`);
      survivors.push(p);
    }

    if (openGuards.size === 0) {
      let extra = resourcesAboveBaseline();
      for (let turn = 0; extra.length > 0 && turn < HANDLE_SETTLE_TURNS; turn++) {
        await new Promise((resolve) => setImmediate(resolve));
        extra = resourcesAboveBaseline();
      }
      if (extra.length > 0) {
        problems.push(`active handles left: ${extra.join(', ')}`);
        if (extra.some((e) => e.endsWith('× Timeout'))) problems.push(...liveTimerSites());
      }
      timerHook.disable();
      timerSites.clear();
      process.off('uncaughtException', onUncaught);
      process.off('unhandledRejection', onRejection);
      process.off('warning', onWarning);
      problems.push(...processErrors);
      processErrors = [];
    }

    if (problems.length > 0) {
      // Fail, but do not let one test's leak pollute the next ones.
      for (const p of survivors) killQuietly(p.pid);
      throw new Error(`leak check failed:\n  ${problems.join('\n  ')}`);
    }
  }
}

/** `await using guard = leakGuard()`: asserts at the end of the scope that nothing leaked. */
export function leakGuard(): LeakGuard {
  return new LeakGuard();
}
