import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JsonRpcError, McpHostError } from '../errors/index.js';
import { createLinkedTransports, type InMemoryTransport } from '../transport/in-memory.js';
import type { JsonRpcMessage } from './message.js';
import type { JsonRpcPeerOptions } from './peer-options.js';
import { JsonRpcPeer } from './peer.js';
import { mcpConventions, type Wire } from '../../test/helpers/wire.js';

const conventions = mcpConventions;

interface Harness extends AsyncDisposable {
  peer: JsonRpcPeer;
  client: InMemoryTransport;
  /** The other end, driven by hand. */
  server: InMemoryTransport;
  /** Everything the server end received, in order. */
  received: Wire[];
  /** The next message the server end receives. */
  next(): Promise<Wire>;
  /** Sends anything (including invalid messages) from the server end. */
  send(message: unknown): void;
  /** Sends a notification from the peer and waits for the server to get it: what the peer sent before it has arrived too. */
  barrier(): Promise<void>;
}

async function connect(options: JsonRpcPeerOptions = {}): Promise<Harness> {
  const [client, server] = createLinkedTransports();
  const peer = new JsonRpcPeer(client, options);
  await server.start();
  await peer.start();
  const received: Wire[] = [];
  const backlog: Wire[] = [];
  const waiters: ((message: Wire) => void)[] = [];
  server.onMessage((message) => {
    received.push(message as Wire);
    const waiter = waiters.shift();
    if (waiter === undefined) backlog.push(message as Wire);
    else waiter(message as Wire);
  });
  const next = (): Promise<Wire> => {
    const message = backlog.shift();
    return message !== undefined
      ? Promise.resolve(message)
      : new Promise((resolve) => waiters.push(resolve));
  };
  let barriers = 0;
  return {
    peer,
    client,
    server,
    received,
    next,
    send: (message) => server.send(message as JsonRpcMessage),
    async barrier() {
      const name = `test/barrier-${++barriers}`;
      peer.notify(name);
      for (;;) if ((await next()).method === name) return;
    },
    async [Symbol.asyncDispose]() {
      await peer.close();
      await server.close();
    },
  };
}

/** Answers every request with its params, from the server end. */
function echoServer(h: Harness): void {
  h.server.onMessage((message) => {
    const m = message as Wire;
    if (m.id !== undefined && m.method !== undefined)
      h.send({ jsonrpc: '2.0', id: m.id, result: m.params ?? {} });
  });
}

/** Records how a promise settles, and how many times. */
function track<T>(promise: Promise<T>): { settled: number; value?: T; error?: unknown } {
  const state: { settled: number; value?: T; error?: unknown } = { settled: 0 };
  promise.then(
    (value) => {
      state.settled++;
      state.value = value;
    },
    (error: unknown) => {
      state.settled++;
      state.error = error;
    },
  );
  return state;
}

