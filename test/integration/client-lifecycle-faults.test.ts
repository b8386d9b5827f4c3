/**
 * The client's lifecycle under faults, through McpClient and McpHost against real processes:
 * `close()` after a connect that was abandoned (by the caller's signal, or by `close()` itself)
 * starts the shutdown ladder at once and returns within its own bound with the server's tree gone;
 * a server that crashes on start is started once and its exit error is what `connect()` reports;
 * after a crash, every later refusal carries the crash as its `cause`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  McpClient,
  McpHost,
  McpHostError,
  ProcessExitedError,
  type ServerStatus,
} from '../../src/index.js';
import { StdioTransport } from '../../src/stdio.js';
import { fixturePath, type FixtureName } from '../helpers/fixture-server.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { isRunning } from '../helpers/processes.js';
import { tempDir } from '../helpers/scratch.js';
import { crashTime, now, rejectionOf, reportTiming, timed } from '../helpers/timing.js';

/** The close ladder's own bound (stdin end, 2 s, SIGTERM, 2 s, SIGKILL) with room to spare. */
const CLOSE_BOUND_MS = 6_000;
/**
 * "At once", generously: well under the ladder's first grace (2 s), so passing proves the caller
 * was not kept waiting for the process to go.
 */
const PROMPT_MS = 1_500;

interface StartedProcess {
  readonly transport: StdioTransport;
  readonly lines: string[];
}

/**
 * A fixture behind a transport factory (so the client may start it more than once), keeping each
 * process it starts and the stderr lines of each, with a wait for a line that needs no sleep.
 */
function watchedFixture(name: FixtureName) {
  const started: StartedProcess[] = [];
  const waiters = new Set<() => void>();
  const factory = (): StdioTransport => {
    const transport = new StdioTransport({
      serverName: name,
      command: process.execPath,
      args: [fixturePath(name)],
    });
    const entry: StartedProcess = { transport, lines: [] };
    transport.onStderrLine((line) => {
      entry.lines.push(line);
      for (const wake of [...waiters]) wake();
    });
    started.push(entry);
    return transport;
  };
  /** The first stderr line of the first process that matches `pattern`. */
  const line = (pattern: RegExp): Promise<RegExpExecArray> =>
    new Promise((resolve) => {
      const check = (): void => {
        for (const text of started[0]?.lines ?? []) {
          const match = pattern.exec(text);
          if (match === null) continue;
          waiters.delete(check);
          resolve(match);
          return;
        }
      };
      waiters.add(check);
      check();
    });
  /** Once the first process got `method` and its grandchild runs: the tree's pids. */
  const treeWith = async (method: string): Promise<{ pid: number; grandchild: number }> => {
    const [, grandchild] = await line(/^grandchild (\d+) ready$/);
    await line(new RegExp(`^received ${method.replace('/', '\\/')}$`));
    return { pid: started[0]!.transport.pid!, grandchild: Number(grandchild) };
  };
  return { factory, started, treeWith };
}

/** Resolves with the first status of `server` that is in `state`. */
function statusIn(host: McpHost, server: string, state: string): Promise<ServerStatus> {
  return new Promise((resolve) => {
    const listener = host.onServerStatus((status) => {
      if (status.name !== server || status.state !== state) return;
      listener.dispose();
      resolve(status);
    });
  });
}

