/**
 * A worker process for multi-process tests: a TypeScript script run with tsx, tracked by the
 * test's leak guard, read line by line from its stdout; its exit rejects with its stderr when it
 * failed (a signal the test sent is not a failure).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { LeakGuard } from './leak-guard.js';

export interface WorkerProcess {
  child: ChildProcessWithoutNullStreams;
  lines: AsyncIterator<string>;
  /** Its exit code and signal; rejects when it exited with a code other than 0. */
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

/** Starts `node --import tsx <script> ...args`. */
export function startWorker(guard: LeakGuard, script: string, args: string[]): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  guard.trackPid(child.pid);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = once(child, 'exit').then(([code, signal]) => {
    if (code !== 0 && signal === null) throw new Error(`worker failed (${code}): ${stderr}`);
    return [code, signal] as [number | null, NodeJS.Signals | null];
  });
  exited.catch(() => {}); // awaited by the test; this only keeps an early failure from being unhandled
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return { child, lines, exited };
}

/** The worker's next line; fails if it ends first. */
export async function nextLine(worker: WorkerProcess): Promise<string> {
  const next = await Promise.race([
    worker.lines.next(),
    worker.exited.then(() => ({ done: true as const, value: undefined })),
  ]);
  if (next.done === true) throw new Error('worker ended before printing the expected line');
  return next.value;
}