/** The error a promise rejects with (handled from the start, so no unhandled rejection while waiting). */
async function rejection(promise: Promise<unknown>): Promise<McpHostError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpHostError);
  return error as McpHostError;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('JsonRpcPeer: requests and responses', () => {
  it('sends a numbered request and resolves with the result', async () => {
    await using h = await connect();
    const call = h.peer.request('tools/list', { cursor: 'c' });
    const sent = await h.next();
    expect(sent).toEqual({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'c' } });
    h.send({ jsonrpc: '2.0', id: sent.id, result: { tools: [] } });
    await expect(call).resolves.toEqual({ tools: [] });
    const second = h.peer.request('ping');
    expect(await h.next()).toEqual({ jsonrpc: '2.0', id: 2, method: 'ping' });
    h.send({ jsonrpc: '2.0', id: 2, result: {} });
    await second;
    expect(h.peer.pendingCount).toBe(0);
    expect(h.peer.stats).toMatchObject({ requestsSent: 2, responsesReceived: 2 });
  });

  it('rejects with a JsonRpcError carrying what the other side sent', async () => {
    await using h = await connect({ serverName: 'files' });
    const call = h.peer.request('tools/call', { name: 'x' });
    const { id } = await h.next();
    h.send({
      jsonrpc: '2.0',
      id,
      error: { code: -32602, message: 'Unknown tool: x', data: { tool: 'x' } },
    });
    const error: unknown = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({
      code: -32602,
      message: 'Unknown tool: x',
      data: { tool: 'x' },
      serverName: 'files',
      method: 'tools/call',
    });
  });

  it('refuses to send before start and after close, with typed errors', async () => {
    const [client, server] = createLinkedTransports();
    const peer = new JsonRpcPeer(client);
    expect((await rejection(peer.request('ping'))).code).toBe('NOT_CONNECTED');
    expect(() => peer.notify('x')).toThrow(expect.objectContaining({ code: 'NOT_CONNECTED' }));
    await peer.start();
    await peer.close();
    expect((await rejection(peer.request('ping'))).code).toBe('CONNECTION_CLOSED');
    expect(() => peer.notify('x')).toThrow(expect.objectContaining({ code: 'CONNECTION_CLOSED' }));
    expect(server.state).toBe('closed');
  });

  it('sends notifications', async () => {
    await using h = await connect();
    h.peer.notify('notifications/initialized');
    h.peer.notify('notifications/message', { level: 'info' });
    expect(await h.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(await h.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info' },
    });
    expect(h.peer.stats.notificationsSent).toBe(2);
  });
});

