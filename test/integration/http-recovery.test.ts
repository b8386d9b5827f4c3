/**
 * How the client recovers over Streamable HTTP, against scripted loopback servers: a legacy
 * session the server forgot (one re-initialisation however many requests failed), retries of
 * side-effect-free requests after 429/500/503 with `Retry-After`, a modern response stream that
 * breaks (re-issued with a new id, or at-most-once), cancellation by closing the stream, and
 * `x-mcp-header` mirroring with the HeaderMismatch relist. Each case checks the typed error or
 * result, the attempts the server saw, a generous time bound and that no socket stays open.
 */
import { describe, expect, it } from 'vitest';
import { McpClient, McpHostError, type McpClientOptions } from '../../src/index.js';
import { StreamableHttpTransport } from '../../src/http.js';
import { leakGuard } from '../helpers/leak-guard.js';
import {
  sendJson,
  sseEvent,
  startHttpServer,
  type RecordedRequest,
  type TestHttpServer,
} from '../helpers/http-test-server.js';
import type { ServerResponse } from 'node:http';

interface Rpc {
  id?: number | string;
  method: string;
  params?: Record<string, unknown>;
}

const parse = (request: RecordedRequest): Rpc => JSON.parse(request.body) as Rpc;
const methods = (server: TestHttpServer): string[] => server.requests.map((r) => parse(r).method);
const count = (server: TestHttpServer, method: string): number =>
  methods(server).filter((m) => m === method).length;
const TOOLS = [{ name: 'echo', inputSchema: { type: 'object' } }];

function client(server: TestHttpServer, options: Partial<McpClientOptions> = {}): McpClient {
  return new McpClient({
    serverName: 'scripted',
    transport: () =>
      new StreamableHttpTransport({
        serverName: 'scripted',
        url: server.url,
        openGetStream: false,
      }),
    ...options,
  });
}

/** A header value as MCP encodes it, decoded (the base64 sentinel form included). */
function decodeHeader(value: string | string[] | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const sentinel = /^=\?base64\?(.*)\?=$/.exec(value);
  return sentinel === null ? value : Buffer.from(sentinel[1]!, 'base64').toString('utf8');
}

/** Expects `promise` to reject with an McpHostError of `code`, and returns it. */
async function rejection(promise: Promise<unknown>, code: string): Promise<McpHostError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpHostError);
  expect((error as McpHostError).code).toBe(code);
  return error as McpHostError;
}

/** Resolves once every connection to `server` has closed. */
async function socketsClosed(server: TestHttpServer): Promise<void> {
  await server.socketsClosed();
  expect(server.openSockets).toBe(0);
}

/**
 * A legacy (2025-11-25) server with sessions: `initialize` mints `s1`, `s2`, ...; a request with
 * an unknown session id gets 404. `forget()` drops every session; `answer` handles the rest.
 */