describe('close() after an abandoned connect (a server that never answers, ignores EOF and SIGTERM)', () => {
  it.each([
    ['the era probe', 'auto', 'server/discover'],
    ['initialize', 'legacy', 'initialize'],
  ] as const)(
    'waiting on %s: the caller aborts, connect fails at once, close() returns within 6 s with the tree gone',
    async (_what, era, method) => {
      await using guard = leakGuard();
      const server = watchedFixture('deaf-stubborn');
      await using client = new McpClient({ serverName: 'deaf', era, transport: server.factory });
      const abort = new AbortController();
      const connecting = rejectionOf(client.connect({ signal: abort.signal }));
      const { pid, grandchild } = await server.treeWith(method);
      guard.trackPid(pid);
      guard.trackPid(grandchild);

      const reason = new Error('the user gave up');
      const abortedAt = now();
      abort.abort(reason);
      const { error, at } = await connecting;
      expect(error).toBeInstanceOf(McpHostError);
      expect(error).toMatchObject({ code: 'ABORTED', cause: reason });
      reportTiming(`abandoned connect (${method}): abort → connect rejected`, at - abortedAt);
      expect(at - abortedAt).toBeLessThan(PROMPT_MS);

      const { ms } = await timed(client.close());
      reportTiming(`abandoned connect (${method}): close()`, ms);
      reportTiming(`abandoned connect (${method}): abort → close() resolved`, now() - abortedAt);
      expect(ms).toBeLessThan(CLOSE_BOUND_MS);
      expect(isRunning(pid)).toBe(false);
      expect(isRunning(grandchild)).toBe(false);
      // The ladder ran rung by rung: stdin ended, then SIGTERM, then (both ignored) SIGKILL.
      expect(server.started[0]!.lines).toEqual(
        expect.arrayContaining(['stdin closed; ignoring it', 'got SIGTERM; ignoring it']),
      );
      expect(server.started).toHaveLength(1);
    },
  );

  it('close() while connect() is pending gives the connect up at once and returns within 6 s', async () => {
    await using guard = leakGuard();
    const server = watchedFixture('deaf-stubborn');
    // The default connect timeout (60 s): close() must not wait it out.
    await using client = new McpClient({ serverName: 'deaf', transport: server.factory });
    const connecting = rejectionOf(client.connect());
    const { pid, grandchild } = await server.treeWith('server/discover');
    guard.trackPid(pid);
    guard.trackPid(grandchild);

    const closing = timed(client.close());
    const { error } = await connecting;
    expect(error).toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect((error as McpHostError).message).toContain('closed while connecting');
    const { ms } = await closing;
    reportTiming('close() during a pending connect', ms);
    expect(ms).toBeLessThan(CLOSE_BOUND_MS);
    expect(client.state).toBe('closed');
    expect(isRunning(pid)).toBe(false);
    expect(isRunning(grandchild)).toBe(false);
  });

  it('McpHost.close() with a server stuck connecting returns within 6 s with the tree gone', async () => {
    await using guard = leakGuard();
    const server = watchedFixture('deaf-stubborn');
    await using host = new McpHost({
      servers: [{ name: 'deaf', transport: server.factory, client: { era: 'legacy' } }],
    });
    const starting = host.start();
    const { pid, grandchild } = await server.treeWith('initialize');
    guard.trackPid(pid);
    guard.trackPid(grandchild);

    const { ms } = await timed(host.close());
    reportTiming('McpHost.close() with a server stuck in initialize', ms);
    expect(ms).toBeLessThan(CLOSE_BOUND_MS);
    expect(isRunning(pid)).toBe(false);
    expect(isRunning(grandchild)).toBe(false);
    const summary = await starting;
    expect(summary.ready).toEqual([]);
    expect(host.status()[0]?.state).toBe('closed');
  });
});