describe('JsonRpcPeer: correlation', () => {
  it('drops and counts responses for ids never used; a string "1" never answers request 1', async () => {
    await using h = await connect();
    const call = track(h.peer.request('ping'));
    const { id } = await h.next();
    expect(id).toBe(1);
    h.send({ jsonrpc: '2.0', id: '1', result: 'string id' });
    h.send({ jsonrpc: '2.0', id: 999, result: 'never used' });
    h.send({ jsonrpc: '2.0', id: 1.5, result: 'not an integer' });
    h.send({ jsonrpc: '2.0', id: -1, result: 'negative' });
    h.send({ jsonrpc: '2.0', id: null, result: 'null' });
    h.send({ jsonrpc: '2.0', id: '1', error: { code: 1, message: 'string id error' } });
    await h.barrier();
    expect(call.settled).toBe(0);
    expect(h.peer.stats.unknownResponses).toBe(6);
    h.send({ jsonrpc: '2.0', id: 1, result: 'right' });
    await h.barrier();
    expect(call).toEqual({ settled: 1, value: 'right' });
    expect(h.peer.stats.responsesReceived).toBe(1);
  });

  it('delivers a duplicate response never: it is dropped, counted, and answers no other call', async () => {
    await using h = await connect();
    const first = track(h.peer.request('a'));
    const second = track(h.peer.request('b'));
    await h.next();
    await h.next();
    h.send({ jsonrpc: '2.0', id: 1, result: 'first' });
    h.send({ jsonrpc: '2.0', id: 1, result: 'duplicate' });
    h.send({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'duplicate error' } });
    await h.barrier();
    expect(first).toEqual({ settled: 1, value: 'first' });
    expect(second.settled).toBe(0);
    expect(h.peer.stats.lateResponses).toBe(2);
    h.send({ jsonrpc: '2.0', id: 2, result: 'second' });
    await h.barrier();
    expect(second).toEqual({ settled: 1, value: 'second' });
  });

  it('drops a late response after a timeout, and the next 100 calls still succeed', async () => {
    vi.useFakeTimers();
    await using h = await connect({ requestTimeoutMs: 1_000 });
    const slow = rejection(h.peer.request('slow'));
    const { id } = await h.next();
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await slow).code).toBe('REQUEST_TIMEOUT');
    h.send({ jsonrpc: '2.0', id, result: 'too late' });
    await h.barrier();
    expect(h.peer.stats.lateResponses).toBe(1);
    echoServer(h);
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => h.peer.request('echo', { i })),
    );
    expect(results).toEqual(Array.from({ length: 100 }, (_, i) => ({ i })));
    expect(h.peer.pendingCount).toBe(0);
    expect(h.peer.hasTimers).toBe(false);
  });

  it.each([
    [
      'both result and error',
      { result: 1, error: { code: 1, message: 'x' } },
      /both result and error/,
    ],
    ['neither result nor error', {}, /neither result nor error/],
    ['an error that is not an error object', { error: 'failed' }, /invalid error object/],
  ])('fails the call with INVALID_MESSAGE for a response with %s', async (_name, body, pattern) => {
    await using h = await connect();
    const bad = h.peer.request('bad');
    const good = h.peer.request('good');
    await h.next();
    await h.next();
    h.send({ jsonrpc: '2.0', id: 1, ...body });
    const error = await rejection(bad);
    expect(error.code).toBe('INVALID_MESSAGE');
    expect(error.message).toMatch(pattern);
    expect(error).toMatchObject({ method: 'bad', requestId: 1 });
    expect(h.peer.stats.invalidMessages).toBe(1);
    h.send({ jsonrpc: '2.0', id: 2, result: 'fine' });
    await expect(good).resolves.toBe('fine');
  });

  it('fails the one call a transport problem names, and reports every problem', async () => {
    await using h = await connect();
    const problems: unknown[] = [];
    h.peer.onProblem((problem) => problems.push(problem));
    const first = h.peer.request('big');
    const second = track(h.peer.request('other'));
    await h.next();
    await h.next();
    const tooLarge = new McpHostError('MESSAGE_TOO_LARGE', 'discarded a 20 MiB message', {
      requestId: 1,
    });
    h.client.injectProblem({ error: tooLarge, requestId: 1 });
    expect(await rejection(first)).toBe(tooLarge);
    // A string id never names numeric request 2; a problem without an id fails nothing.
    const junk = new McpHostError('INVALID_MESSAGE', 'junk');
    h.client.injectProblem({ error: junk, requestId: '2' });
    h.client.injectProblem({ error: junk });
    await h.barrier();
    expect(second.settled).toBe(0);
    expect(problems).toEqual([
      { error: tooLarge, requestId: 1 },
      { error: junk, requestId: '2' },
      { error: junk },
    ]);
    h.send({ jsonrpc: '2.0', id: 2, result: 'ok' });
    await h.barrier();
    expect(second).toEqual({ settled: 1, value: 'ok' });
  });

  it('fails a call at once when the transport refuses to send it', async () => {
    await using h = await connect();
    const refusal = new McpHostError('OUTBOUND_BUFFER_FULL', 'not sent');
    const send = vi.spyOn(h.client, 'send').mockImplementationOnce(() => {
      throw refusal;
    });
    expect(await rejection(h.peer.request('x'))).toBe(refusal);
    send.mockRestore();
    expect(h.peer.pendingCount).toBe(0);
    expect(h.peer.hasTimers).toBe(false);
  });
});

