/**
 * StdioTransport on its own (no peer above it), against a tiny server run as
 * `node -e <script> <mode>`: framing, send before start and after close, close() and its
 * ladder, a process that exits by itself, oversized and junk lines, pid and stats. Every test
 * runs under a leak guard: no process, pipe or timer outlives it. Nothing sleeps: each step
 * waits for the event it needs.
 */
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import { isRunning } from '../../../test/helpers/processes.js';
import { McpHostError, ProcessExitedError } from '../../errors/mcp-host-error.js';
import type { JsonObject } from '../../jsonrpc/message.js';
import type { TransportProblem } from '../../jsonrpc/transport.js';
import type { StdioTransportOptions } from './stdio-options.js';
import { StdioTransport } from './stdio-transport.js';

/**
 * The server: one JSON-RPC request per stdin line, answered on stdout. `burst` answers with three
 * messages in one write; `split` writes a notification and half of its response in one write,
 * and the other half only when asked (`rest`), so the response arrives in two chunks; `junk`
 * writes a line that is not JSON first; `broken` writes 10 broken JSON lines, then its response cut
 * short; `huge` writes a line of `params.bytes` characters;
 * `stderr` writes `params.text` to stderr; `exit` writes `params.stderr` and exits with
 * `params.code`. Mode `ignore-eof` stays up after stdin ends; `ignore-term` also traps SIGTERM.
 * Each rung it sees is reported on stderr.
 */
const SERVER = `
const mode = process.argv[1] ?? 'cooperative';
const send = (...messages) =>
  process.stdout.write(messages.map((m) => JSON.stringify(m) + '\\n').join(''));
const answer = (m, result) => ({ jsonrpc: '2.0', id: m.id, result });
let rest = '';
let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  for (let end = buffered.indexOf('\\n'); end >= 0; end = buffered.indexOf('\\n')) {
    const m = JSON.parse(buffered.slice(0, end));
    buffered = buffered.slice(end + 1);
    if (m.method === 'echo') send(answer(m, m.params));
    if (m.method === 'burst')
      send({ jsonrpc: '2.0', method: 'one' }, { jsonrpc: '2.0', method: 'two' }, answer(m, 3));
    if (m.method === 'split') {
      const text = JSON.stringify(answer(m, 'whole')) + '\\n';
      const half = Math.floor(text.length / 2);
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'half' }) + '\\n' + text.slice(0, half));
      rest = text.slice(half);
    }
    if (m.method === 'rest') process.stdout.write(rest);
    if (m.method === 'junk') {
      process.stdout.write('this is not JSON\\n');
      send(answer(m, 'after junk'));
    }
    if (m.method === 'broken') {
      let out = '';
      for (let i = 0; i < 10; i++) out += '{"not": json ' + i + '\\n';
      process.stdout.write(out + '{"jsonrpc":"2.0","id":' + m.id + ',"result":{"cut":"sh\\n');
    }
    if (m.method === 'huge')
      process.stdout.write('{"jsonrpc":"2.0","id":' + m.id + ',"result":"' + 'x'.repeat(m.params.bytes) + '"}\\n');
    if (m.method === 'stderr') {
      process.stderr.write(m.params.text);
      send(answer(m, 'written'));
    }
    if (m.method === 'exit') {
      process.stderr.write(m.params.stderr);
      process.exit(m.params.code);
    }
  }
});
process.stdin.on('end', () => {
  process.stderr.write('stdin ended\\n');
  if (mode !== 'cooperative') setInterval(() => {}, 60_000);
});
if (mode === 'ignore-term') process.on('SIGTERM', () => process.stderr.write('SIGTERM\\n'));
`;

type Mode = 'cooperative' | 'ignore-eof' | 'ignore-term';

