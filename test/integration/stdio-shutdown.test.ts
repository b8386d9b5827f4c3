/**
 * close(): end stdin, wait, SIGTERM, wait, SIGKILL, for the whole process tree, grandchildren that
 * left the process group or outlived their parent included. Idempotent and safe to call at once
 * from many places. Every fixture is disposed by a leak check that proves nothing survived.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startFixture } from '../helpers/fixture-server.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { isRunning, waitUntilGone } from '../helpers/processes.js';
import { rejectionOf, reportTiming, timed } from '../helpers/timing.js';

describe('close()', () => {
  it('runs the whole ladder on a server that ignores stdin EOF and traps SIGTERM', async () => {
    await using server = await startFixture('stubborn'); // default graces: 2 s, then 2 s
    await expect(server.peer.request('echo', { alive: true })).resolves.toEqual({ alive: true });

    const { ms } = await timed(server.transport.close());

    reportTiming('close ladder (EOF ignored, SIGTERM trapped, default graces)', ms);
    // Each rung was tried before the next: the server saw stdin end and then SIGTERM.
    await server.waitForStderr(/^stdin closed; ignoring it$/);
    await server.waitForStderr(/^got SIGTERM; ignoring it$/);
    expect(isRunning(server.pid)).toBe(false);
    expect(ms).toBeGreaterThanOrEqual(3900); // it waited out both graces
    expect(ms).toBeLessThan(15_000); // and did not hang
    expect(await server.closed).toBeUndefined();
  });

  it('is quick for a well-behaved server: it exits at stdin EOF', async () => {
    await using server = await startFixture('echo');
    await server.peer.request('echo');
    const { ms } = await timed(server.transport.close());
    reportTiming('close, well-behaved server', ms);
    expect(ms).toBeLessThan(1900); // it never needed SIGTERM
    expect(isRunning(server.pid)).toBe(false);
  });

  it('resolves every concurrent call together, and again afterwards', async () => {
    await using server = await startFixture('stubborn', { closeGraceMs: 100, termGraceMs: 100 });
    const first = server.transport.close();
    expect(server.transport.close()).toBe(first);
    const order: string[] = [];
    await Promise.all([
      first.then(() => order.push('transport')),
      server.peer.close().then(() => order.push('peer')),
      server.transport[Symbol.asyncDispose]().then(() => order.push('dispose')),
    ]);
    expect(order).toHaveLength(3);
    expect(server.transport.state).toBe('closed');
    expect(isRunning(server.pid)).toBe(false);
    await expect(server.transport.close()).resolves.toBeUndefined();
  });

  it('fails pending calls with CONNECTION_CLOSED and refuses new ones', async () => {
    await using server = await startFixture('never-answers');
    const pending = rejectionOf(server.peer.request('tools/call', { name: 'slow' }));
    const closing = server.peer.close();
    await expect(server.peer.request('echo')).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    const { error } = await pending;
    expect(error).toMatchObject({ code: 'CONNECTION_CLOSED', method: 'tools/call' });
    await closing;
    expect(await server.closed).toBeUndefined();
  });
});

describe('a server that never answers', () => {
  it('fails the call with REQUEST_TIMEOUT after its timeout and keeps the connection', async () => {
    await using server = await startFixture('never-answers');
    const { ms, ok, ...rest } = await timed(server.peer.request('echo', {}, { timeoutMs: 200 }));
    expect(ok).toBe(false);
    expect('error' in rest && rest.error).toMatchObject({
      code: 'REQUEST_TIMEOUT',
      method: 'echo',
    });
    expect(ms).toBeGreaterThanOrEqual(190);
    expect(server.transport.state).toBe('open');
    expect(server.peer.hasTimers).toBe(false);
  });

  it('fails the call with ABORTED, keeping the caller reason as cause', async () => {
    await using server = await startFixture('never-answers');
    const controller = new AbortController();
    const call = rejectionOf(server.peer.request('echo', {}, { signal: controller.signal }));
    const reason = new Error('user pressed stop');
    controller.abort(reason);
    const { error } = await call;
    expect(error).toMatchObject({ code: 'ABORTED', cause: reason });
  });
});

describe('a server with a grandchild', () => {
  // Each case: wait until the grandchild runs, have the guard track it, close, and let the
  // disposal prove that it is gone (its zombie, if PID 1 does not reap it, counts as gone).
  const cases: {
    name: string;
    args: string[];
    options?: { closeGraceMs?: number; termGraceMs?: number };
  }[] = [
    { name: 'in its process group, holding stdout open', args: ['--hold-stdout'] },
    { name: 'that called setsid (left the process group)', args: ['--detached'] },
    { name: 'that called setsid and holds stdout open', args: ['--detached', '--hold-stdout'] },
    {
      name: 'that traps SIGTERM (needs SIGKILL after the server exited)',
      args: ['--detached', '--trap-sigterm'],
      options: { termGraceMs: 300 },
    },
    {
      // No tree marker to find it by: only the walk of parent links while the server lives can.
      name: 'that called setsid with an empty environment, under a server that lingers',
      args: ['--detached', '--scrub-env', '--linger'],
      options: { closeGraceMs: 100 },
    },
  ];

  for (const { name, args, options } of cases) {
    it(`leaves nothing behind: grandchild ${name}`, async () => {
      await using server = await startFixture('grandchild', { args, ...options });
      const [, pid] = await server.waitForStderr(/^grandchild (\d+) ready$/);
      server.guard.trackPid(Number(pid));
      await expect(server.peer.request('echo', { n: 1 })).resolves.toEqual({ n: 1 });

      const { ms } = await timed(server.transport.close());

      reportTiming(`close, grandchild ${name}`, ms);
      expect(isRunning(Number(pid))).toBe(false);
      expect(isRunning(server.pid)).toBe(false);
    });
  }

  it('leaves nothing behind when the server exits on its own, leaving a setsid grandchild', async () => {
    await using server = await startFixture('grandchild', {
      args: ['--detached', '--exit-when-ready'],
    });
    const [, pid] = await server.waitForStderr(/^grandchild (\d+) ready$/);
    server.guard.trackPid(Number(pid));

    const reason = await server.closed;

    expect(reason).toMatchObject({ code: 'PROCESS_EXITED', exitCode: 0, signal: null });
    await server.transport.close(); // waits for the orphan to be reaped
    expect(isRunning(Number(pid))).toBe(false);
  });
});

describe('a host that exits without closing', () => {
  it('kills every known server tree synchronously on exit, setsid grandchild included', async () => {
    await using guard = leakGuard();
    const hostScript = fileURLToPath(
      new URL('../fixtures/hosts/exits-without-closing.ts', import.meta.url),
    );
    const host = spawn(process.execPath, ['--import', 'tsx', hostScript], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    guard.trackPid(host.pid);
    let output = '';
    host.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const [code] = (await once(host, 'exit')) as [number | null];
    expect(code).toBe(0);
    const pids = JSON.parse(output) as { server: number; grandchild: number };
    guard.trackPid(pids.server);
    guard.trackPid(pids.grandchild);

    // Not our children: no exit event to wait on, so poll (bounded) until SIGKILL has done its work.
    expect(await waitUntilGone([pids.server, pids.grandchild], 2000)).toEqual([]);
  });
});
