import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import { sseEvents } from '../../../test/helpers/sse-events.js';
import { silentLogger } from '../../internal/logger.js';
import type { JsonRpcMessage } from '../../jsonrpc/message.js';
import { GatewayHttpTransport } from './gateway-http-transport.js';

const options = { idleMs: 60_000, maxStreams: 1, maxBufferedBytes: 1 << 20, logger: silentLogger };

/** A server that hands each POST's one message to `transport`, and the URL to POST to. */
async function serving(transport: GatewayHttpTransport) {
  let closed = 0;
  const onClosed = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    res.once('close', () => {
      closed++;
      for (const wake of [...onClosed]) wake();
    });
    if (req.method === 'GET') {
      const lastEventId = req.headers['last-event-id'];
      return transport.openStream(res, typeof lastEventId === 'string' ? lastEventId : undefined);
    }
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    const accept = req.headers.accept ?? '*/*';
    const accepts = {
      json: /application\/json|\*\/\*/.test(accept),
      sse: /text\/event-stream|\*\/\*/.test(accept),
    };
    req.on('end', () => transport.post([JSON.parse(body) as JsonRpcMessage], false, accepts, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    /** Resolves once `count` responses have closed (answered, or dropped by their client). */
    closed: (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (closed < count) return;
          onClosed.delete(check);
          resolve();
        };
        onClosed.add(check);
        check();
      }),
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const post = (url: string, message: object, signal?: AbortSignal, accept?: string) =>
  fetch(url, {
    method: 'POST',
    body: JSON.stringify(message),
    headers: { 'content-type': 'application/json', ...(accept === undefined ? {} : { accept }) },
    ...(signal === undefined ? {} : { signal }),
  });

describe('GatewayHttpTransport', () => {
  it('one-shot: what is sent before the response streams on its answer (SSE), then it closes', async () => {
    await using _guard = leakGuard();
    const transport = new GatewayHttpTransport(options);
    await using server = await serving(transport);
    const closed = new Promise((resolve) => transport.onClose(resolve));
    transport.onMessage((message) => {
      const request = message as { id: number };
      // Not tied to the request by any token: on a one-shot connection it goes there anyway.
      transport.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      transport.send({ jsonrpc: '2.0', id: request.id, result: { ok: true } });
    });
    await transport.start();
    const answer = await post(server.url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'subscriptions/listen',
    });
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    expect(await answer.text()).toBe(
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n' +
        'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"ok":true}}\n\n',
    );
    expect(await closed).toBeUndefined();
    expect(transport.state).toBe('closed');
  });

  it('one-shot: the client closing its request closes the transport (the call is aborted)', async () => {
    await using _guard = leakGuard();
    const transport = new GatewayHttpTransport(options);
    await using server = await serving(transport);
    const closed = new Promise((resolve) => transport.onClose(resolve));
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    transport.onMessage(() => received());
    await transport.start();
    const controller = new AbortController();
    const answer = post(
      server.url,
      { jsonrpc: '2.0', id: 1, method: 'tools/call' },
      controller.signal,
    );
    await arrived;
    controller.abort();
    await expect(answer).rejects.toThrow();
    expect(await closed).toMatchObject({ code: 'CONNECTION_CLOSED' });
  });

  it('session (2025-11-25): a client closing a POST cancels nothing; it resumes with Last-Event-ID and gets the answer', async () => {
    await using _guard = leakGuard();
    const transport = new GatewayHttpTransport({ ...options, sessionId: 'abc' });
    await using server = await serving(transport);
    const messages: Array<{ id?: number; method?: string }> = [];
    const waiters = new Set<() => void>();
    const arrived = (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => messages.length >= count && (waiters.delete(check), resolve());
        waiters.add(check);
        check();
      });
    transport.onMessage((message) => {
      const request = message as { id?: number; method?: string };
      messages.push(request);
      for (const wake of [...waiters]) wake();
      if (request.method === 'initialize')
        transport.send({
          jsonrpc: '2.0',
          id: request.id!,
          result: { protocolVersion: '2025-11-25' },
        });
    });
    await transport.start();
    const opened = await post(server.url, { jsonrpc: '2.0', id: 1, method: 'initialize' });
    expect(await opened.json()).toMatchObject({ result: { protocolVersion: '2025-11-25' } });

    const controller = new AbortController();
    const answer = await post(
      server.url,
      { jsonrpc: '2.0', id: 9, method: 'tools/call' },
      controller.signal,
      'application/json, text/event-stream',
    );
    // Not answered at once: a stream, primed: an id, the reconnection delay, empty data.
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    const reader = sseEvents(answer);
    const primed = (await reader.next()).value!;
    expect(primed).toMatchObject({ data: '', id: expect.stringMatching(/^\d+-\d+$/) });
    expect(primed.retryMs).toBe(1000);
    await arrived(2);
    controller.abort();
    await reader.return(undefined);
    await server.closed(2);
    // Not a cancellation: the gateway was handed nothing more; the session goes on.
    expect(messages.map((message) => message.method)).toEqual(['initialize', 'tools/call']);
    expect(transport.state).toBe('open');
    expect(transport.openExchanges).toBe(1);
    transport.send({ jsonrpc: '2.0', id: 9, result: { late: true } });
    expect(transport.openExchanges).toBe(0);
    expect(transport.replayHeld.events).toBe(1);

    const resumed = await fetch(server.url, {
      headers: { accept: 'text/event-stream', 'last-event-id': primed.id! },
    });
    expect(resumed.status).toBe(200);
    const replayed = [];
    for await (const event of sseEvents(resumed)) replayed.push(event);
    expect(replayed).toHaveLength(1);
    expect(JSON.parse(replayed[0]!.data)).toEqual({
      jsonrpc: '2.0',
      id: 9,
      result: { late: true },
    });
    expect(replayed[0]!.id).not.toBe(primed.id);

    // An id the session never gave: 400; the session is unharmed.
    for (const id of ['1-99', 'junk']) {
      const unknown = await fetch(server.url, {
        headers: { accept: 'text/event-stream', 'last-event-id': id },
      });
      expect(unknown.status).toBe(400);
      await unknown.text();
    }
    expect(transport.state).toBe('open');
    await transport.close();
  });

  it('session (2025-11-25): a call answered at once gets plain JSON, nothing held; one that accepts only SSE is primed at once', async () => {
    await using _guard = leakGuard();
    const transport = new GatewayHttpTransport({ ...options, sessionId: 'abc' });
    await using server = await serving(transport);
    transport.onMessage((message) => {
      const request = message as { id: number; method: string };
      if (request.method === 'initialize')
        transport.send({
          jsonrpc: '2.0',
          id: request.id,
          result: { protocolVersion: '2025-11-25' },
        });
      else if (request.id === 2) transport.send({ jsonrpc: '2.0', id: 2, result: { quick: true } });
    });
    await transport.start();
    await (await post(server.url, { jsonrpc: '2.0', id: 1, method: 'initialize' })).json();

    const quick = await post(
      server.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/call' },
      undefined,
      'application/json, text/event-stream',
    );
    expect(quick.headers.get('content-type')).toBe('application/json');
    expect(await quick.json()).toEqual({ jsonrpc: '2.0', id: 2, result: { quick: true } });
    expect(transport.replayHeld.events).toBe(0);

    const streamOnly = await post(
      server.url,
      { jsonrpc: '2.0', id: 3, method: 'tools/call' },
      undefined,
      'text/event-stream',
    );
    expect(streamOnly.headers.get('content-type')).toBe('text/event-stream');
    const reader = sseEvents(streamOnly);
    expect((await reader.next()).value).toMatchObject({ data: '', retryMs: 1000 });
    transport.send({ jsonrpc: '2.0', id: 3, result: {} });
    expect(JSON.parse((await reader.next()).value!.data)).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: {},
    });
    await transport.close();
  });

  it('session: past the replay bounds a resumption is 410; older versions get ids but no priming', async () => {
    await using _guard = leakGuard();
    const transport = new GatewayHttpTransport({
      ...options,
      sessionId: 'abc',
      replay: { maxEvents: 2, maxBytes: 1 << 20 },
    });
    await using server = await serving(transport);
    transport.onMessage((message) => {
      const request = message as { id: number; method?: string };
      if (request.method === 'initialize')
        transport.send({
          jsonrpc: '2.0',
          id: request.id,
          result: { protocolVersion: '2025-06-18' },
        });
      else {
        for (let progress = 1; progress <= 3; progress++)
          transport.send({
            jsonrpc: '2.0',
            method: 'notifications/progress',
            params: { progressToken: 't', progress },
          });
      }
    });
    await transport.start();
    await (await post(server.url, { jsonrpc: '2.0', id: 1, method: 'initialize' })).text();
    const answer = await post(
      server.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { _meta: { progressToken: 't' } } },
      undefined,
      'application/json, text/event-stream',
    );
    const reader = sseEvents(answer);
    const first = (await reader.next()).value!;
    // 2025-06-18: no priming event; the first is the first progress, with an id.
    expect(JSON.parse(first.data)).toMatchObject({ params: { progress: 1 } });
    expect(first.id).toMatch(/^\d+-\d+$/);
    await reader.return(undefined);
    // Three events, two held: a resumption after the first gets the other two; one from before
    // the first needs it, and it is gone: 410.
    const resume = (id: string) =>
      fetch(server.url, { headers: { accept: 'text/event-stream', 'last-event-id': id } });
    const before = await resume(first.id!.replace(/-\d+$/, '-0'));
    expect(before.status).toBe(410);
    await before.text();
    const after = await resume(first.id);
    expect(after.status).toBe(200);
    transport.send({ jsonrpc: '2.0', id: 2, result: {} });
    const replayed = [];
    for await (const event of sseEvents(after)) replayed.push(JSON.parse(event.data) as unknown);
    expect(replayed).toMatchObject([
      { params: { progress: 2 } },
      { params: { progress: 3 } },
      { id: 2, result: {} },
    ]);
    expect(transport.state).toBe('open');
    await transport.close();
  });
});
