import { afterEach, describe, expect, it, vi } from 'vitest';
import { JsonRpcError } from '../errors/json-rpc-error.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { createLinkedTransports } from '../transport/in-memory.js';
import { JsonRpcPeer } from './peer.js';
import type { DiscardEvent } from './peer-options.js';
import { connect, echoServer, track, rejection } from '../../test/helpers/peer-harness.js';

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

describe('JsonRpcPeer: what it discards', () => {
  it('reports responses nobody waits for through onDiscarded, a burst of 5 then 1 a second', async () => {
    vi.useFakeTimers();
    await using h = await connect({ serverName: 'files' });
    const events: DiscardEvent[] = [];
    h.peer.onDiscarded((event) => events.push(event));
    const call = h.peer.request('a');
    await h.next();
    h.send({ jsonrpc: '2.0', id: 1, result: 'answer' });
    await expect(call).resolves.toBe('answer');
    h.send({ jsonrpc: '2.0', id: 1, result: 'duplicate' });
    for (let i = 0; i < 20; i++) h.send({ jsonrpc: '2.0', id: 1000 + i, result: 'stray' });
    h.send({ jsonrpc: '2.0', id: 'x'.repeat(500), result: 'long stray id' });
    await h.barrier();

    expect(h.peer.stats).toMatchObject({ lateResponses: 1, unknownResponses: 21 });
    expect(events.map((e) => e.kind)).toEqual([
      'late_response',
      'unknown_response',
      'unknown_response',
      'unknown_response',
      'unknown_response',
    ]);
    expect(events[0]!.error).toMatchObject({
      code: 'INVALID_MESSAGE',
      serverName: 'files',
      requestId: 1,
      details: { late: true, suppressed: 0 },
    });
    expect(events[0]!.error.message).toBe(
      "server 'files': dropped a response to id 1: its request was already settled (a duplicate, or an answer after a timeout or cancel)",
    );
    expect(events[1]!.error.message).toBe(
      "server 'files': dropped a response to id 1000: no request of ours has that id",
    );
    expect(events[1]!.error.requestId).toBeUndefined();

    await vi.advanceTimersByTimeAsync(1000);
    h.send({ jsonrpc: '2.0', id: 'y'.repeat(500), result: 'after a second' });
    await h.barrier();
    expect(events).toHaveLength(6);
    const last = events[5]!.error;
    expect(last.message).toMatch(
      /^server 'files': dropped a response to id "y{20,}…?.*\(17 more since the last report\)$/,
    );
    expect(last.message.length).toBeLessThan(200);
    expect(last.details).toMatchObject({ suppressed: 17 });
  });

  it('reports invalid messages and what the transport says it discarded; other problems are not discards', async () => {
    await using h = await connect();
    const events: DiscardEvent[] = [];
    h.peer.onDiscarded((event) => events.push(event));
    h.send({ jsonrpc: '1.0', id: 1, result: 'old' });
    await h.barrier();
    const junk = new McpHostError('INVALID_MESSAGE', 'a line that is not JSON');
    const tooLarge = new McpHostError('MESSAGE_TOO_LARGE', 'a 20 MiB message');
    const refused = new McpHostError('HTTP_STATUS', 'HTTP 500');
    h.client.injectProblem({ error: junk, discarded: 'junk' });
    h.client.injectProblem({ error: tooLarge, discarded: 'oversized' });
    h.client.injectProblem({ error: refused });
    expect(events.map((e) => e.kind)).toEqual(['invalid', 'junk', 'oversized']);
    expect(events[0]!.error.message).toContain('without "jsonrpc": "2.0"');
    expect(events[1]!.error).toBe(junk);
    expect(events[2]!.error).toBe(tooLarge);
  });

  it("counts the transport's discards in its stats", async () => {
    await using h = await connect();
    expect(h.peer.stats).toMatchObject({ junkMessages: 0, oversizedMessages: 0 });
    Object.defineProperty(h.client, 'discards', {
      get: () => ({ junkMessages: 3, oversizedMessages: 1 }),
    });
    expect(h.peer.stats).toMatchObject({ junkMessages: 3, oversizedMessages: 1 });
    // A copy: changing it changes nothing.
    const stats = h.peer.stats;
    stats.requestsSent = 99;
    expect(h.peer.stats.requestsSent).toBe(0);
  });
});