function legacyServer(answer: (rpc: Rpc, res: ServerResponse) => boolean = () => false) {
  const live = new Set<string>();
  let minted = 0;
  return {
    forget: () => live.clear(),
    handler: (request: RecordedRequest, res: ServerResponse) => {
      if (request.method !== 'POST') {
        res.writeHead(request.method === 'DELETE' ? 200 : 405).end();
        return;
      }
      const rpc = parse(request);
      const session = request.headers['mcp-session-id'];
      if (rpc.method === 'server/discover') {
        sendJson(res, { jsonrpc: '2.0', id: rpc.id, error: { code: -32601, message: 'no' } });
        return;
      }
      if (rpc.method === 'initialize') {
        const id = `s${++minted}`;
        live.add(id);
        const result = {
          protocolVersion: '2025-11-25',
          capabilities: { tools: {} },
          serverInfo: { name: 'scripted', version: '1' },
        };
        sendJson(res, { jsonrpc: '2.0', id: rpc.id, result }, { 'mcp-session-id': id });
        return;
      }
      if (typeof session !== 'string' || !live.has(session)) {
        res.writeHead(404).end('unknown session');
        return;
      }
      if (rpc.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      if (answer(rpc, res)) return;
      if (rpc.method === 'tools/list') {
        sendJson(res, { jsonrpc: '2.0', id: rpc.id, result: { tools: TOOLS } });
        return;
      }
      const text = JSON.stringify(rpc.params?.arguments ?? {});
      sendJson(res, { jsonrpc: '2.0', id: rpc.id, result: { content: [{ type: 'text', text }] } });
    },
  };
}

describe('a legacy session the server forgot (404)', () => {
  it('is re-initialised once for eight concurrent failures, and each request is sent once more', async () => {
    await using _guard = leakGuard();
    const script = legacyServer();
    await using server = await startHttpServer(script.handler);
    const mcp = client(server);
    await mcp.connect();
    expect(count(server, 'initialize')).toBe(1);
    script.forget();
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, n) => mcp.callTool('echo', { n })),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(results.map((r) => r.content[0])).toEqual(
      Array.from({ length: 8 }, (_, n) => ({ type: 'text', text: JSON.stringify({ n }) })),
    );
    expect(count(server, 'initialize')).toBe(2);
    // 8 failed with the old session, 8 succeeded with the new one.
    expect(count(server, 'tools/call')).toBe(16);
    const sessions = server.requests
      .filter((r) => parse(r).method === 'tools/call')
      .map((r) => r.headers['mcp-session-id']);
    expect(sessions.filter((id) => id === 's1')).toHaveLength(8);
    expect(sessions.filter((id) => id === 's2')).toHaveLength(8);
    await mcp.close();
    await socketsClosed(server);
  });

  it('fails with SESSION_EXPIRED when the request is refused again after re-initialising', async () => {
    await using _guard = leakGuard();
    // Every session is forgotten as soon as it is minted.
    const script = legacyServer();
    await using server = await startHttpServer((request, res) => {
      const rpc = parse(request);
      script.handler(request, res);
      if (rpc.method === 'initialize' && count(server, 'initialize') > 1) script.forget();
    });
    const mcp = client(server);
    await mcp.connect();
    script.forget();
    const started = Date.now();
    const error = await rejection(mcp.callTool('echo'), 'SESSION_EXPIRED');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error.message).toContain("server 'scripted'");
    expect(count(server, 'initialize')).toBe(2);
    expect(count(server, 'tools/call')).toBe(2);
    await mcp.close();
    await socketsClosed(server);
  });

  it('does not resend a pagination continuation: its cursor belonged to the old session', async () => {
    await using _guard = leakGuard();
    const script = legacyServer((rpc, res) => {
      if (rpc.method !== 'tools/list' || rpc.params?.cursor !== undefined) return false;
      sendJson(res, { jsonrpc: '2.0', id: rpc.id, result: { tools: TOOLS, nextCursor: 'p2' } });
      script.forget();
      return true;
    });
    await using server = await startHttpServer(script.handler);
    const mcp = client(server);
    await mcp.connect();
    await rejection(mcp.listTools(), 'SESSION_EXPIRED');
    expect(count(server, 'initialize')).toBe(1);
    expect(count(server, 'tools/list')).toBe(2);
    await mcp.close();
    await socketsClosed(server);
  });
});

describe('retries of side-effect-free requests', () => {
  /** A legacy server whose first `failures` answers to `method` are `status` with `headers`. */
  async function flaky(
    method: string,
    failures: number,
    status: number,
    headers: Record<string, string> = {},
  ) {
    let failed = 0;
    const script = legacyServer((rpc, res) => {
      if (rpc.method !== method || failed >= failures) return false;
      failed++;
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end('busy');
      return true;
    });
    return startHttpServer(script.handler);
  }

  it.each([
    [429, { 'retry-after': '0' }],
    [503, {}],
    [500, { 'retry-after': '0' }],
  ])('retries tools/list after %i %j and succeeds', async (status, headers) => {
    await using _guard = leakGuard();
    await using server = await flaky('tools/list', 2, status, headers);
    const mcp = client(server, { retry: { baseDelayMs: 1 } });
    await mcp.connect();
    const started = Date.now();
    const listing = await mcp.listTools();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(listing.tools.map((t) => t.name)).toEqual(['echo']);
    expect(count(server, 'tools/list')).toBe(3);
    await mcp.close();
    await socketsClosed(server);
  });

  it('gives up after three attempts with the last HTTP_STATUS error', async () => {
    await using _guard = leakGuard();
    await using server = await flaky('tools/list', 10, 503, { 'retry-after': '0' });
    const mcp = client(server);
    await mcp.connect();
    const error = await rejection(mcp.listTools(), 'HTTP_STATUS');
    expect(error.details).toMatchObject({ status: 503, retryAfterMs: 0 });
    expect(count(server, 'tools/list')).toBe(3);
    await mcp.close();
    await socketsClosed(server);
  });

  it('never retries tools/call, nor a 500 without Retry-After, nor a Retry-After over the limit', async () => {
    await using _guard = leakGuard();
    await using server = await flaky('tools/call', 10, 503, { 'retry-after': '0' });
    const mcp = client(server);
    await mcp.connect();
    await rejection(mcp.callTool('echo'), 'HTTP_STATUS');
    expect(count(server, 'tools/call')).toBe(1);
    await mcp.close();

    await using plain500 = await flaky('tools/list', 10, 500);
    const second = client(plain500);
    await second.connect();
    await rejection(second.listTools(), 'HTTP_STATUS');
    expect(count(plain500, 'tools/list')).toBe(1);
    await second.close();

    await using later = await flaky('tools/list', 10, 429, { 'retry-after': '3600' });
    const third = client(later);
    await third.connect();
    const started = Date.now();
    const error = await rejection(third.listTools(), 'HTTP_STATUS');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error.details).toMatchObject({ status: 429, retryAfterMs: 3_600_000 });
    expect(count(later, 'tools/list')).toBe(1);
    await third.close();
    await socketsClosed(server);
    await socketsClosed(plain500);
    await socketsClosed(later);
  });
});

