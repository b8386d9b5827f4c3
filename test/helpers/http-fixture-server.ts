/**
 * An MCP server process that listens on HTTP (an SDK fixture in `--http=<mode>`, or the official
 * everything server in streamableHttp mode), started with child_process: the start resolves once
 * the server's ready line on stderr names its URL (no sleeps), stderr is kept with its fixture
 * records, and disposing ends the process (stdin EOF, then SIGTERM, then SIGKILL) and proves with
 * a leak guard that it is gone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { parseRecords, type FixtureRecord } from '../fixtures/mcp/lib/record.mjs';
import { leakGuard } from './leak-guard.js';
import { within } from './mcp-fixtures.js';

export interface HttpServerProcess extends AsyncDisposable {
  /** The MCP endpoint, always on 127.0.0.1. */
  readonly url: string;
  readonly pid: number | undefined;
  /** Every stderr line so far. */
  readonly stderr: readonly string[];
  /** The JSON records in its stderr, optionally only those of one event. */
  records(event?: string): FixtureRecord[];
  /** The first record of `event` that matches; rejects if the process exits first. */
  waitForRecord(
    event: string,
    matches?: (record: FixtureRecord) => boolean,
  ): Promise<FixtureRecord>;
}

export interface HttpServerOptions {
  /** The whole environment of the server (default: PATH only). */
  env?: Record<string, string>;
  /** Turns a stderr line into the endpoint URL once the server listens (default: `ready <url>`). */
  readyUrl?: (line: string) => string | undefined;
  /** Node options before the script (e.g. `--import` of a preload). */
  nodeArgs?: readonly string[];
  /** Bound on the start (default 15 s). */
  startTimeoutMs?: number;
}

const readyLine = (line: string): string | undefined =>
  /^ready (http:\/\/127\.0\.0\.1:\d+\/\S*)$/.exec(line)?.[1];

/** Starts `node script args` and resolves once it listens. */
export async function startHttpServer(
  script: string,
  args: readonly string[] = [],
  options: HttpServerOptions = {},
): Promise<HttpServerProcess> {
  const guard = leakGuard();
  const child: ChildProcess = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), script, ...args],
    {
      env: options.env ?? { PATH: process.env.PATH ?? '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  guard.trackPid(child.pid);
  child.stdout!.resume();
  const stderr: string[] = [];
  const records: FixtureRecord[] = [];
  const waiters = new Set<() => void>();
  let exited = false;
  const exit = once(child, 'exit').then(() => {
    exited = true;
    for (const wake of waiters) wake();
  });
  const parseUrl = options.readyUrl ?? readyLine;
  const url = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stderr! }).on('line', (line) => {
      stderr.push(line);
      records.push(...parseRecords(line));
      for (const wake of waiters) wake();
      const found = parseUrl(line);
      if (found !== undefined) resolve(found);
    });
    void exit.then(() =>
      reject(new Error(`${script} exited before listening:\n${stderr.join('\n')}`)),
    );
  });

  const dispose = async (): Promise<void> => {
    if (!exited) {
      child.stdin!.end();
      const kill = (signal: NodeJS.Signals, afterMs: number): NodeJS.Timeout =>
        setTimeout(() => child.kill(signal), afterMs);
      const timers = [kill('SIGTERM', 2_000), kill('SIGKILL', 4_000)];
      await exit;
      for (const timer of timers) clearTimeout(timer);
    }
    await guard[Symbol.asyncDispose]();
  };

  let endpoint: string;
  try {
    endpoint = await within(url, options.startTimeoutMs ?? 15_000, `ready line from ${script}`);
  } catch (error) {
    child.kill('SIGKILL');
    await exit;
    await guard[Symbol.asyncDispose]();
    throw error;
  }
  const filter = (event?: string): FixtureRecord[] =>
    records.filter((r) => event === undefined || r.event === event);
  return {
    url: endpoint,
    pid: child.pid,
    stderr,
    records: filter,
    waitForRecord(event, matches = () => true) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const found = filter(event).find(matches);
          if (found === undefined && !exited) return;
          waiters.delete(check);
          if (found !== undefined) resolve(found);
          else reject(new Error(`the server exited without a '${event}' record`));
        };
        waiters.add(check);
        check();
      });
    },
    [Symbol.asyncDispose]: dispose,
  };
}