/** A transport to the server, recording what it delivers, with a way to wait for it. */
function serverTransport(mode: Mode = 'cooperative', options: Partial<StdioTransportOptions> = {}) {
  const transport = new StdioTransport({
    command: process.execPath,
    args: ['-e', SERVER, mode],
    serverName: 'unit',
    ...options,
  });
  const messages: unknown[] = [];
  const problems: TransportProblem[] = [];
  const stderr: string[] = [];
  const closes: (McpHostError | undefined)[] = [];
  const waiters = new Set<() => void>();
  const wake = () => waiters.forEach((waiter) => waiter());
  transport.onMessage((message) => (messages.push(message), wake()));
  transport.onProblem((problem) => (problems.push(problem), wake()));
  transport.onStderrLine((line) => (stderr.push(line), wake()));
  transport.onClose((reason) => (closes.push(reason), wake()));
  /** Resolves once `check()` holds, checked after each event. */
  const until = async (check: () => boolean) => {
    while (!check()) {
      await new Promise<void>((resolve) => {
        const waiter = () => (waiters.delete(waiter), resolve());
        waiters.add(waiter);
      });
    }
  };
  const request = (id: number, method: string, params?: JsonObject | unknown[]) =>
    transport.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
  const answerTo = (id: number) =>
    messages.find((m) => (m as { id?: unknown }).id === id) as { result?: unknown } | undefined;
  /** Starts the server and has the leak guard check its process is gone at the end. */
  const startGuarded = async (guard: { trackPid(pid: number | undefined): void }) => {
    await transport.start();
    guard.trackPid(transport.pid);
    return transport.pid!;
  };
  /** Resolves once the server answers: its script runs, its handlers are installed. */
  const ready = async () => {
    request(0, 'echo', ['ready']);
    await until(() => answerTo(0) !== undefined);
  };
  return Object.assign(transport, {
    messages,
    problems,
    stderr,
    closes,
    until,
    startGuarded,
    request,
    answerTo,
    ready,
  });
}