/** A modern (2026-07-28) server: `server/discover`, then whatever `answer` does. */
function modernServer(answer: (rpc: Rpc, res: ServerResponse, request: RecordedRequest) => void) {
  return (request: RecordedRequest, res: ServerResponse): void => {
    if (request.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const rpc = parse(request);
    if (rpc.method === 'server/discover') {
      const result = {
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: {} },
        serverInfo: { name: 'modern', version: '1' },
      };
      sendJson(res, { jsonrpc: '2.0', id: rpc.id, result });
      return;
    }
    if (rpc.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    answer(rpc, res, request);
  };
}

const done = (rpc: Rpc, text = 'ok') => ({
  jsonrpc: '2.0',
  id: rpc.id,
  result: { resultType: 'complete', content: [{ type: 'text', text }] },
});

describe('a modern response stream that breaks before the response', () => {
  /** tools/call answers with an SSE stream that sends progress and then drops, `drops` times. */
  function dropping(drops: number) {
    let dropped = 0;
    return modernServer((rpc, res) => {
      if (rpc.method === 'tools/list') {
        sendJson(res, {
          jsonrpc: '2.0',
          id: rpc.id,
          result: { resultType: 'complete', tools: TOOLS },
        });
        return;
      }
      if (dropped < drops) {
        dropped++;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(
          sseEvent({
            jsonrpc: '2.0',
            method: 'notifications/message',
            params: { level: 'info', data: 'working' },
          }),
        );
        setImmediate(() => res.socket?.destroy());
        return;
      }
      sendJson(res, done(rpc));
    });
  }

  it('is sent again as a new request with a new id, and succeeds', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer(dropping(1));
    const mcp = client(server);
    await mcp.connect();
    expect(mcp.era).toBe('modern');
    const result = await mcp.callTool('echo', { n: 1 });
    expect(result.content).toEqual([{ type: 'text', text: 'ok' }]);
    const calls = server.requests.filter((r) => parse(r).method === 'tools/call').map(parse);
    expect(calls).toHaveLength(2);
    expect(calls[0]!.id).not.toEqual(calls[1]!.id);
    expect(calls[1]!.params?.arguments).toEqual({ n: 1 });
    await mcp.close();
    await socketsClosed(server);
  });

  it('fails with STREAM_INTERRUPTED (maybeExecuted) after a second break', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer(dropping(5));
    const mcp = client(server);
    await mcp.connect();
    const error = await rejection(mcp.callTool('echo'), 'STREAM_INTERRUPTED');
    expect(error.details).toMatchObject({ maybeExecuted: true });
    expect(count(server, 'tools/call')).toBe(2);
    await mcp.close();
    await socketsClosed(server);
  });

  it.each([[true], [['echo']]])(
    'is never sent twice when the host chose at-most-once (%j)',
    async (atMostOnce) => {
      await using _guard = leakGuard();
      await using server = await startHttpServer(dropping(1));
      const mcp = client(server, { atMostOnce });
      await mcp.connect();
      const started = Date.now();
      const error = await rejection(mcp.callTool('echo'), 'STREAM_INTERRUPTED');
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(error.details).toMatchObject({ maybeExecuted: true });
      expect(count(server, 'tools/call')).toBe(1);
      await mcp.close();
      await socketsClosed(server);
    },
  );
});

