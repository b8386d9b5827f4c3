import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { McpHostError } from '../errors/mcp-host-error.js';
import type { JsonRpcPeer } from './peer.js';
import {
  conventions,
  connect,
  echoServer,
  track,
  rejection,
} from '../../test/helpers/peer-harness.js';

afterEach(() => {
  vi.useRealTimers();
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

  it('fails each call whose own signal aborts, and the last of a shared signal left waiting', async () => {
    await using h = await connect({ conventions });
    const own = Array.from({ length: 2000 }, () => new AbortController());
    const calls = own.map((controller, i) =>
      h.peer.request('echo', { i }, { signal: controller.signal }).then(
        () => undefined,
        (error: McpHostError) => error,
      ),
    );
    const shared = new AbortController();
    const first = h.peer.request('echo', {}, { signal: shared.signal });
    const second = h.peer.request('echo', {}, { signal: shared.signal });
    for (const controller of own) controller.abort(new Error('stop'));
    const failures = await Promise.all(calls);
    expect(failures.every((error) => error?.code === 'ABORTED')).toBe(true);
    expect(failures.map((error) => error?.requestId)).toEqual(own.map((_, i) => i + 1));
    expect(own.every((c) => getEventListeners(c.signal, 'abort').length === 0)).toBe(true);
    expect(h.peer.pendingCount).toBe(2);
    // One of the shared signal's two calls is answered; its abort still finds the other.
    h.send({ jsonrpc: '2.0', id: 2001, result: {} });
    await first;
    shared.abort(new Error('stop'));
    await expect(second).rejects.toMatchObject({ code: 'ABORTED', requestId: 2002 });
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
    expect(h.peer.pendingCount).toBe(0);
  });

  it('keeps listening to a shared signal between bursts, and its abort fails the next burst', async () => {
    await using h = await connect({ conventions });
    echoServer(h);
    const shared = new AbortController();
    const burst = (): Promise<unknown[]> =>
      Promise.all([1, 2, 3].map((i) => h.peer.request('echo', { i }, { signal: shared.signal })));
    await burst();
    await burst();
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(1);
    // Aborted while idle: nothing fails; later requests on it are refused as before.
    shared.abort(new Error('stop'));
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
    await expect(h.peer.request('echo', {}, { signal: shared.signal })).rejects.toMatchObject({
      code: 'ABORTED',
    });
    expect(h.peer.pendingCount).toBe(0);
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
    // The drained signal stays listened to until another shared signal drains, or the peer closes.
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    const next = new AbortController();
    await Promise.all([1, 2].map(() => h.peer.request('echo', {}, { signal: next.signal })));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(next.signal, 'abort')).toHaveLength(1);
    await h.peer.close();
    expect(getEventListeners(next.signal, 'abort')).toHaveLength(0);
    expect(h.peer.stats).toMatchObject({
      requestsSent: count + 2,
      responsesReceived: count + 2,
      unknownResponses: 0,
      lateResponses: 0,
    });
  });
});
