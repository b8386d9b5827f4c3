import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { silentLogger } from '../../internal/logger.js';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import {
  sendJson,
  sseEvent,
  startHttpServer,
  type TestHttpServer,
} from '../../../test/helpers/http-test-server.js';
import type { McpHostError } from '../../errors/index.js';
import type { TransportProblem } from '../../jsonrpc/transport.js';
import { bearerToken, type AuthProvider } from './auth-provider.js';
import type { StreamableHttpTransportOptions } from './http-options.js';
import { StreamableHttpTransport } from './streamable-http-transport.js';

const request = (id: number, method = 'tools/list') => ({ jsonrpc: '2.0' as const, id, method });
const notification = (method = 'notifications/initialized') => ({
  jsonrpc: '2.0' as const,
  method,
});
const result = (id: number, value: unknown = {}) => ({ jsonrpc: '2.0', id, result: value });

/** A started transport that records what it delivers, with a way to await the nth event. */
async function open(server: TestHttpServer, options: Partial<StreamableHttpTransportOptions> = {}) {
  const transport = new StreamableHttpTransport({
    url: server.url,
    openGetStream: false,
    ...options,
  });
  const messages: unknown[] = [];
  const problems: TransportProblem[] = [];
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((w) => w());
  transport.onMessage((m) => (messages.push(m), wake()));
  transport.onProblem((p) => (problems.push(p), wake()));
  await transport.start();
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return Object.assign(transport, { messages, problems, until });
}

/** Resolves when the server has seen `count` requests. */
async function requestsSeen(server: TestHttpServer, count: number): Promise<void> {
  while (server.requests.length < count) await new Promise((r) => setTimeout(r, 5));
}