describe('JsonRpcPeer: timeouts and progress', () => {
  it('fails with REQUEST_TIMEOUT (kind idle) after the idle timeout, and tells the other side', async () => {
    vi.useFakeTimers();
    await using h = await connect({ serverName: 'slow', conventions, requestTimeoutMs: 5_000 });
    const call = track(h.peer.request('tools/call', { name: 'sleep' }));
    await h.next();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(call.settled).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(call.settled).toBe(1);
    const error = call.error as McpHostError;
    expect(error).toBeInstanceOf(McpHostError);
    expect(error).toMatchObject({
      code: 'REQUEST_TIMEOUT',
      serverName: 'slow',
      method: 'tools/call',
      requestId: 1,
      details: { kind: 'idle', timeoutMs: 5_000 },
    });
    expect(await h.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1, reason: 'timed out' },
    });
    expect(h.peer.pendingCount).toBe(0);
    expect(h.peer.hasTimers).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('uses the per-request timeout over the peer default', async () => {
    vi.useFakeTimers();
    await using h = await connect({ requestTimeoutMs: 60_000 });
    const call = track(h.peer.request('x', undefined, { timeoutMs: 100 }));
    await vi.advanceTimersByTimeAsync(100);
    expect((call.error as McpHostError).details).toEqual({ kind: 'idle', timeoutMs: 100 });
  });

  it('sends no cancel with sendCancel: false, nor when the protocol has no cancel convention', async () => {
    vi.useFakeTimers();
    {
      await using h = await connect({ conventions, requestTimeoutMs: 100 });
      const call = rejection(h.peer.request('initialize', {}, { sendCancel: false }));
      await vi.advanceTimersByTimeAsync(100);
      expect((await call).code).toBe('REQUEST_TIMEOUT');
      await h.barrier();
      expect(h.received.map((m) => m.method)).toEqual(['initialize', 'test/barrier-1']);
    }
    {
      await using h = await connect({ requestTimeoutMs: 100 });
      const call = rejection(h.peer.request('x'));
      await vi.advanceTimersByTimeAsync(100);
      expect((await call).code).toBe('REQUEST_TIMEOUT');
      await h.barrier();
      expect(h.received.map((m) => m.method)).toEqual(['x', 'test/barrier-1']);
    }
  });

  it('puts a progress token on the request and lets progress restart the idle timer', async () => {
    vi.useFakeTimers();
    await using h = await connect({ conventions, requestTimeoutMs: 1_000 });
    const progress: unknown[] = [];
    const call = track(
      h.peer.request('tools/call', { name: 'long' }, { onProgress: (p) => progress.push(p) }),
    );
    const sent = await h.next();
    expect(sent.params).toEqual({ name: 'long', _meta: { progressToken: 1 } });
    for (let step = 1; step <= 5; step++) {
      await vi.advanceTimersByTimeAsync(900);
      h.send({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 1, progress: step },
      });
      await h.barrier();
    }
    // 4.5 s in, well past the 1 s idle timeout, and still waiting.
    expect(call.settled).toBe(0);
    expect(progress).toEqual([1, 2, 3, 4, 5].map((step) => ({ progressToken: 1, progress: step })));
    await vi.advanceTimersByTimeAsync(999);
    expect(call.settled).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect((call.error as McpHostError).details).toMatchObject({ kind: 'idle' });
  });

  it('does not restart the idle timer on progress with resetTimeoutOnProgress: false', async () => {
    vi.useFakeTimers();
    await using h = await connect({ conventions, requestTimeoutMs: 1_000 });
    const onProgress = vi.fn();
    const call = track(h.peer.request('x', {}, { onProgress, resetTimeoutOnProgress: false }));
    await h.next();
    await vi.advanceTimersByTimeAsync(900);
    h.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1 } });
    await h.barrier();
    expect(onProgress).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(100);
    expect((call.error as McpHostError).details).toMatchObject({ kind: 'idle' });
  });

  it('enforces the total cap under steady progress', async () => {
    vi.useFakeTimers();
    await using h = await connect({
      conventions,
      requestTimeoutMs: 1_000,
      maxTotalTimeoutMs: 5_000,
    });
    const onProgress = vi.fn();
    const call = track(h.peer.request('x', {}, { onProgress }));
    await h.next();
    let elapsed = 0;
    while (call.settled === 0 && elapsed < 20_000) {
      await vi.advanceTimersByTimeAsync(250);
      elapsed += 250;
      h.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1 } });
      await h.barrier();
    }
    expect(elapsed).toBe(5_000);
    expect(call.error).toMatchObject({ code: 'REQUEST_TIMEOUT', details: { kind: 'total' } });
    expect(onProgress.mock.calls.length).toBeGreaterThanOrEqual(19);
    const cancel = h.received.find((m) => m.method === 'notifications/cancelled');
    expect(cancel?.params).toEqual({ requestId: 1, reason: 'total time limit exceeded' });
    expect(h.peer.hasTimers).toBe(false);
  });

  it('takes a per-request total cap, and holds no timer for infinite timeouts', async () => {
    vi.useFakeTimers();
    await using h = await connect({ requestTimeoutMs: Infinity, maxTotalTimeoutMs: Infinity });
    const unbounded = track(h.peer.request('forever'));
    expect(h.peer.hasTimers).toBe(false);
    const capped = track(h.peer.request('capped', undefined, { maxTotalTimeoutMs: 300 }));
    expect(h.peer.hasTimers).toBe(true);
    await vi.advanceTimersByTimeAsync(300);
    expect(capped.error).toMatchObject({ code: 'REQUEST_TIMEOUT', details: { kind: 'total' } });
    expect(h.peer.hasTimers).toBe(false);
    expect(unbounded.settled).toBe(0);
  });

  it('passes progress it cannot match to notification handlers', async () => {
    await using h = await connect({ conventions });
    const handler = vi.fn();
    h.peer.setNotificationHandler('notifications/progress', handler);
    const call = h.peer.request('no-progress-wanted');
    await h.next();
    h.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1 } });
    h.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 77 } });
    h.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: '1' } });
    await h.barrier();
    expect(handler).toHaveBeenCalledTimes(3);
    h.send({ jsonrpc: '2.0', id: 1, result: {} });
    await call;
  });
});

