import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import {
  startHttpServer,
  type RecordedRequest,
  type TestHttpServer,
} from '../../../test/helpers/http-test-server.js';
import type { McpHostError } from '../../errors/mcp-host-error.js';
import { JsonRpcPeer } from '../../jsonrpc/peer.js';
import type { TransportProblem } from '../../jsonrpc/transport.js';
import { bearerToken } from './auth-provider.js';
import { LegacySseTransport, type LegacySseTransportOptions } from './legacy-sse-transport.js';

const request = (id: number, method = 'tools/list') => ({ jsonrpc: '2.0' as const, id, method });
const result = (id: unknown, value: unknown = {}) => ({ jsonrpc: '2.0', id, result: value });
const SESSION = 'sess-0123456789abcdef';

/** One SSE event of the 2024-11-05 transport. */
function event(type: string, data: unknown): string {
  return `event: ${type}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/**
 * A legacy HTTP+SSE server on the loopback test server: GET /sse opens the stream and sends the
 * endpoint event (or what `endpoint` says); POST /messages is answered with `post` (by default
 * 202, then the result echoes the method on the stream). Tests reach the open streams.
 */
async function startSseServer(
  options: {
    endpoint?: (origin: string) => string;
    /** Answers a GET itself (returning true) instead of opening the stream. */
    refuseGet?: (res: ServerResponse) => boolean;
    post?: (body: RecordedRequest, res: ServerResponse, stream: ServerResponse) => void;
  } = {},
) {
  const streams: ServerResponse[] = [];
  const getRequests: IncomingMessage[] = [];
  const waiters: (() => void)[] = [];
  const server = await startHttpServer((req, res, raw) => {
    if (req.method === 'GET' && req.url === '/sse') {
      if (options.refuseGet?.(res) === true) return;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const endpoint = options.endpoint?.(server.origin) ?? `/messages?sessionId=${SESSION}`;
      if (endpoint !== '') res.write(event('endpoint', endpoint));
      streams.push(res);
      getRequests.push(raw);
      waiters.splice(0).forEach((w) => w());
      return;
    }
    if (req.method === 'POST' && req.url.startsWith('/messages')) {
      const stream = streams.at(-1)!;
      if (options.post !== undefined) return options.post(req, res, stream);
      res.writeHead(202).end('Accepted');
      const body = JSON.parse(req.body) as { id?: number; method: string };
      if (body.id !== undefined)
        stream.write(event('message', result(body.id, { m: body.method })));
      return;
    }
    res.writeHead(404).end('not found');
  });
  const sseUrl = `${server.origin}/sse`;
  const streamOpened = async (count = 1): Promise<ServerResponse> => {
    while (streams.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    return streams[count - 1]!;
  };
  return Object.assign(server, { sseUrl, streams, getRequests, streamOpened });
}

/** A transport that records what it delivers, with a way to await a condition on it. */
function watch(transport: LegacySseTransport) {
  const messages: unknown[] = [];
  const problems: TransportProblem[] = [];
  const closes: (McpHostError | undefined)[] = [];
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((w) => w());
  transport.onMessage((m) => (messages.push(m), wake()));
  transport.onProblem((p) => (problems.push(p), wake()));
  transport.onClose((r) => (closes.push(r), wake()));
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return Object.assign(transport, { messages, problems, closes, until });
}

function make(
  server: TestHttpServer & { sseUrl: string },
  options: Partial<LegacySseTransportOptions> = {},
) {
  return watch(
    new LegacySseTransport({ url: server.sseUrl, serverName: 'legacy', proxy: false, ...options }),
  );
}

describe('LegacySseTransport', () => {
  it('GETs the stream, POSTs to the endpoint it names, and delivers message events', async () => {
    await using _guard = leakGuard();
    // The server answers each POST a little later; a POST that arrives while another is still
    // unanswered would show the transport does not keep them in order.
    let unanswered = 0;
    let overlapped = 0;
    await using server = await startSseServer({
      post: (req, res, stream) => {
        if (unanswered > 0) overlapped++;
        unanswered++;
        setTimeout(() => {
          unanswered--;
          res.writeHead(202).end('Accepted');
          const body = JSON.parse(req.body) as { id?: number; method: string };
          if (body.id !== undefined)
            stream.write(event('message', result(body.id, { m: body.method })));
        }, 10);
      },
    });
    await using t = make(server, { headers: { 'x-extra': 'yes' } });
    await t.start();
    expect(t.state).toBe('open');
    expect(t.endpoint?.href).toBe(`${server.origin}/messages?sessionId=${SESSION}`);
    t.send(request(1));
    t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    t.send(request(2, 'prompts/list'));
    await t.until(() => t.messages.length === 2);
    expect(t.messages).toEqual([result(1, { m: 'tools/list' }), result(2, { m: 'prompts/list' })]);
    const [get, ...posts] = server.requests;
    expect(get?.method).toBe('GET');
    expect(get?.headers.accept).toBe('text/event-stream');
    expect(get?.headers['x-extra']).toBe('yes');
    // POSTs go out one after another, in the order they were sent.
    expect(overlapped).toBe(0);
    expect(posts.map((p) => (JSON.parse(p.body) as { method: string }).method)).toEqual([
      'tools/list',
      'notifications/initialized',
      'prompts/list',
    ]);
    for (const post of posts) {
      expect(post.url).toBe(`/messages?sessionId=${SESSION}`);
      expect(post.headers['content-type']).toBe('application/json');
      expect(post.headers['x-extra']).toBe('yes');
    }
    expect(t.problems).toEqual([]);
  });

  it('sends the auth headers on the GET and every POST, retrying once after a 401', async () => {
    await using _guard = leakGuard();
    let tokens = 0;
    const auth = bearerToken(() => `token-number-${++tokens}`);
    let refusedOnce = false;
    await using server = await startSseServer({
      refuseGet: (res) => {
        if (refusedOnce) return false;
        refusedOnce = true;
        res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
        return true;
      },
    });
    await using t = make(server, { auth });
    await t.start();
    t.send(request(1));
    await t.until(() => t.messages.length === 1);
    expect(server.requests.map((r) => `${r.method} ${r.headers.authorization}`)).toEqual([
      'GET Bearer token-number-1',
      'GET Bearer token-number-2',
      'POST Bearer token-number-3',
    ]);
  });

  it('refuses an endpoint on another origin with PROTOCOL_VIOLATION and sends nothing there', async () => {
    await using _guard = leakGuard();
    await using elsewhere = await startHttpServer();
    await using server = await startSseServer({ endpoint: () => `${elsewhere.url}?s=1` });
    const t = make(server, { headers: { authorization: 'Bearer s3cr3t-token-value' } });
    const error = await t.start().then(
      () => undefined,
      (e: unknown) => e as McpHostError,
    );
    expect(error?.code).toBe('PROTOCOL_VIOLATION');
    expect(error?.message).toMatch(/^server 'legacy': the endpoint event names another origin/);
    expect(t.state).toBe('closed');
    expect(t.closes.map((r) => r?.code)).toEqual(['PROTOCOL_VIOLATION']);
    expect(elsewhere.requests).toEqual([]);
    expect(() => t.send(request(1))).toThrow(/connection is closed/);
  });

  it('fails start with HTTP_STATUS, PROTOCOL_VIOLATION, CONNECT_TIMEOUT or CONNECT_FAILED', async () => {
    await using _guard = leakGuard();
    const failure = (t: LegacySseTransport) =>
      t.start().then(
        () => undefined,
        (e: unknown) => e as McpHostError,
      );
    await using server = await startHttpServer((req, res) => {
      if (req.url === '/missing')
        return void res.writeHead(404).end(`no such stream ${'z'.repeat(3000)}`);
      if (req.url === '/html')
        return void res.writeHead(200, { 'content-type': 'text/html' }).end('<p>');
      if (req.url === '/silent')
        return void res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (req.url === '/ends')
        return void res.writeHead(200, { 'content-type': 'text/event-stream' }).end();
    });
    const at = (path: string, options: Partial<LegacySseTransportOptions> = {}) =>
      new LegacySseTransport({
        url: `${server.origin}${path}`,
        serverName: 'legacy',
        proxy: false,
        ...options,
      });

    const missing = await failure(at('/missing'));
    expect(missing?.code).toBe('HTTP_STATUS');
    expect(missing?.details?.status).toBe(404);
    expect(missing?.message).toMatch(/^server 'legacy': GET got HTTP 404: no such stream/);
    expect(missing?.message.length).toBeLessThanOrEqual(1100);

    expect((await failure(at('/html')))?.code).toBe('PROTOCOL_VIOLATION');
    const silent = await failure(at('/silent', { connectTimeoutMs: 150 }));
    expect(silent?.code).toBe('CONNECT_TIMEOUT');
    expect(silent?.message).toContain('no endpoint event');
    expect((await failure(at('/ends')))?.code).toBe('CONNECT_FAILED');

    const gone = await startHttpServer();
    await gone[Symbol.asyncDispose]();
    const refused = await failure(
      new LegacySseTransport({ url: `${gone.origin}/sse`, serverName: 'legacy', proxy: false }),
    );
    expect(refused?.code).toBe('CONNECT_FAILED');
    expect(refused?.details?.errno).toBe('ECONNREFUSED');
  });

  it('fails only the request whose POST was refused, with HTTP_STATUS and a redacted preview', async () => {
    await using _guard = leakGuard();
    await using server = await startSseServer({
      post: (req, res, stream) => {
        const { id } = JSON.parse(req.body) as { id: number };
        if (id === 1)
          return void res
            .writeHead(500, { 'content-type': 'text/plain' })
            .end(`oops Authorization: Bearer abcdefghijklmnop ${'z'.repeat(5000)}`);
        res.writeHead(202).end();
        stream.write(event('message', result(id, { ok: true })));
      },
    });
    const transport = make(server);
    await using peer = new JsonRpcPeer(transport, { serverName: 'legacy' });
    await peer.start();
    const refused = peer.request('tools/list');
    await expect(refused).rejects.toMatchObject({
      code: 'HTTP_STATUS',
      details: { status: 500 },
      requestId: 1,
    });
    const error = (await refused.catch((e: unknown) => e)) as McpHostError;
    expect(error.message).toMatch(/^server 'legacy': POST got HTTP 500: oops/);
    expect(error.message).not.toContain('abcdefghijklmnop');
    expect(error.message.length).toBeLessThanOrEqual(1100);
    await expect(peer.request('tools/list')).resolves.toEqual({ ok: true });
    expect(transport.state).toBe('open');
  });

  it('skips an event over maxMessageBytes with MESSAGE_TOO_LARGE and keeps the stream', async () => {
    await using _guard = leakGuard();
    await using server = await startSseServer({
      post: (req, res, stream) => {
        const { id } = JSON.parse(req.body) as { id: number };
        res.writeHead(202).end();
        // The oversized event comes in pieces, as a stream would deliver it.
        const big = event('message', result(id, { text: 'x'.repeat(20_000) }));
        for (let i = 0; i < big.length; i += 4096) stream.write(big.slice(i, i + 4096));
        stream.write(event('message', result(id + 100)));
      },
    });
    await using t = make(server, { maxMessageBytes: 4096 });
    await t.start();
    t.send(request(1));
    await t.until(() => t.messages.length === 1);
    expect(t.messages).toEqual([result(101)]);
    expect(t.problems).toHaveLength(1);
    expect(t.problems[0]?.error.code).toBe('MESSAGE_TOO_LARGE');
    expect(t.problems[0]?.error.message).toMatch(/^server 'legacy': discarded an SSE event/);
    expect(t.discards).toEqual({ junkMessages: 0, oversizedMessages: 1 });
    expect(t.state).toBe('open');
  });

  it('fails the request a broken event names at once; a broken event naming none is only counted', async () => {
    await using _guard = leakGuard();
    await using server = await startSseServer({
      post: (req, res, stream) => {
        res.writeHead(202).end();
        const { id, method } = JSON.parse(req.body) as { id: number; method: string };
        if (method === 'cut') {
          stream.write(event('message', `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"ty`));
        } else {
          stream.write(event('message', '{"jsonrpc":"2.0","result":{"content":[{"ty'));
          stream.write(event('message', result(id, 'answered')));
        }
      },
    });
    const transport = make(server);
    await using peer = new JsonRpcPeer(transport, { serverName: 'legacy' });
    const discarded: string[] = [];
    peer.onDiscarded((e) => discarded.push(`${e.kind} ${String(e.error.requestId)}`));
    await peer.start();

    await expect(peer.request('cut')).rejects.toMatchObject({
      code: 'INVALID_MESSAGE',
      requestId: 1,
      message: expect.stringContaining('SSE event data (a response to request 1) is not JSON'),
    });
    await expect(peer.request('other')).resolves.toBe('answered');
    expect(discarded).toEqual(['junk 1', 'junk undefined']);
    expect(transport.discards).toEqual({ junkMessages: 2, oversizedMessages: 0 });
    expect(peer.stats).toMatchObject({ junkMessages: 2, responsesReceived: 1 });
  });

  it('closes with CONNECTION_CLOSED when the server ends the stream; requests in flight fail', async () => {
    await using _guard = leakGuard();
    await using server = await startSseServer({
      post: (_req, res, stream) => {
        res.writeHead(202).end();
        stream.end();
      },
    });
    const transport = make(server);
    await using peer = new JsonRpcPeer(transport, { serverName: 'legacy' });
    await peer.start();
    await expect(peer.request('tools/call')).rejects.toMatchObject({
      code: 'CONNECTION_CLOSED',
      message: "server 'legacy': the server ended the SSE stream",
    });
    expect(transport.state).toBe('closed');
    expect(transport.closes.map((r) => r?.code)).toEqual(['CONNECTION_CLOSED']);
  });

  it('closes with STREAM_INTERRUPTED when the stream breaks', async () => {
    await using _guard = leakGuard();
    await using server = await startSseServer({
      post: (_req, res, stream) => {
        res.writeHead(202).end();
        stream.destroy();
      },
    });
    const transport = make(server);
    await using peer = new JsonRpcPeer(transport, { serverName: 'legacy' });
    await peer.start();
    await expect(peer.request('tools/call')).rejects.toMatchObject({
      code: 'STREAM_INTERRUPTED',
      details: { maybeExecuted: true },
    });
    expect(transport.state).toBe('closed');
  });

  it('close() ends the GET stream (the server sees it go) and leaves no socket', async () => {
    await using _guard = leakGuard();
    await using server = await startSseServer();
    const t = make(server);
    await t.start();
    const gone = once(server.getRequests[0]!.socket, 'close');
    await Promise.all([t.close(), t.close()]);
    await gone;
    expect(t.state).toBe('closed');
    expect(t.closes).toEqual([undefined]);
    expect(() => t.send(request(1))).toThrow(/connection is closed/);
    await expect(t.start()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('masks the endpoint session id and configured credentials when an error echoes them', async () => {
    await using _guard = leakGuard();
    await using server = await startSseServer({
      post: (req, res) => {
        const id = new URL(req.url, 'http://x').searchParams.get('sessionId');
        res.writeHead(400).end(`unknown session: ${id}, key ${String(req.headers['x-api-key'])}`);
      },
    });
    await using t = make(server, { headers: { 'x-api-key': 'k3y-value-42' } });
    await t.start();
    t.send(request(1));
    await t.until(() => t.problems.length === 1);
    expect(t.problems[0]?.error.message).toContain('HTTP 400');
    expect(t.problems[0]?.error.message).not.toContain(SESSION);
    expect(t.problems[0]?.error.message).not.toContain('k3y-value-42');
  });

  it('refuses to send before start and rejects a URL that is not http(s)', () => {
    const t = new LegacySseTransport({ url: 'http://127.0.0.1:9/sse', serverName: 'legacy' });
    expect(() => t.send(request(1))).toThrow(expect.objectContaining({ code: 'NOT_CONNECTED' }));
    expect(() => new LegacySseTransport({ url: 'http://user:pw@127.0.0.1:9/sse' })).toThrow(
      /must not carry credentials/,
    );
    expect(() => new LegacySseTransport({ url: 'ftp://example.com/sse' })).toThrow(
      /http: or https:/,
    );
    return t.close();
  });
});
