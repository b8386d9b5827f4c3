import { describe, expect, it, vi } from 'vitest';
import { JsonRpcError } from '../errors/json-rpc-error.js';
import { type McpHostError } from '../errors/mcp-host-error.js';
import { deferred } from '../internal/wait.js';
import type { RequestContext } from './peer-options.js';
import { type Wire } from '../../test/helpers/wire.js';
import { conventions, connectInbound, testLogger } from '../../test/helpers/peer-harness.js';

describe('JsonRpcPeer: incoming requests', () => {
  it('answers with what the handler returns, sync or async, and gives it params and context', async () => {
    await using h = await connectInbound();
    const contexts: RequestContext[] = [];
    h.peer.setRequestHandler('sampling/createMessage', (params, context) => {
      contexts.push(context);
      return { echoed: params };
    });
    h.peer.setRequestHandler('roots/list', async () => {
      await Promise.resolve();
      return { roots: [] };
    });
    h.peer.setRequestHandler('ping', () => undefined);
    expect(await h.call(1, 'sampling/createMessage', { a: 1 })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { echoed: { a: 1 } },
    });
    expect(await h.call('s-2', 'roots/list')).toEqual({
      jsonrpc: '2.0',
      id: 's-2',
      result: { roots: [] },
    });
    expect(await h.call(3, 'ping')).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    expect(contexts).toHaveLength(1);
    expect(contexts[0]).toMatchObject({ id: 1, method: 'sampling/createMessage' });
    expect(contexts[0]!.signal.aborted).toBe(false);
    expect(h.peer.inboundCount).toBe(0);
    expect(h.peer.stats.requestsReceived).toBe(3);
  });

  it('answers a thrown JsonRpcError with its code, message and data', async () => {
    await using h = await connectInbound();
    h.peer.setRequestHandler('elicitation/create', () => {
      throw new JsonRpcError(-32602, 'Invalid schema', { data: { field: 'email' } });
    });
    h.peer.setRequestHandler('async-fail', () => Promise.reject(new JsonRpcError(-1, 'declined')));
    expect(await h.call(1, 'elicitation/create')).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'Invalid schema', data: { field: 'email' } },
    });
    expect((await h.call(2, 'async-fail')).error).toEqual({ code: -1, message: 'declined' });
  });

  it('answers any other thrown error with -32603', async () => {
    await using h = await connectInbound();
    h.peer.setRequestHandler('broken', () => {
      throw new TypeError('x is undefined');
    });
    expect((await h.call(1, 'broken')).error).toEqual({ code: -32603, message: 'x is undefined' });
  });

  it('answers an unknown method with -32601, uses the * handler when set, and forgets disposed handlers', async () => {
    await using h = await connectInbound();
    expect((await h.call(1, 'nope')).error).toMatchObject({ code: -32601 });
    const handler = h.peer.setRequestHandler('known', () => 'known');
    const fallback = h.peer.setRequestHandler(
      '*',
      (_params, { method }) => `fallback for ${method}`,
    );
    expect((await h.call(2, 'known')).result).toBe('known');
    expect((await h.call(3, 'other')).result).toBe('fallback for other');
    handler.dispose();
    expect((await h.call(4, 'known')).result).toBe('fallback for known');
    fallback.dispose();
    expect((await h.call(5, 'known')).error).toMatchObject({ code: -32601 });
  });

  it('aborts the handler signal on an incoming cancel and sends no response', async () => {
    await using h = await connectInbound({ conventions });
    const started = deferred<RequestContext>();
    const finish = deferred();
    h.peer.setRequestHandler('tools/call', async (_params, context) => {
      started.resolve(context);
      await finish.promise;
      return { content: [] };
    });
    h.send({ jsonrpc: '2.0', id: 7, method: 'tools/call' });
    const context = await started.promise;
    expect(h.peer.inboundCount).toBe(1);
    h.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 7, reason: 'user' },
    });
    await h.barrier();
    expect(context.signal.aborted).toBe(true);
    expect(context.signal.reason).toMatchObject({ code: 'ABORTED' });
    finish.resolve(); // the handler finishes anyway; its result must not be sent
    await finish.promise;
    await h.barrier();
    expect(h.received.filter((m) => m.id === 7)).toEqual([]);
    expect(h.peer.inboundCount).toBe(0);
  });

  it('ignores a cancel for a request it does not know, or of the wrong id type', async () => {
    await using h = await connectInbound({ conventions });
    const finish = deferred();
    let signal: AbortSignal | undefined;
    h.peer.setRequestHandler('work', async (_params, context) => {
      signal = context.signal;
      await finish.promise;
      return 'done';
    });
    const response = h.call(1, 'work');
    h.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: '1' } });
    h.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } });
    h.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: {} });
    h.send({ jsonrpc: '2.0', method: 'notifications/cancelled' });
    await h.barrier();
    expect(signal?.aborted).toBe(false);
    finish.resolve();
    expect((await response).result).toBe('done');
  });

  it('refuses a second request with an id still in flight', async () => {
    await using h = await connectInbound();
    const finish = deferred();
    h.peer.setRequestHandler('slow', async () => {
      await finish.promise;
      return 'first';
    });
    const answers: Wire[] = [];
    const bothAnswered = new Promise<void>((resolve) => {
      h.server.onMessage((message) => {
        if ((message as Wire).id === 1 && answers.push(message as Wire) === 2) resolve();
      });
    });
    h.send({ jsonrpc: '2.0', id: 1, method: 'slow' });
    h.send({ jsonrpc: '2.0', id: 1, method: 'slow' });
    await h.barrier();
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'Request id 1 is already in use' } },
    ]);
    finish.resolve();
    await bothAnswered;
    expect(answers[1]).toEqual({ jsonrpc: '2.0', id: 1, result: 'first' });
  });

  it('refuses requests past maxInboundRequests with an error response', async () => {
    await using h = await connectInbound({ maxInboundRequests: 2 });
    const finish = deferred();
    h.peer.setRequestHandler('slow', async () => {
      await finish.promise;
      return 'ok';
    });
    const answers = [h.call(1, 'slow'), h.call(2, 'slow'), h.call(3, 'slow')];
    expect((await answers[2]!).error).toMatchObject({
      code: -32603,
      message: 'Too many concurrent requests',
    });
    expect(h.peer.inboundCount).toBe(2);
    finish.resolve();
    expect((await Promise.all(answers.slice(0, 2))).map((m) => m.result)).toEqual(['ok', 'ok']);
    expect(h.peer.inboundCount).toBe(0);
  });

  it('aborts running handlers when the connection closes', async () => {
    const h = await connectInbound();
    const started = deferred<AbortSignal>();
    h.peer.setRequestHandler('slow', (_params, { signal }) => {
      started.resolve(signal);
      return new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason as Error)),
      );
    });
    h.send({ jsonrpc: '2.0', id: 1, method: 'slow' });
    const signal = await started.promise;
    await h.peer.close();
    expect(signal.aborted).toBe(true);
    expect((signal.reason as McpHostError).code).toBe('CONNECTION_CLOSED');
    expect(h.peer.inboundCount).toBe(0);
    await h.server.close();
  });
});

