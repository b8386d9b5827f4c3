import { silentLogger } from '../../internal/logger.js';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import { sendJson, sseEvent, startHttpServer } from '../../../test/helpers/http-test-server.js';
import {
  notification,
  open,
  request,
  requestsSeen,
  result,
} from './streamable-http-test-helpers.js';

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

  it('fails a resumption answered 404 (the session is gone) at once with SESSION_EXPIRED, without retrying', async () => {
    await using _guard = leakGuard();
    let posts = 0;
    await using server = await startHttpServer((req, res) => {
      if (req.method === 'DELETE') return void res.writeHead(404).end();
      if (req.method === 'POST' && posts++ === 0)
        return sendJson(res, result(1), { 'mcp-session-id': 'sess-gone' });
      if (req.method === 'POST') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('retry: 1\n\n');
        res.write(
          sseEvent({ jsonrpc: '2.0', method: 'notifications/message', params: {} }, 'ev-1'),
        );
        setTimeout(() => res.destroy(), 20);
        return;
      }
      res.writeHead(404).end('no such session');
    });
    await using t = await open(server, { maxReconnects: 50 });
    t.send(request(1, 'initialize'));
    await t.until(() => t.messages.length === 1);
    t.send(request(2));
    await t.until(() => t.problems.length === 1);
    expect(t.problems[0]?.error.code).toBe('SESSION_EXPIRED');
    expect(t.problems[0]?.requestId).toBe(2);
    expect(t.problems[0]?.error.details).toMatchObject({ maybeExecuted: true });
    expect(t.hasSession).toBe(false);
    expect(server.requests.filter((r) => r.method === 'GET')).toHaveLength(1);
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

  it('fails the request whose response would open the session with a session id outside visible ASCII', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((req, res) =>
      sendJson(res, result(JSON.parse(req.body).id), { 'mcp-session-id': 'bad id with spaces' }),
    );
    await using t = await open(server);
    t.send(request(1, 'initialize'));
    await t.until(() => t.problems.length === 1);
    const problem = t.problems[0];
    expect(problem?.requestId).toBe(1);
    expect(problem?.error.code).toBe('PROTOCOL_VIOLATION');
    expect(problem?.error.message).toContain(
      "the server's Mcp-Session-Id header has U+0020 (a space) at character 4 of 18",
    );
    expect(problem?.error.message).not.toContain('bad id');
    expect(t.messages).toEqual([]);
    expect(t.hasSession).toBe(false);
  });

  it('ignores and reports a session id outside visible ASCII that would open no session', async () => {
    await using _guard = leakGuard();
    let calls = 0;
    await using server = await startHttpServer((req, res) => {
      if (req.method === 'DELETE') return void res.writeHead(204).end();
      const id = calls++ === 0 ? 'good-session-1' : 'bad\tsession';
      if (JSON.parse(req.body).id === undefined)
        return void res.writeHead(202, { 'mcp-session-id': id }).end();
      sendJson(res, result(JSON.parse(req.body).id), { 'mcp-session-id': id });
    });
    await using t = await open(server);
    t.send(request(1, 'initialize'));
    await t.until(() => t.messages.length === 1);
    t.send(request(2));
    await t.until(() => t.messages.length === 2 && t.problems.length === 1);
    expect(t.problems[0]?.requestId).toBeUndefined();
    expect(t.problems[0]?.error.message).toContain('U+0009 (a tab) at character 4 of 11');
    expect(t.hasSession).toBe(true);
  });
});
