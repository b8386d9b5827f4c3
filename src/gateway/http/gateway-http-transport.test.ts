import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import { silentLogger } from '../../internal/logger.js';
import type { JsonRpcMessage } from '../../jsonrpc/message.js';
import { GatewayHttpTransport } from './gateway-http-transport.js';

const options = { idleMs: 60_000, maxStreams: 1, maxBufferedBytes: 1 << 20, logger: silentLogger };

/** A server that hands each POST's one message to `transport`, and the URL to POST to. */
async function serving(transport: GatewayHttpTransport) {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () =>
      transport.post([JSON.parse(body) as JsonRpcMessage], false, { json: true, sse: true }, res),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const post = (url: string, message: object, signal?: AbortSignal) =>
  fetch(url, {
    method: 'POST',
    body: JSON.stringify(message),
    headers: { 'content-type': 'application/json' },
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

  it('session: a client closing a POST hands the gateway a cancellation of its requests', async () => {
    await using _guard = leakGuard();
    const transport = new GatewayHttpTransport({ ...options, sessionId: 'abc' });
    await using server = await serving(transport);
    const messages: unknown[] = [];
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    let cancelled!: () => void;
    const cancel = new Promise<void>((resolve) => (cancelled = resolve));
    transport.onMessage((message) => {
      messages.push(message);
      if ((message as { method?: string }).method === 'notifications/cancelled') cancelled();
      else received();
    });
    await transport.start();
    const controller = new AbortController();
    const answer = post(
      server.url,
      { jsonrpc: '2.0', id: 9, method: 'tools/call' },
      controller.signal,
    );
    await arrived;
    controller.abort();
    await expect(answer).rejects.toThrow();
    await cancel;
    expect(messages[1]).toMatchObject({ params: { requestId: 9 } });
    expect(transport.state).toBe('open');
    await transport.close();
  });
});
