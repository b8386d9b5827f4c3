/**
 * A server that exits before, during or after a request: pending calls fail at once (not after
 * the 60 s request timeout) with a ProcessExitedError carrying the exit code, the signal and a
 * redacted stderr tail; nothing of the server's tree survives; writing to the dead server never
 * crashes the host.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { addSecret, McpHostError, ProcessExitedError } from '../../src/index.js';
import { startFixture } from '../helpers/fixture-server.js';
import { crashTime, rejectionOf, reportTiming } from '../helpers/timing.js';

/** A generous bound: a crash must be noticed long before the 60 s request timeout. */
const DETECTION_BOUND_MS = 5000;

function expectProcessExited(error: unknown): asserts error is ProcessExitedError {
  expect(error).toBeInstanceOf(ProcessExitedError);
  expect(error).toBeInstanceOf(McpHostError);
  expect((error as ProcessExitedError).code).toBe('PROCESS_EXITED');
}

describe('a server that crashes', () => {
  it('before answering: the call fails at once with the exit code and a redacted stderr tail', async () => {
    const secret = `canary-${randomUUID()}`;
    const token = randomBytes(24).toString('hex');
    using _registered = addSecret(secret); // what config does for env values marked secret
    await using server = await startFixture('crash-before-answer', {
      env: { FIXTURE_SECRET: secret, FIXTURE_TOKEN: token },
    });

    const { error, at } = await rejectionOf(server.peer.request('tools/call', { name: 'search' }));

    expectProcessExited(error);
    expect(error.exitCode).toBe(3);
    expect(error.signal).toBeNull();
    expect(error.serverName).toBe('crash-before-answer');
    expect(error.message).toContain('exited with code 3');
    expect(error.message).toContain('fatal: upstream said 401');
    expect(error.message.length).toBeLessThanOrEqual(1024);
    expect(error.stderrTail).toContain('loading credentials: api key is <masked>');
    expect(error.stderrTail).toContain('Authorization: <masked>');
    expect(await server.closed).toBe(error);
    expect(server.transport.state).toBe('closed');

    const dumps = {
      message: error.message,
      stack: error.stack ?? '',
      stderrTail: error.stderrTail,
      json: JSON.stringify(error),
      inspect: inspect(error, { depth: 10 }),
      transportTail: server.transport.stderrTail(),
      stderrLines: server.stderrLines().join('\n'),
      logs: server.logger.text(),
    };
    for (const [where, text] of Object.entries(dumps)) {
      expect(text, `the secret leaked into ${where}`).not.toContain(secret);
      expect(text, `the token leaked into ${where}`).not.toContain(token);
    }

    const detectionMs = at - crashTime(error.stderrTail);
    reportTiming('crash detection, crash before answering', detectionMs);
    expect(detectionMs).toBeLessThan(DETECTION_BOUND_MS);
  });

  it('before answering: every pending call fails with the same error', async () => {
    await using server = await startFixture('crash-before-answer');
    const calls = Array.from({ length: 5 }, (_, i) =>
      rejectionOf(server.peer.request('echo', { i })),
    );
    const errors = (await Promise.all(calls)).map((r) => r.error);
    expectProcessExited(errors[0]);
    for (const error of errors) expect(error).toBe(errors[0]);
    expect(server.peer.pendingCount).toBe(0);
  });

  it('mid-call: the first call succeeds, the second fails at once; half a response is not taken for one', async () => {
    await using server = await startFixture('crash-mid-call');
    await expect(server.peer.request('echo', { n: 1 })).resolves.toEqual({ n: 1 });

    const { error, at } = await rejectionOf(server.peer.request('echo', { n: 2 }));

    expectProcessExited(error);
    expect(error.exitCode).toBe(1);
    expect(error.signal).toBeNull();
    expect(error.stderrTail).toContain('panic: index out of range');
    expect(server.transport.stats.messagesReceived).toBe(1);
    const detectionMs = at - crashTime(error.stderrTail);
    reportTiming('crash detection, crash mid-call (exit code)', detectionMs);
    expect(detectionMs).toBeLessThan(DETECTION_BOUND_MS);
  });

  it('mid-call by a signal: the error carries the signal and no exit code', async () => {
    await using server = await startFixture('crash-mid-call', { args: ['--signal=SIGKILL'] });
    await server.peer.request('echo', {});

    const { error, at } = await rejectionOf(server.peer.request('echo', {}));

    expectProcessExited(error);
    expect(error.exitCode).toBeNull();
    expect(error.signal).toBe('SIGKILL');
    expect(error.message).toContain('killed by SIGKILL');
    const detectionMs = at - crashTime(error.stderrTail);
    reportTiming('crash detection, crash mid-call (SIGKILL)', detectionMs);
    expect(detectionMs).toBeLessThan(DETECTION_BOUND_MS);
  });

  it('while a grandchild holds its stdout open: still noticed at once, and the grandchild is killed', async () => {
    await using server = await startFixture('grandchild', { args: ['--hold-stdout'] });
    const [, grandchild] = await server.waitForStderr(/^grandchild (\d+) ready$/);
    server.guard.trackPid(Number(grandchild));
    await expect(server.peer.request('echo', { ok: true })).resolves.toEqual({ ok: true });

    const { error, at } = await rejectionOf(server.peer.request('crash'));

    expectProcessExited(error);
    expect(error.exitCode).toBe(9);
    const detectionMs = at - crashTime(error.stderrTail);
    reportTiming('crash detection, grandchild holding stdout', detectionMs);
    expect(detectionMs).toBeLessThan(DETECTION_BOUND_MS);
    // Disposal closes the transport and proves the grandchild is gone.
  });

  it('after crashing, calls fail with the same error and sends throw a typed error', async () => {
    await using server = await startFixture('crash-before-answer');
    const { error } = await rejectionOf(server.peer.request('echo'));
    expectProcessExited(error);

    await expect(server.peer.request('echo')).rejects.toBe(error);
    expect(() => server.transport.send({ jsonrpc: '2.0', method: 'notifications/late' })).toThrow(
      expect.objectContaining({ code: 'CONNECTION_CLOSED' }),
    );
    expect(() => server.peer.notify('notifications/late')).toThrow(McpHostError);
  });

  it('close() after a crash resolves, concurrently and repeatedly', async () => {
    await using server = await startFixture('crash-before-answer');
    await rejectionOf(server.peer.request('echo'));
    const first = server.transport.close();
    expect(server.transport.close()).toBe(first);
    await Promise.all([first, server.transport.close(), server.peer.close()]);
    await server.transport.close();
    expect(server.transport.state).toBe('closed');
  });
});