describe('StreamableHttpTransport', () => {
  it('POSTs JSON with the right headers and delivers a JSON response', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((req, res) =>
      sendJson(res, result(JSON.parse(req.body).id, { ok: 1 })),
    );
    await using t = await open(server, { headers: { 'x-extra': 'yes' } });
    t.send(request(1));
    await t.until(() => t.messages.length === 1);
    expect(t.messages).toEqual([result(1, { ok: 1 })]);
    const [seen] = server.requests;
    expect(seen?.method).toBe('POST');
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(seen?.headers.accept).toBe('application/json, text/event-stream');
    expect(seen?.headers['x-extra']).toBe('yes');
    expect(seen?.headers['mcp-session-id']).toBeUndefined();
    expect(JSON.parse(seen!.body)).toEqual(request(1));
  });

  it('adds the headers the request-headers function gives for each message', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((req, res) => {
      const body = JSON.parse(req.body) as { id?: number };
      if (body.id === undefined) res.writeHead(202).end();
      else sendJson(res, result(body.id));
    });
    await using t = await open(server, { headers: { 'x-extra': 'yes' } });
    t.setRequestHeaders((message) =>
      'method' in message ? { 'mcp-method': message.method } : undefined,
    );
    t.send(request(1, 'tools/call'));
    t.send(notification());
    await t.until(() => t.messages.length === 1);
    await requestsSeen(server, 2);
    const byMethod = new Map(
      server.requests.map((r) => [(JSON.parse(r.body) as { method: string }).method, r.headers]),
    );
    expect(byMethod.get('tools/call')?.['mcp-method']).toBe('tools/call');
    expect(byMethod.get('notifications/initialized')?.['mcp-method']).toBe(
      'notifications/initialized',
    );
    expect(byMethod.get('tools/call')?.['x-extra']).toBe('yes');
    t.setRequestHeaders(undefined);
    t.send(request(2));
    await t.until(() => t.messages.length === 2);
    expect(server.requests[2]?.headers['mcp-method']).toBeUndefined();
  });

  it('delivers every event of an SSE response in order, skipping priming events', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((req, res) => {
      const { id } = JSON.parse(req.body);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('id: p0\ndata:\n\n');
      res.write(
        sseEvent({ jsonrpc: '2.0', method: 'notifications/progress', params: { n: 1 } }, 'e1'),
      );
      res.write(sseEvent({ jsonrpc: '2.0', id: 'srv-1', method: 'ping' }, 'e2'));
      res.end(sseEvent(result(id, { done: true }), 'e3'));
    });
    await using t = await open(server);
    t.send(request(7));
    await t.until(() => t.messages.length === 3);
    expect(t.messages).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { n: 1 } },
      { jsonrpc: '2.0', id: 'srv-1', method: 'ping' },
      result(7, { done: true }),
    ]);
    expect(t.problems).toEqual([]);
  });

  it('drops a 200 JSON body that answers a notification', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((_req, res) => sendJson(res, { unexpected: true }));
    await using t = await open(server);
    t.send(notification());
    t.send(request(5));
    await t.until(() => t.messages.length === 1);
    expect(t.messages).toEqual([{ unexpected: true }]);
    expect(t.problems).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  it('accepts 202 for notifications, keeps the session id, echoes it and DELETEs it on close', async () => {
    await using _guard = leakGuard();
    const sessionId = 'sess-0123456789abcdef';
    await using server = await startHttpServer((req, res) => {
      if (req.method === 'DELETE') return void res.writeHead(204).end();
      const body = JSON.parse(req.body);
      if (body.id === undefined) return void res.writeHead(202).end();
      sendJson(res, result(body.id), { 'mcp-session-id': sessionId });
    });
    const t = await open(server, { protocolVersion: undefined });
    t.send(request(1, 'initialize'));
    await t.until(() => t.messages.length === 1);
    expect(t.hasSession).toBe(true);
    t.setProtocolVersion('2025-11-25');
    t.send(notification());
    t.send(request(2));
    await t.until(() => t.messages.length === 2);
    await requestsSeen(server, 3);
    await t.close();
    expect(t.state).toBe('closed');
    const [init, ...later] = server.requests;
    expect(init?.headers['mcp-session-id']).toBeUndefined();
    expect(init?.headers['mcp-protocol-version']).toBeUndefined();
    expect(later.map((r) => r.method)).toEqual(['POST', 'POST', 'DELETE']);
    for (const r of later) {
      expect(r.headers['mcp-session-id']).toBe(sessionId);
      expect(r.headers['mcp-protocol-version']).toBe('2025-11-25');
    }
    expect(t.problems).toEqual([]);
  });

  it('tolerates a 405 on the optional GET stream', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((req, res) => {
      if (req.method === 'GET') return void res.writeHead(405).end();
      if (req.method === 'DELETE') return void res.writeHead(405).end();
      const body = JSON.parse(req.body);
      if (body.id === undefined) return void res.writeHead(202).end();
      sendJson(res, result(body.id), { 'mcp-session-id': 'abcd-1234' });
    });
    await using t = await open(server, { openGetStream: true });
    t.send(request(1, 'initialize'));
    await t.until(() => t.messages.length === 1);
    t.send(notification());
    await requestsSeen(server, 3);
    expect(server.requests[2]?.method).toBe('GET');
    expect(server.requests[2]?.headers.accept).toBe('text/event-stream');
    t.send(request(2));
    await t.until(() => t.messages.length === 2);
    expect(t.problems).toEqual([]);
    expect(t.state).toBe('open');
  });

  it('delivers server messages from the GET stream', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(sseEvent({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, 'g1'));
        return;
      }
      if (req.method === 'DELETE') return void res.writeHead(204).end();
      res.writeHead(202, { 'mcp-session-id': 'abcd-1234' }).end();
    });
    await using t = await open(server, { openGetStream: true });
    t.send(notification());
    await t.until(() => t.messages.length === 1);
    expect(t.messages).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
  });

  it('resumes a dropped response stream with GET and Last-Event-ID, honouring retry:', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((req, res) => {
      if (req.method === 'POST') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('retry: 1\n\n');
        res.write(
          sseEvent({ jsonrpc: '2.0', method: 'notifications/message', params: {} }, 'ev-1'),
        );
        setTimeout(() => res.destroy(), 20);
        return;
      }
      expect(req.headers['last-event-id']).toBe('ev-1');
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseEvent(result(3, { resumed: true }), 'ev-2'));
    });
    await using t = await open(server);
    t.send(request(3));
    await t.until(() => t.messages.length === 2);
    expect(t.messages[1]).toEqual(result(3, { resumed: true }));
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'GET']);
    expect(t.problems).toEqual([]);
  });

  it('bounds the resumption of a dropped stream by the request deadline', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (req.method === 'POST') {
        res.write('retry: 1\n\n');
        res.write(sseEvent({ jsonrpc: '2.0', method: 'notifications/message', params: {} }, 'r-1'));
        setTimeout(() => res.destroy(), 20);
        return;
      }
      res.write(': resumed, but the response never comes\n\n');
    });
    await using t = await open(server, { requestTimeoutMs: 300 });
    t.send(request(6));
    await t.until(() => t.problems.length === 1);
    expect(t.problems[0]?.requestId).toBe(6);
    expect(t.problems[0]?.error.code).toBe('REQUEST_TIMEOUT');
    expect(t.problems[0]?.error.details).toEqual({ kind: 'total' });
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'GET']);
  });

  it('fails the request with STREAM_INTERRUPTED when a stream with no event id drops', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseEvent({ jsonrpc: '2.0', method: 'notifications/message', params: {} }));
      setTimeout(() => res.destroy(), 20);
    });
    await using t = await open(server);
    t.send(request(4));
    await t.until(() => t.problems.length === 1);
    expect(t.problems[0]?.requestId).toBe(4);
    expect(t.problems[0]?.error.code).toBe('STREAM_INTERRUPTED');
    expect(t.problems[0]?.error.details).toEqual({ maybeExecuted: true });
  });

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

  it('retries once after a 401 when the auth provider has a new token', async () => {
    await using _guard = leakGuard();
    const tokens = ['token-expired-1111', 'token-fresh-2222'];
    let next = 0;
    await using server = await startHttpServer((req, res) => {
      if (req.headers.authorization !== 'Bearer token-fresh-2222') {
        return void res.writeHead(401, { 'www-authenticate': 'Bearer scope="tools"' }).end();
      }
      sendJson(res, result(JSON.parse(req.body).id));
    });
    const challenges: unknown[] = [];
    const inner = bearerToken(() => tokens[next]!);
    const auth: AuthProvider = {
      headers: (r) => inner.headers(r),
      onUnauthorized: (challenge) => {
        challenges.push(challenge.wwwAuthenticate);
        next++;
        return inner.onUnauthorized!(challenge);
      },
    };
    await using t = await open(server, { auth });
    t.send(request(1));
    await t.until(() => t.messages.length === 1);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer token-expired-1111',
      'Bearer token-fresh-2222',
    ]);
    expect(challenges).toEqual(['Bearer scope="tools"']);
  });

  it('does not retry a 401 with a static bearer token, and masks the token', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((req, res) => {
      res
        .writeHead(401, { 'www-authenticate': 'Bearer' })
        .end(`bad token ${req.headers.authorization}`);
    });
    await using t = await open(server, { auth: bearerToken('static-secret-token-42') });
    t.send(request(1));
    await t.until(() => t.problems.length === 1);
    expect(server.requests).toHaveLength(1);
    const error: McpHostError = t.problems[0]!.error;
    expect(error.code).toBe('HTTP_STATUS');
    expect(error.details?.status).toBe(401);
    expect(JSON.stringify(error)).not.toContain('static-secret-token-42');
  });

  it('does not follow a redirect to another origin, and never sends credentials there', async () => {
    await using _guard = leakGuard();
    await using other = await startHttpServer((_req, res) => sendJson(res, result(1)));
    await using server = await startHttpServer((_req, res) => {
      res.writeHead(307, { location: other.url }).end();
    });
    await using t = await open(server, { auth: bearerToken('redirect-secret-token') });
    t.send(request(1));
    await t.until(() => t.problems.length === 1);
    expect(t.problems[0]?.error.code).toBe('HTTP_STATUS');
    expect(t.problems[0]?.error.details?.status).toBe(307);
    expect(t.problems[0]?.error.message).toContain('another origin');
    expect(other.requests).toEqual([]);
  });

  it('follows a same-origin 307 for a POST', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((req, res) => {
      if (req.url === '/mcp') return void res.writeHead(307, { location: '/mcp2' }).end();
      sendJson(res, result(JSON.parse(req.body).id));
    });
    await using t = await open(server);
    t.send(request(1));
    await t.until(() => t.messages.length === 1);
    expect(server.requests.map((r) => r.url)).toEqual(['/mcp', '/mcp2']);
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

  it('reconnects a dropped GET stream with Last-Event-ID, and stops at maxReconnects', async () => {
    await using _guard = leakGuard();
    let gets = 0;
    await using server = await startHttpServer((req, res) => {
      if (req.method === 'DELETE') return void res.writeHead(204).end();
      if (req.method === 'POST')
        return void res.writeHead(202, { 'mcp-session-id': 'sess-get-1' }).end();
      gets++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (gets === 1) {
        res.write('retry: 5\n\n');
        res.end(sseEvent({ jsonrpc: '2.0', method: 'notifications/a' }, 'g-1'));
        return;
      }
      if (gets === 2) {
        res.end(sseEvent({ jsonrpc: '2.0', method: 'notifications/b' }, 'g-2'));
        return;
      }
      res.end();
    });
    let gaveUp: () => void = () => {};
    const givenUp = new Promise<void>((resolve) => (gaveUp = resolve));
    const logger = {
      ...silentLogger,
      debug: (message: string) => {
        if (message.includes('SSE stream given up')) gaveUp();
      },
    };
    await using t = await open(server, { openGetStream: true, maxReconnects: 2, logger });
    t.send(notification());
    await t.until(() => t.messages.length === 2);
    // After the last event, 2 reconnects that bring nothing are allowed, then it gives up.
    await givenUp;
    const getRequests = server.requests.filter((r) => r.method === 'GET');
    expect(getRequests.map((r) => r.headers['last-event-id'])).toEqual([
      undefined,
      'g-1',
      'g-2',
      'g-2',
    ]);
    expect(t.messages).toEqual([
      { jsonrpc: '2.0', method: 'notifications/a' },
      { jsonrpc: '2.0', method: 'notifications/b' },
    ]);
    expect(t.problems).toEqual([]);
  });

  it('treats the session id as a secret: an error echoing it is masked', async () => {
    await using _guard = leakGuard();
    const sessionId = 'zq-session-7f3a9c1e5b';
    let calls = 0;
    await using server = await startHttpServer((req, res) => {
      if (req.method === 'DELETE') return void res.writeHead(204).end();
      if (calls++ === 0) return sendJson(res, result(1), { 'mcp-session-id': sessionId });
      res.writeHead(500).end(`session ${String(req.headers['mcp-session-id'])} is broken`);
    });
    await using t = await open(server);
    t.send(request(1, 'initialize'));
    await t.until(() => t.messages.length === 1);
    t.send(request(2));
    await t.until(() => t.problems.length === 1);
    expect(t.problems[0]?.error.code).toBe('HTTP_STATUS');
    expect(t.problems[0]?.error.message).toContain('is broken');
    expect(t.problems[0]?.error.message).not.toContain(sessionId);
  });

  it('ignores a session id with characters outside visible ASCII', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((req, res) =>
      sendJson(res, result(JSON.parse(req.body).id), { 'mcp-session-id': 'bad id with spaces' }),
    );
    await using t = await open(server);
    t.send(request(1, 'initialize'));
    await t.until(() => t.messages.length === 1 && t.problems.length === 1);
    expect(t.problems[0]?.error.code).toBe('PROTOCOL_VIOLATION');
    expect(t.hasSession).toBe(false);
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