describe('JsonRpcPeer: incoming notifications', () => {
  it('calls the handler for the method, else the * handler', async () => {
    await using h = await connectInbound();
    const specific = vi.fn();
    const fallback = vi.fn();
    h.peer.setNotificationHandler('notifications/tools/list_changed', specific);
    h.peer.setNotificationHandler('*', fallback);
    h.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    h.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info' } });
    await h.barrier();
    expect(specific).toHaveBeenCalledWith(undefined, 'notifications/tools/list_changed');
    expect(fallback).toHaveBeenCalledWith({ level: 'info' }, 'notifications/message');
    expect(fallback).toHaveBeenCalledOnce();
    expect(h.peer.stats.notificationsReceived).toBe(2);
  });

  it('survives handlers that throw or reject, and logs them', async () => {
    const logger = testLogger();
    await using h = await connectInbound({ logger, serverName: 'noisy' });
    h.peer.setNotificationHandler('sync', () => {
      throw new Error('sync boom');
    });
    h.peer.setNotificationHandler('async', () => Promise.reject(new Error('async boom')));
    h.send({ jsonrpc: '2.0', method: 'sync' });
    h.send({ jsonrpc: '2.0', method: 'async' });
    await h.barrier();
    await h.barrier();
    expect(logger.warnings.map((args) => (args[1] as { error: string }).error).sort()).toEqual([
      'async boom',
      'sync boom',
    ]);
  });
});

