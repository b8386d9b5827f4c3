import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import { sendJson, startHttpServer } from '../../../test/helpers/http-test-server.js';
import { StreamableHttpTransport } from './streamable-http-transport.js';
import { open, request, requestsSeen, result } from './streamable-http-test-helpers.js';

describe('StreamableHttpTransport failures', () => {
  it('caps JSON bodies, gzip bombs and SSE events at maxMessageBytes', async () => {
    await using _guard = leakGuard();
    const big = JSON.stringify(result(1, { text: 'x'.repeat(100_000) }));
    const bomb = gzipSync(Buffer.alloc(50_000_000, 0x20));
    await using server = await startHttpServer((req, res) => {
      const { id } = JSON.parse(req.body);
      if (id === 1) return void res.writeHead(200, { 'content-type': 'application/json' }).end(big);
      if (id === 2)
        return void res
          .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
          .end(bomb);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${'y'.repeat(40_000)}`);
      res.write('y'.repeat(40_000));
    });
    await using t = await open(server, { maxMessageBytes: 65_536 });
    t.send(request(1));
    t.send(request(2));
    t.send(request(3));
    await t.until(() => t.problems.length === 3);
    const byId = Object.fromEntries(t.problems.map((p) => [p.requestId, p.error]));
    for (const id of [1, 2, 3]) {
      expect(byId[id]?.code).toBe('MESSAGE_TOO_LARGE');
      expect(byId[id]?.details?.maxMessageBytes).toBe(65_536);
    }
    expect(t.messages).toEqual([]);
  });

  it('decodes gzip, deflate and br bodies, JSON and SSE, and asks for them', async () => {
    await using _guard = leakGuard();
    const encoders = { 1: gzipSync, 2: deflateSync, 3: brotliCompressSync };
    const names = { 1: 'gzip', 2: 'deflate', 3: 'br' };
    await using server = await startHttpServer((req, res) => {
      const { id } = JSON.parse(req.body) as { id: number };
      const key = (((id - 1) % 3) + 1) as 1 | 2 | 3;
      const sse = id > 3;
      const text = JSON.stringify(result(id, { text: 'é✓'.repeat(10_000) }));
      const body = sse ? `id: e${id}\ndata: ${text}\n\n` : text;
      res
        .writeHead(200, {
          'content-type': sse ? 'text/event-stream' : 'application/json',
          'content-encoding': names[key],
        })
        .end(encoders[key](Buffer.from(body)));
    });
    await using t = await open(server);
    for (let id = 1; id <= 6; id++) t.send(request(id));
    await t.until(() => t.messages.length === 6);
    expect(t.problems).toEqual([]);
    const ids = t.messages.map((m) => (m as { id: number }).id).sort();
    expect(ids).toEqual([1, 2, 3, 4, 5, 6]);
    for (const m of t.messages)
      expect(m).toEqual(result((m as { id: number }).id, { text: 'é✓'.repeat(10_000) }));
    expect(server.requests[0]?.headers['accept-encoding']).toBe('gzip, deflate');
  });

  it('turns a non-2xx into HTTP_STATUS with a redacted, bounded preview', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((_req, res) => {
      res
        .writeHead(500, { 'content-type': 'text/plain' })
        .end(`oops Authorization: Bearer abcdefghijklmnop ${'z'.repeat(5000)}`);
    });
    await using t = await open(server);
    t.send(request(1));
    await t.until(() => t.problems.length === 1);
    const { error, requestId } = t.problems[0]!;
    expect(requestId).toBe(1);
    expect(error.code).toBe('HTTP_STATUS');
    expect(error.details?.status).toBe(500);
    expect(error.message).toContain('HTTP 500');
    expect(error.message).not.toContain('abcdefghijklmnop');
    expect(error.message.length).toBeLessThanOrEqual(1100);
  });

  it('answers the request with the JSON-RPC error a non-2xx body carries', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32000, message: 'Bad Request: Server not initialized' },
        }),
      );
    });
    await using t = await open(server);
    t.send(request(9, 'server/discover'));
    await t.until(() => t.messages.length === 1);
    expect(t.messages[0]).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32000, message: 'Bad Request: Server not initialized' },
    });
  });

  it('reports SESSION_EXPIRED on a 404 to a request that carried the session id', async () => {
    await using _guard = leakGuard();
    let calls = 0;
    await using server = await startHttpServer((req, res) => {
      if (req.method === 'DELETE') return void res.writeHead(404).end();
      if (calls++ === 0) return sendJson(res, result(1), { 'mcp-session-id': 'sess-expiring' });
      res.writeHead(404).end('no such session');
    });
    await using t = await open(server);
    t.send(request(1, 'initialize'));
    await t.until(() => t.messages.length === 1);
    t.send(request(2));
    await t.until(() => t.problems.length === 1);
    expect(t.problems[0]?.error.code).toBe('SESSION_EXPIRED');
    expect(t.problems[0]?.requestId).toBe(2);
    expect(t.hasSession).toBe(false);
  });

  it('fails a request with CONNECT_FAILED when the connection is refused', async () => {
    await using _guard = leakGuard();
    const server = await startHttpServer();
    await server[Symbol.asyncDispose]();
    await using t = await open(server);
    t.send(request(1));
    await t.until(() => t.problems.length === 1);
    expect(t.problems[0]?.error.code).toBe('CONNECT_FAILED');
    expect(t.problems[0]?.error.details?.errno).toBe('ECONNREFUSED');
  });

  it('fails a request with REQUEST_TIMEOUT when the response headers do not come in time', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer(() => {
      // Never answers; the socket is destroyed when the server is disposed.
    });
    await using t = await open(server, { headersTimeoutMs: 100 });
    t.send(request(1));
    await t.until(() => t.problems.length === 1);
    expect(t.problems[0]?.error.code).toBe('REQUEST_TIMEOUT');
    expect(t.problems[0]?.error.details).toEqual({ kind: 'headers' });
  });

  it('fails a request with REQUEST_TIMEOUT when the whole exchange outlives requestTimeoutMs', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': still working\n\n');
    });
    await using t = await open(server, { requestTimeoutMs: 150 });
    t.send(request(1));
    await t.until(() => t.problems.length === 1);
    expect(t.problems[0]?.error.code).toBe('REQUEST_TIMEOUT');
    expect(t.problems[0]?.error.details).toEqual({ kind: 'total' });
  });

  it('abandon() ends a POST still waiting for its headers, and reports nothing', async () => {
    await using _guard = leakGuard();
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    await using server = await startHttpServer((req, res) => {
      const { id } = JSON.parse(req.body) as { id: number };
      if (id === 2) return sendJson(res, result(2));
      res.on('close', () => closed());
    });
    await using t = await open(server);
    t.send(request(1));
    await requestsSeen(server, 1);
    t.abandon(1);
    await connectionClosed;
    t.send(request(2));
    await t.until(() => t.messages.length === 1);
    expect(t.messages).toEqual([result(2)]);
    expect(t.problems).toEqual([]);
  });

  it('close() fails the POSTs in flight with CONNECTION_CLOSED and leaves no socket', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((req, res) => {
      const { id } = JSON.parse(req.body) as { id: number };
      if (id === 2) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': working\n\n');
      }
    });
    const t = await open(server);
    t.send(request(1));
    t.send(request(2));
    await requestsSeen(server, 2);
    await t.close();
    expect(t.problems.map((p) => [p.requestId, p.error.code]).sort()).toEqual([
      [1, 'CONNECTION_CLOSED'],
      [2, 'CONNECTION_CLOSED'],
    ]);
    for (let i = 0; i < 100 && server.openSockets > 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(server.openSockets).toBe(0);
  });

  it('refuses to send before start and after close; close is idempotent', async () => {
    await using server = await startHttpServer();
    const t = new StreamableHttpTransport({ url: server.url });
    expect(() => t.send(request(1))).toThrow(expect.objectContaining({ code: 'NOT_CONNECTED' }));
    await t.start();
    const reasons: unknown[] = [];
    t.onClose((r) => reasons.push(r));
    await Promise.all([t.close(), t.close()]);
    expect(reasons).toEqual([undefined]);
    expect(() => t.send(request(1))).toThrow(
      expect.objectContaining({ code: 'CONNECTION_CLOSED' }),
    );
  });

  it('rejects a URL that is not http(s)', () => {
    expect(() => new StreamableHttpTransport({ url: 'file:///etc/passwd' })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});