describe('JsonRpcPeer: abort', () => {
  it('rejects at once with ABORTED and the reason as cause, removes its listener, and sends a cancel', async () => {
    vi.useFakeTimers();
    await using h = await connect({ conventions });
    const controller = new AbortController();
    const call = track(h.peer.request('tools/call', {}, { signal: controller.signal }));
    await h.next();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    const reason = new Error('user pressed stop');
    controller.abort(reason);
    await Promise.resolve(); // one microtask for the promise reaction; no timer advanced
    expect(call.settled).toBe(1);
    expect(call.error).toMatchObject({ code: 'ABORTED', method: 'tools/call', requestId: 1 });
    expect((call.error as McpHostError).cause).toBe(reason);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(await h.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1, reason: 'cancelled by the caller' },
    });
    expect(h.peer.pendingCount).toBe(0);
    expect(h.peer.hasTimers).toBe(false);
  });

  it('sends no cancel for an aborted request with sendCancel: false', async () => {
    await using h = await connect({ conventions });
    const controller = new AbortController();
    const call = h.peer.request('initialize', {}, { signal: controller.signal, sendCancel: false });
    await h.next();
    controller.abort();
    expect((await rejection(call)).code).toBe('ABORTED');
    await h.barrier();
    expect(h.received.map((m) => m.method)).toEqual(['initialize', 'test/barrier-1']);
  });

  it('rejects an already-aborted signal without sending anything', async () => {
    await using h = await connect({ conventions });
    const reason = new Error('too late');
    const error = await rejection(h.peer.request('x', {}, { signal: AbortSignal.abort(reason) }));
    expect(error.code).toBe('ABORTED');
    expect(error.cause).toBe(reason);
    await h.barrier();
    expect(h.received.map((m) => m.method)).toEqual(['test/barrier-1']);
    expect(h.peer.stats.requestsSent).toBe(0);
  });

  it('leaves no listener on the signal once answered, and a later abort does nothing', async () => {
    await using h = await connect({ conventions });
    const controller = new AbortController();
    const call = h.peer.request('x', {}, { signal: controller.signal });
    h.send({ jsonrpc: '2.0', id: (await h.next()).id, result: 'done' });
    await expect(call).resolves.toBe('done');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    controller.abort();
    await h.barrier();
    expect(h.received.map((m) => m.method)).toEqual(['x', 'test/barrier-1']);
  });
});