describe('JsonRpcPeer: invalid and hostile input', () => {
  it('counts and reports messages that are not JSON-RPC, and keeps working', async () => {
    await using h = await connectInbound();
    const problems: McpHostError[] = [];
    h.peer.onProblem(({ error }) => problems.push(error));
    for (const junk of [
      42,
      'text',
      null,
      true,
      { hello: 'world' },
      { jsonrpc: '1.0', id: 1, result: 1 },
      { jsonrpc: '2.0' },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
    ]) {
      h.send(junk);
    }
    await h.barrier();
    expect(h.peer.stats.invalidMessages).toBe(8);
    expect(problems).toHaveLength(8);
    expect(problems.every((error) => error.code === 'INVALID_MESSAGE')).toBe(true);
  });

  it('answers a request whose id is not a string or number with -32600 and id null', async () => {
    await using h = await connectInbound();
    h.peer.setRequestHandler('x', () => 'must not run');
    h.send({ jsonrpc: '2.0', id: { nested: 1 }, method: 'x' });
    h.send({ jsonrpc: '2.0', id: null, method: 'x' });
    await h.barrier();
    expect(h.received.filter((m) => m.id === null)).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request id' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request id' } },
    ]);
    expect(h.received.some((m) => m.result === 'must not run')).toBe(false);
  });

  it('handles batch arrays: responses, requests and notifications in one array', async () => {
    await using h = await connectInbound();
    const notified = vi.fn();
    h.peer.setNotificationHandler('n', notified);
    h.peer.setRequestHandler('double', (params) => (params as { v: number }).v * 2);
    const a = h.peer.request('a');
    const b = h.peer.request('b');
    h.send([
      { jsonrpc: '2.0', id: 2, result: 'B' },
      { jsonrpc: '2.0', id: 1, result: 'A' },
      { jsonrpc: '2.0', id: 'r1', method: 'double', params: { v: 21 } },
      { jsonrpc: '2.0', method: 'n', params: { x: 1 } },
      'junk inside a batch',
      [{ jsonrpc: '2.0', id: 'nested', method: 'double', params: { v: 1 } }],
    ]);
    expect(await Promise.all([a, b])).toEqual(['A', 'B']);
    await h.barrier();
    expect(h.received.find((m) => m.id === 'r1')?.result).toBe(42);
    expect(notified).toHaveBeenCalledWith({ x: 1 }, 'n');
    expect(h.received.some((m) => m.id === 'nested')).toBe(false);
    expect(h.peer.stats.invalidMessages).toBe(2);
    h.send([]);
    await h.barrier();
    expect(h.peer.stats.invalidMessages).toBe(3);
  });

  it('takes __proto__ keys anywhere without crashing or polluting prototypes', async () => {
    await using h = await connectInbound({ conventions });
    const hostile = (text: string): unknown => JSON.parse(text) as unknown;
    const seen: unknown[] = [];
    h.peer.setRequestHandler('echo', (params) => {
      seen.push(params);
      return params;
    });
    h.peer.setNotificationHandler('*', (params) => {
      seen.push(params);
    });
    const call = h.peer.request('x');
    h.send(
      hostile(
        '{"__proto__":{"polluted":true},"jsonrpc":"2.0","id":1,"result":{"__proto__":{"polluted":true}}}',
      ),
    );
    h.send(
      hostile(
        '{"jsonrpc":"2.0","id":"p1","method":"echo","params":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}}',
      ),
    );
    h.send(hostile('{"jsonrpc":"2.0","method":"n","params":{"__proto__":{"polluted":true}}}'));
    h.send(
      hostile(
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"__proto__"}}',
      ),
    );
    for (const method of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      h.send({ jsonrpc: '2.0', id: `m-${method}`, method });
      h.send({ jsonrpc: '2.0', method });
    }
    h.send(hostile('{"jsonrpc":"2.0","id":"__proto__","method":"echo"}'));
    h.send(hostile('{"jsonrpc":"2.0","id":"__proto__","result":1}'));
    const result = (await call) as object;
    await h.barrier();
    expect(Object.hasOwn(result, '__proto__')).toBe(true);
    expect(h.received.find((m) => m.id === 'p1')?.result).toBe(seen[0]);
    for (const method of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(h.received.find((m) => m.id === `m-${method}`)?.error).toMatchObject({ code: -32601 });
    }
    expect(h.received.find((m) => m.id === '__proto__')).toBeDefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    expect(h.peer.pendingCount).toBe(0);
    expect(h.peer.inboundCount).toBe(0);
  });

  it('takes absurdly deep nesting in params and results without crashing', async () => {
    await using h = await connectInbound();
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    let depth = -1;
    h.peer.setRequestHandler('measure', (params) => {
      depth = 0;
      for (
        let node = params as { d?: unknown };
        typeof node === 'object';
        node = node.d as { d?: unknown }
      )
        depth++;
      return { depth };
    });
    expect((await h.call(1, 'measure', deep)).result).toEqual({ depth: 100_000 });
    const call = h.peer.request('deep');
    h.send({ jsonrpc: '2.0', id: 1, result: deep });
    expect(await call).toBe(deep);
    const parsed = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    h.send({ jsonrpc: '2.0', method: 'n', params: parsed });
    h.send(parsed);
    await h.barrier();
    expect(h.peer.state).toBe('open');
  });
});