describe('a server that crashes on start', () => {
  it('is started once, and connect() fails with its exit error (exit code, stderr tail)', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const starts = join(dir.path, 'starts.log');
    // A transport definition: the client could start the server again if it chose to.
    await using client = new McpClient({
      serverName: 'widgets',
      transport: {
        type: 'stdio',
        command: process.execPath,
        args: [fixturePath('crash-on-start'), `--starts=${starts}`],
      },
    });

    const { error, at } = await rejectionOf(client.connect());

    expect(error).toBeInstanceOf(ProcessExitedError);
    const exited = error as ProcessExitedError;
    expect(exited).toMatchObject({ code: 'PROCESS_EXITED', exitCode: 1, signal: null });
    expect(exited.serverName).toBe('widgets');
    expect(exited.message).toContain('exited with code 1');
    expect(exited.message).toContain('fatal: no API key in the environment');
    expect(exited.stderrTail).toContain('fatal: no API key in the environment');
    expect(readFileSync(starts, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(client.state).toBe('closed');
    reportTiming('crash on start → connect() failed', at - crashTime(exited.stderrTail));
    expect(at - crashTime(exited.stderrTail)).toBeLessThan(PROMPT_MS);
  });
});

describe('after a crash, the crash is the cause of every refusal', () => {
  it('McpClient: later callTool and listTools fail naming the crash, with it as cause and in toJSON', async () => {
    await using _guard = leakGuard();
    await using client = new McpClient({
      serverName: 'crashy',
      transport: {
        type: 'stdio',
        command: process.execPath,
        args: [fixturePath('crash-mid-session')],
      },
    });
    await client.connect();
    const closed = new Promise<McpHostError | undefined>((resolve) => client.onClose(resolve));
    expect((await client.callTool('exit')).content).toEqual([{ type: 'text', text: 'bye' }]);
    const crash = await closed;
    expect(crash).toBeInstanceOf(ProcessExitedError);

    for (const later of [() => client.callTool('echo', { n: 1 }), () => client.listTools()]) {
      const { error } = await rejectionOf(later());
      expect(error).toBeInstanceOf(McpHostError);
      const refusal = error as McpHostError;
      expect(refusal.code).toBe('CONNECTION_CLOSED');
      expect(refusal.message).toMatch(
        /^server 'crashy': the client is closed: process exited with code 3; stderr: .*fatal: lost the connection to the database/,
      );
      expect(refusal.message.length).toBeLessThanOrEqual(1024);
      expect(refusal.cause).toBe(crash);
      expect(refusal.cause).toMatchObject({ code: 'PROCESS_EXITED', exitCode: 3, signal: null });
      expect(JSON.parse(JSON.stringify(refusal))).toMatchObject({
        code: 'CONNECTION_CLOSED',
        cause: {
          name: 'ProcessExitedError',
          code: 'PROCESS_EXITED',
          exitCode: 3,
          signal: null,
          stderrTail: expect.stringContaining(
            'fatal: lost the connection to the database',
          ) as unknown,
        },
      });
    }
  });

  it('McpHost: a call to the crashed server (waiting to restart) fails with the crash as cause', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost({
      // A long backoff: the server stays down (restarting) while the test calls it.
      restart: { baseDelayMs: 60_000 },
      health: { intervalMs: 0 },
      servers: [
        {
          name: 'crashy',
          transport: {
            type: 'stdio',
            command: process.execPath,
            args: [fixturePath('crash-mid-session')],
          },
        },
      ],
    });
    await host.start();
    const down = statusIn(host, 'crashy', 'restarting');
    await host.callTool('mcp__crashy__exit');
    await down;

    const { error } = await rejectionOf(host.callTool('mcp__crashy__echo', { n: 1 }));
    expect(error).toBeInstanceOf(McpHostError);
    const refusal = error as McpHostError;
    expect(refusal.code).toBe('SERVER_UNAVAILABLE');
    expect(refusal.message).toContain("server 'crashy': not available (restarting");
    expect(refusal.message).toContain('exited with code 3');
    expect(refusal.cause).toBeInstanceOf(ProcessExitedError);
    expect(refusal.cause).toMatchObject({ exitCode: 3 });
    expect(JSON.parse(JSON.stringify(refusal))).toMatchObject({
      code: 'SERVER_UNAVAILABLE',
      details: { state: 'restarting', lastError: { code: 'PROCESS_EXITED' } },
      cause: {
        code: 'PROCESS_EXITED',
        exitCode: 3,
        stderrTail: expect.stringContaining(
          'fatal: lost the connection to the database',
        ) as unknown,
      },
    });
  });
});
