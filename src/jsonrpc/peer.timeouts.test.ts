import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpHostError } from '../errors/mcp-host-error.js';
import type { Transport } from './transport.js';
import { conventions, connect, track, rejection } from '../../test/helpers/peer-harness.js';

afterEach(() => {
  vi.useRealTimers();
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

  it('abandons a call whose transport timed out (REQUEST_TIMEOUT problem) and tells the other side', async () => {
    await using h = await connect({ serverName: 'slow', conventions });
    const abandoned: (string | number)[] = [];
    const transport: Transport = h.client;
    transport.abandon = (id) => void abandoned.push(id);
    const timedOut = h.peer.request('tools/call', { name: 'sleep' });
    const refused = h.peer.request('tools/call', { name: 'other' });
    const init = h.peer.request('initialize', {}, { sendCancel: false });
    await h.next();
    await h.next();
    await h.next();
    const headers = new McpHostError('REQUEST_TIMEOUT', 'no response headers within 10 ms', {
      requestId: 1,
      details: { kind: 'headers' },
    });
    h.client.injectProblem({ error: headers, requestId: 1 });
    expect(await rejection(timedOut)).toBe(headers);
    // Any other problem fails the call without a cancellation; initialize is never cancelled.
    h.client.injectProblem({ error: new McpHostError('HTTP_STATUS', 'HTTP 500'), requestId: 2 });
    expect((await rejection(refused)).code).toBe('HTTP_STATUS');
    h.client.injectProblem({ error: headers, requestId: 3 });
    expect(await rejection(init)).toBe(headers);
    await h.barrier();
    expect(h.received.slice(3).map((m) => [m.method, m.params])).toEqual([
      ['notifications/cancelled', { requestId: 1, reason: 'timed out' }],
      ['test/barrier-1', undefined],
    ]);
    expect(abandoned).toEqual([1, 3]);
    expect(h.peer.pendingCount).toBe(0);
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