describe('StdioTransport', () => {
  it('starts the server, sends a message and receives its answer, one per line', async () => {
    await using guard = leakGuard();
    await using t = serverTransport();
    expect(t.state).toBe('new');
    await t.startGuarded(guard);
    expect(t.state).toBe('open');

    t.request(1, 'echo', { text: 'héllo\nwith a newline inside' });
    t.request(2, 'echo', [1, 2]);
    await t.until(() => t.messages.length === 2);

    expect(t.messages).toEqual([
      { jsonrpc: '2.0', id: 1, result: { text: 'héllo\nwith a newline inside' } },
      { jsonrpc: '2.0', id: 2, result: [1, 2] },
    ]);
    expect(t.problems).toEqual([]);
  });

  it('delivers several messages that arrive in one chunk, in order', async () => {
    await using guard = leakGuard();
    await using t = serverTransport();
    await t.startGuarded(guard);

    t.request(1, 'burst');
    await t.until(() => t.messages.length === 3);

    expect(t.messages).toEqual([
      { jsonrpc: '2.0', method: 'one' },
      { jsonrpc: '2.0', method: 'two' },
      { jsonrpc: '2.0', id: 1, result: 3 },
    ]);
  });

  it('joins a message split across chunks', async () => {
    await using guard = leakGuard();
    await using t = serverTransport();
    await t.startGuarded(guard);

    t.request(1, 'split');
    // The notification came in the chunk that carried the first half of the response.
    await t.until(() => t.messages.length === 1);
    expect(t.messages).toEqual([{ jsonrpc: '2.0', method: 'half' }]);
    // The second half is written only now, so it arrives in a later chunk.
    t.request(2, 'rest');
    await t.until(() => t.messages.length === 2);

    expect(t.messages[1]).toEqual({ jsonrpc: '2.0', id: 1, result: 'whole' });
    expect(t.problems).toEqual([]);
  });

  it('refuses send() before start() with NOT_CONNECTED and after close() with CONNECTION_CLOSED', async () => {
    await using guard = leakGuard();
    await using t = serverTransport();
    const message = { jsonrpc: '2.0' as const, id: 1, method: 'echo' };

    const early = catchError(() => t.send(message));
    expect(early).toBeInstanceOf(McpHostError);
    expect(early).toMatchObject({
      code: 'NOT_CONNECTED',
      serverName: 'unit',
      message: "server 'unit': cannot send: the connection is new",
    });

    await t.startGuarded(guard);
    await t.close();

    expect(catchError(() => t.send(message))).toMatchObject({
      code: 'CONNECTION_CLOSED',
      serverName: 'unit',
      message: "server 'unit': cannot send: the connection is closed",
    });
  });

  it('start() twice starts one server', async () => {
    await using guard = leakGuard();
    await using t = serverTransport();
    const first = t.start();
    expect(t.start()).toBe(first);
    await first;
    guard.trackPid(t.pid);
    t.request(1, 'echo', ['once']);
    await t.until(() => t.messages.length === 1);
    expect(t.messages).toEqual([{ jsonrpc: '2.0', id: 1, result: ['once'] }]);
  });

  it('start() aborted while the process starts: it rejects with ABORTED and the server is stopped', async () => {
    await using guard = leakGuard();
    await using t = serverTransport();
    const controller = new AbortController();
    const started = t.start({ signal: controller.signal });
    // The process is spawned (synchronously, inside start()); the abort comes before its 'spawn'.
    controller.abort(new Error('changed my mind'));
    await expect(started).rejects.toMatchObject({ code: 'ABORTED' });
    guard.trackPid(t.pid);
    expect(t.state).toBe('closed');
    await t.close();
  });

  it('close() ends stdin; a server that exits then is not signalled, and close() is idempotent', async () => {
    await using guard = leakGuard();
    // Graces so long that the test would time out if close() had to send a signal.
    await using t = serverTransport('cooperative', { closeGraceMs: 60_000, termGraceMs: 60_000 });
    const pid = await t.startGuarded(guard);
    await t.ready();

    const first = t.close();
    expect(t.close()).toBe(first);
    expect(t.state).toBe('closing');
    await first;

    expect(t.state).toBe('closed');
    expect(isRunning(pid)).toBe(false);
    expect(t.stderr).toEqual(['stdin ended']);
    await expect(t.close()).resolves.toBeUndefined();
    await expect(t[Symbol.asyncDispose]()).resolves.toBeUndefined();
    // A close asked for has no reason, and fires once.
    expect(t.closes).toEqual([undefined]);
  });

  it('close() sends SIGTERM to a server that ignores stdin EOF', async () => {
    await using guard = leakGuard();
    await using t = serverTransport('ignore-eof', { closeGraceMs: 50, termGraceMs: 60_000 });
    const pid = await t.startGuarded(guard);
    await t.ready();

    await t.close();

    expect(isRunning(pid)).toBe(false);
    expect(t.stderr).toEqual(['stdin ended']);
    expect(t.closes).toEqual([undefined]);
  });

  it('close() ends with SIGKILL for a server that also traps SIGTERM', async () => {
    await using guard = leakGuard();
    await using t = serverTransport('ignore-term', { closeGraceMs: 50, termGraceMs: 500 });
    const pid = await t.startGuarded(guard);
    await t.ready();

    await t.close();

    expect(isRunning(pid)).toBe(false);
    // Each rung was tried before the next: stdin ended, then SIGTERM (sent to the process and to
    // its group, so it may arrive twice), then the kill.
    const [first, ...then] = t.stderr;
    expect(first).toBe('stdin ended');
    expect(then.length).toBeGreaterThan(0);
    expect(then.every((line) => line === 'SIGTERM')).toBe(true);
    expect(t.closes).toEqual([undefined]);
  });

  it('closes with PROCESS_EXITED, the exit code and the stderr tail when the server exits', async () => {
    await using guard = leakGuard();
    await using t = serverTransport();
    const pid = await t.startGuarded(guard);

    t.request(1, 'exit', { code: 3, stderr: 'loading\nfatal: out of cheese\n' });
    await t.until(() => t.closes.length === 1);

    const reason = t.closes[0];
    expect(reason).toBeInstanceOf(ProcessExitedError);
    expect(reason).toMatchObject({
      code: 'PROCESS_EXITED',
      serverName: 'unit',
      exitCode: 3,
      signal: null,
      message: "server 'unit': process exited with code 3; stderr: fatal: out of cheese",
    });
    expect((reason as ProcessExitedError).stderrTail).toBe('loading\nfatal: out of cheese\n');
    expect(t.stderrTail()).toBe('loading\nfatal: out of cheese\n');
    expect(t.state).toBe('closed');
    expect(isRunning(pid)).toBe(false);
    expect(catchError(() => t.request(2, 'echo'))).toMatchObject({ code: 'CONNECTION_CLOSED' });
  });

  it('discards a line over maxMessageBytes as MESSAGE_TOO_LARGE for its request, and keeps the connection', async () => {
    await using guard = leakGuard();
    await using t = serverTransport('cooperative', { maxMessageBytes: 1024 });
    await t.startGuarded(guard);

    t.request(7, 'huge', { bytes: 100_000 });
    await t.until(() => t.problems.length === 1);

    const [problem] = t.problems;
    expect(problem?.requestId).toBe(7);
    expect(problem?.error).toMatchObject({
      code: 'MESSAGE_TOO_LARGE',
      serverName: 'unit',
      requestId: 7,
      details: { maxMessageBytes: 1024 },
    });
    expect(problem?.error.message).toMatch(
      /^server 'unit': discarded a \d+-byte message, over the 1024-byte limit \(maxMessageBytes\)$/,
    );
    expect(t.messages).toEqual([]);

    t.request(8, 'echo', ['still here']);
    await t.until(() => t.answerTo(8) !== undefined);
    expect(t.answerTo(8)?.result).toEqual(['still here']);
    expect(t.state).toBe('open');
    expect(t.stats.oversizedMessages).toBe(1);
  });

  it('reports a broken response that shows its id at once, tied to its request, past the junk rate limit', async () => {
    await using guard = leakGuard();
    await using t = serverTransport();
    await t.startGuarded(guard);

    t.request(5, 'broken');
    await t.until(() => t.problems.some((p) => p.requestId === 5));
    // A burst of 5 junk reports, the rest counted only; the broken response is reported anyway.
    expect(t.problems.map((p) => p.requestId)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      5,
    ]);
    expect(t.problems.every((p) => p.discarded === 'junk')).toBe(true);
    const broken = t.problems.at(-1)!.error;
    expect(broken).toMatchObject({ code: 'INVALID_MESSAGE', requestId: 5, serverName: 'unit' });
    expect(broken.message).toBe(
      'server \'unit\': skipped a response to request 5 that is not valid JSON: {"jsonrpc":"2.0","id":5,"result":{"cut":"sh',
    );
    expect(t.stats.junkLines).toBe(11);
    expect(t.discards).toEqual({ junkMessages: 11, oversizedMessages: 0 });
    expect(t.state).toBe('open');
  });

  it('has the pid of the running server, and counts what it received', async () => {
    await using guard = leakGuard();
    await using t = serverTransport('cooperative', { maxMessageBytes: 1024 });
    expect(t.pid).toBeUndefined();
    expect(t.stats).toEqual({
      messagesReceived: 0,
      junkLines: 0,
      oversizedMessages: 0,
      stderrBytes: 0,
    });
    const pid = await t.startGuarded(guard);
    expect(pid).toBeGreaterThan(0);
    expect(pid).not.toBe(process.pid);
    expect(isRunning(pid)).toBe(true);

    t.request(1, 'echo', ['a']);
    t.request(2, 'junk');
    t.request(3, 'huge', { bytes: 2048 });
    t.request(4, 'stderr', { text: 'twelve bytes\n' });
    await t.until(() => t.answerTo(4) !== undefined && t.stderr.length === 1);

    expect(t.stats).toEqual({
      messagesReceived: 3,
      junkLines: 1,
      oversizedMessages: 1,
      stderrBytes: 13,
    });
    expect(t.stderr).toEqual(['twelve bytes']);
    expect(t.problems.map((p) => p.error.code)).toEqual(['INVALID_MESSAGE', 'MESSAGE_TOO_LARGE']);
    expect(t.problems[0]?.error.message).toBe(
      "server 'unit': skipped a line on stdout that is not JSON: this is not JSON",
    );
  });
});

/** The error `action` throws synchronously. */
function catchError(action: () => void): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