describe('cancellation of a modern request over HTTP', () => {
  it('closes the response stream and sends no notifications/cancelled', async () => {
    await using _guard = leakGuard();
    let streamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (streamClosed = resolve));
    let streaming!: () => void;
    const started = new Promise<void>((resolve) => (streaming = resolve));
    await using server = await startHttpServer(
      modernServer((rpc, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': keep-alive\n\n');
        res.on('close', () => streamClosed());
        streaming();
      }),
    );
    const mcp = client(server);
    await mcp.connect();
    const controller = new AbortController();
    const call = mcp.callTool('slow', {}, { signal: controller.signal });
    await started;
    controller.abort();
    await rejection(call, 'ABORTED');
    await closed;
    expect(methods(server)).not.toContain('notifications/cancelled');
    await mcp.close();
    await socketsClosed(server);
  });

  it('a headers timeout closes the response stream too: the server sees the cancellation', async () => {
    await using _guard = leakGuard();
    let streamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (streamClosed = resolve));
    await using server = await startHttpServer(
      // tools/call never gets response headers; the server only learns when the client gives up.
      modernServer((_rpc, res) => void res.on('close', () => streamClosed())),
    );
    const mcp = new McpClient({
      serverName: 'scripted',
      transport: () =>
        new StreamableHttpTransport({
          serverName: 'scripted',
          url: server.url,
          openGetStream: false,
          headersTimeoutMs: 500,
        }),
    });
    await mcp.connect();
    const error = await rejection(mcp.callTool('slow', {}), 'REQUEST_TIMEOUT');
    expect(error.details).toEqual({ kind: 'headers' });
    await closed;
    expect(count(server, 'tools/call')).toBe(1);
    expect(methods(server)).not.toContain('notifications/cancelled');
    await mcp.close();
    await socketsClosed(server);
  });
});

describe('x-mcp-header over HTTP', () => {
  it('excludes invalid annotations, mirrors valid ones, and relists on HeaderMismatch', async () => {
    await using _guard = leakGuard();
    const annotated = {
      name: 'sql',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, q: { type: 'string' } },
      },
    };
    const invalid = {
      name: 'bad',
      inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } },
    };
    // The first listing predates the annotation; the server then insists on the header.
    let listings = 0;
    await using server = await startHttpServer(
      modernServer((rpc, res, request) => {
        if (rpc.method === 'tools/list') {
          const first = listings++ === 0;
          const tools = first
            ? [{ ...annotated, inputSchema: { type: 'object' } }, invalid]
            : [annotated, invalid];
          sendJson(res, { jsonrpc: '2.0', id: rpc.id, result: { resultType: 'complete', tools } });
          return;
        }
        const region = (rpc.params?.arguments as { region?: string } | undefined)?.region;
        if (decodeHeader(request.headers['mcp-param-region']) !== region) {
          res.writeHead(400, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: rpc.id,
              error: { code: -32020, message: 'Header mismatch' },
            }),
          );
          return;
        }
        sendJson(res, done(rpc, String(request.headers['mcp-name'])));
      }),
    );
    const mcp = client(server);
    await mcp.connect();
    const first = await mcp.listTools();
    expect(first.tools.map((t) => t.name)).toEqual(['sql']);
    expect(first.excluded).toEqual([
      { name: 'bad', reason: expect.stringMatching(/number/) as unknown },
    ]);
    await rejection(mcp.callTool('bad', { n: 1 }), 'INVALID_ARGUMENT');
    const result = await mcp.callTool('sql', { region: 'Zürich', q: 'select 1' });
    expect(result.content).toEqual([{ type: 'text', text: 'sql' }]);
    expect(listings).toBe(2);
    const calls = server.requests.filter((r) => parse(r).method === 'tools/call');
    expect(calls).toHaveLength(2);
    expect(calls[1]!.headers['mcp-param-region']).toBe('=?base64?WsO8cmljaA==?=');
    expect(calls[1]!.headers['mcp-method']).toBe('tools/call');
    await mcp.close();
    await socketsClosed(server);
  });
});