describe('writing to a server that is gone', () => {
  it('does not crash the host while the process dies under a stream of writes', async () => {
    await using server = await startFixture('crash-before-answer');
    // Each call's outcome is captured at once: a rejection is never left unhandled for a turn.
    const outcomes: Promise<unknown>[] = [captureRejection(server.peer.request('trigger'))];
    const payload = { blob: 'x'.repeat(256 * 1024) };
    // Keep writing, one batch per event-loop turn, until the host has noticed the exit: some of
    // these writes hit the pipe after the process died (EPIPE), the later ones find it closed.
    let turns = 0;
    while (server.transport.state === 'open') {
      outcomes.push(captureRejection(server.peer.request('echo', payload)));
      try {
        server.transport.send({
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: payload,
        });
      } catch (error) {
        expect(error).toBeInstanceOf(McpHostError);
      }
      await new Promise((resolve) => setImmediate(resolve));
      turns++;
    }
    for (const error of await Promise.all(outcomes)) expect(error).toBeInstanceOf(McpHostError);
    expect(turns).toBeGreaterThan(0);
    // Disposal asserts that no uncaught exception or unhandled rejection happened.
  });

  it('does not crash the host when the server closed its stdin but lives on (EPIPE)', async () => {
    await using server = await startFixture('closes-stdin', {
      waitForReady: false,
      closeGraceMs: 100,
    });
    await server.waitForStderr(/^stdin closed$/);
    for (let i = 0; i < 20; i++)
      server.peer.notify('notifications/message', { i, blob: 'y'.repeat(64 * 1024) });

    const { error } = await rejectionOf(server.peer.request('echo', {}, { timeoutMs: 300 }));

    expect(error).toMatchObject({ code: 'REQUEST_TIMEOUT' });
    expect(server.transport.state).toBe('open');
  });
});

function captureRejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error('expected a rejection'),
    (error: unknown) => error,
  );
}