describe('JsonRpcPeer: close', () => {
  it('rejects every pending call exactly once with CONNECTION_CLOSED, and leaves nothing behind', async () => {
    vi.useFakeTimers();
    const h = await connect({ conventions, serverName: 'db' });
    const closes: unknown[] = [];
    h.peer.onClose((reason) => closes.push(reason));
    const controller = new AbortController();
    const calls = Array.from({ length: 50 }, (_, i) =>
      track(
        h.peer.request(
          `m${i}`,
          {},
          i % 2 === 0 ? { signal: controller.signal, onProgress: () => {} } : {},
        ),
      ),
    );
    expect(h.peer.pendingCount).toBe(50);
    await Promise.all([h.peer.close(), h.peer.close()]);
    await Promise.resolve();
    expect(calls.map((c) => c.settled)).toEqual(Array(50).fill(1));
    calls.forEach((call, i) => {
      expect(call.error).toMatchObject({
        code: 'CONNECTION_CLOSED',
        serverName: 'db',
        method: `m${i}`,
        requestId: i + 1,
      });
    });
    expect(closes).toEqual([undefined]);
    expect(h.peer.state).toBe('closed');
    expect(h.peer.pendingCount).toBe(0);
    expect(h.peer.hasTimers).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    // Nothing can settle them again: not an abort, not time passing, not another close.
    controller.abort();
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    await h.peer.close();
    expect(calls.map((c) => c.settled)).toEqual(Array(50).fill(1));
    expect(closes).toHaveLength(1);
    await h.server.close();
  });

  it('when the other side closes, rejects pending calls with its reason and fires onClose once', async () => {
    await using h = await connect();
    const reasons: unknown[] = [];
    h.peer.onClose((reason) => reasons.push(reason));
    const call = h.peer.request('x');
    await h.next();
    await h.server.close();
    const error = await rejection(call);
    expect(error.code).toBe('CONNECTION_CLOSED');
    expect(reasons).toEqual([error]);
    expect(h.peer.state).toBe('closed');
    expect(await rejection(h.peer.request('y'))).toBe(error);
  });

  it('closes with `await using`', async () => {
    let peer: JsonRpcPeer | undefined;
    {
      await using h = await connect();
      peer = h.peer;
      expect(peer.state).toBe('open');
    }
    expect(peer.state).toBe('closed');
  });
});

describe('JsonRpcPeer: shared signals', () => {
  it('aborts every call that shares a signal, and only those', async () => {
    await using h = await connect({ conventions });
    const shared = new AbortController();
    const calls = Array.from({ length: 20 }, (_, i) =>
      h.peer.request('echo', { i }, { signal: shared.signal }).then(
        () => 'resolved',
        (error: McpHostError) => error.code,
      ),
    );
    const other = h.peer.request('echo', {}, { signal: new AbortController().signal });
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(1);
    shared.abort(new Error('stop'));
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 20 }, () => 'ABORTED'));
    expect(h.peer.pendingCount).toBe(1);
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
    await h.peer.close();
    await expect(other).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
  });
});

describe('JsonRpcPeer: load', () => {
  it('answers 10,000 concurrent requests, then holds no pending entry, timer or signal listener', async () => {
    await using h = await connect({ conventions });
    echoServer(h);
    // One signal shared by every call, as a host-wide shutdown signal would be. The peer listens to
    // it once, however many calls share it (a listener each would trip MaxListenersExceeded).
    const controller = new AbortController();
    const count = 10_000;
    const calls = Array.from({ length: count }, (_, i) =>
      h.peer.request<{ i: number }>('echo', { i }, { signal: controller.signal }),
    );
    expect(h.peer.pendingCount).toBe(count);
    expect(h.peer.hasTimers).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    const results = await Promise.all(calls);
    expect(results.every((result, i) => result.i === i)).toBe(true);
    expect(h.peer.pendingCount).toBe(0);
    expect(h.peer.hasTimers).toBe(false);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(h.peer.stats).toMatchObject({
      requestsSent: count,
      responsesReceived: count,
      unknownResponses: 0,
      lateResponses: 0,
    });
  });
});
