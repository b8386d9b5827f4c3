/**
 * McpClient over StreamableHttpTransport against a scripted loopback server that misbehaves
 * (test/helpers/scripted-mcp-http-server.ts): auth refusals, nothing listening, a malformed session
 * id, response streams dropped mid-way (with and without event ids), connections reset mid-body or
 * before any response, trickling bodies and headers, silent servers (the timed-out call is
 * cancelled on the server), 200 MiB bodies, HTML instead of JSON, a 500 with a long body and a
 * cross-origin redirect. Each case asserts the typed error, how many HTTP attempts
 * the server saw, a generous time bound proving no long timeout was waited for, and that no
 * server-side socket stays open once the client has closed (the leak guard checks handles too).
 * Legacy era only; 404 session expiry, 429/503 retries and modern-era stream re-issue are tested
 * elsewhere.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { McpClient, McpHostError, type McpClientOptions } from '../../src/index.js';
import {
  bearerToken,
  StreamableHttpTransport,
  type StreamableHttpTransportOptions,
} from '../../src/http.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { within } from '../helpers/mcp-fixtures.js';
import { MiB, peakRssWhile } from '../helpers/memory.js';
import {
  sseEvent,
  startScriptedMcpServer,
  streamBytes,
  TOOL_NAME,
  trickle,
  type ScriptedMcpServer,
  type ScriptedRequest,
} from '../helpers/scripted-mcp-http-server.js';
import { now, reportTiming } from '../helpers/timing.js';

/** The client's own idle timeout: every failure below must come far sooner. */
const CLIENT_REQUEST_TIMEOUT_MS = 30_000;
/** The transport's total deadline per POST, unless a case sets a small one. */
const TRANSPORT_REQUEST_TIMEOUT_MS = 10_000;
/** A generous bound for "at once" on a loaded 2-core machine, far below both timeouts above. */
const PROMPT_MS = 3_000;

/** A client whose transport factory records the transports it made. */
function httpClient(
  url: string,
  transportOptions: Partial<StreamableHttpTransportOptions> = {},
  clientOptions: Partial<McpClientOptions> = {},
): McpClient & { transports: StreamableHttpTransport[] } {
  const transports: StreamableHttpTransport[] = [];
  const client = new McpClient({
    serverName: 'faulty',
    requestTimeoutMs: CLIENT_REQUEST_TIMEOUT_MS,
    ...clientOptions,
    transport: () => {
      const transport = new StreamableHttpTransport({
        serverName: 'faulty',
        url,
        requestTimeoutMs: TRANSPORT_REQUEST_TIMEOUT_MS,
        // Loopback only, whatever HTTP_PROXY says (proxies have their own tests).
        proxy: false,
        ...transportOptions,
      });
      transports.push(transport);
      return transport;
    },
  });
  return Object.assign(client, { transports });
}

/** The McpHostError `promise` rejects with and how long that took; fails if it resolves. */
async function failure(promise: Promise<unknown>): Promise<{ error: McpHostError; ms: number }> {
  const start = now();
  try {
    await promise;
  } catch (error) {
    const ms = now() - start;
    expect(error).toBeInstanceOf(McpHostError);
    return { error: error as McpHostError, ms };
  }
  throw new Error('expected a rejection, but the promise resolved');
}

/** Closes the client and proves the server holds no socket afterwards. */
async function closeAndCheckSockets(
  client: McpClient,
  ...servers: ScriptedMcpServer[]
): Promise<void> {
  await client.close();
  for (const server of servers) {
    await server.allSocketsClosed();
    expect(server.openSockets).toBe(0);
  }
}

/** The server saw the `tools/call`, then a `notifications/cancelled` naming its (numeric) id. */
async function expectCallCancelled(server: ScriptedMcpServer): Promise<void> {
  const call = await server.requestSeen((r) => r.rpc?.method === 'tools/call');
  const cancelled = await within(
    server.requestSeen((r) => r.rpc?.method === 'notifications/cancelled'),
    PROMPT_MS,
    'notifications/cancelled',
  );
  expect(call.rpc?.id).toEqual(expect.any(Number));
  expect(cancelled.rpc?.params).toMatchObject({ requestId: call.rpc?.id });
}

function expectNoSecret(error: McpHostError, secret: string): void {
  expect(error.message).not.toContain(secret);
  expect(JSON.stringify(error)).not.toContain(secret);
  expect(inspect(error, { depth: 10 })).not.toContain(secret);
  expect(JSON.stringify(error.details ?? {})).not.toContain(secret);
}

/** A deferred promise: the server side awaits what the client side saw. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const progressOf = (token: unknown, progress: number) => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: token, progress, total: 2 },
});

describe('Streamable HTTP faults (legacy era)', () => {
  describe('auth', () => {
    /** A long challenge that echoes the token inside the first 512 characters. */
    const challenge = (token: string, origin: string) =>
      `Bearer realm="mcp", error="invalid_token", error_description="token ${token} is expired", ` +
      `resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", ` +
      `padding="${'p'.repeat(3000)}"`;

    it('a 401 fails connect with HTTP_STATUS after one attempt (static token), masking the token', async () => {
      await using _guard = leakGuard();
      const token = 'tok-static-401-c4n4ry-9f2e7d';
      let origin = '';
      await using server = await startScriptedMcpServer({
        everyPost: (req, res) => {
          res
            .writeHead(401, {
              'content-type': 'text/plain',
              'www-authenticate': challenge(token, origin),
            })
            .end(`unauthorized: you sent ${String(req.headers.authorization)}`);
        },
      });
      origin = server.origin;
      await using client = httpClient(server.url, { auth: bearerToken(token) });
      const { error, ms } = await failure(client.connect());
      reportTiming('401 at connect (static token)', ms);

      expect(error.code).toBe('HTTP_STATUS');
      expect(error.details?.status).toBe(401);
      const www = String(error.details?.wwwAuthenticate);
      // The token the challenge echoes is masked; the rest stays readable. (The redactor also
      // masks the first auth-param name after "Bearer ", hence no check of "realm=" itself.)
      expect(www).toMatch(/^Bearer /);
      expect(www).toContain(
        '"mcp", error="invalid_token", error_description="token <masked> is expired"',
      );
      expect(www).toContain(
        `resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
      );
      expect(www.length).toBeLessThanOrEqual(512);
      expectNoSecret(error, token);
      // The token was sent (so the masking above is not vacuous), once: no auth retry.
      expect(server.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${token}`]);
      expect(ms).toBeLessThan(PROMPT_MS);
      await closeAndCheckSockets(client, server);
    });

    it('a 401 with a refreshing token source gets exactly one more attempt, then HTTP_STATUS', async () => {
      await using _guard = leakGuard();
      const tokens = ['tok-refresh-first-7c1b', 'tok-refresh-second-8d2c'];
      let asked = 0;
      let origin = '';
      await using server = await startScriptedMcpServer({
        everyPost: (req, res) => {
          const sent = String(req.headers.authorization).replace('Bearer ', '');
          res
            .writeHead(401, { 'www-authenticate': challenge(sent, origin) })
            .end(`bad token ${sent}`);
        },
      });
      origin = server.origin;
      await using client = httpClient(server.url, {
        auth: bearerToken(() => tokens[Math.min(asked++, 1)]!),
      });
      const { error, ms } = await failure(client.connect());
      reportTiming('401 at connect (refreshing token)', ms);

      expect(error.code).toBe('HTTP_STATUS');
      expect(error.details?.status).toBe(401);
      expect(server.requests.map((r) => r.headers.authorization)).toEqual(
        tokens.map((t) => `Bearer ${t}`),
      );
      for (const token of tokens) expectNoSecret(error, token);
      expect(ms).toBeLessThan(PROMPT_MS);
      await closeAndCheckSockets(client, server);
    });

    it('a 403 insufficient_scope on tools/call fails that call with HTTP_STATUS, once', async () => {
      await using _guard = leakGuard();
      const token = 'tok-scope-403-c4n4ry-1a2b3c';
      await using server = await startScriptedMcpServer({
        methods: {
          'tools/call': (req, res) => {
            res
              .writeHead(403, {
                'content-type': 'application/json',
                'www-authenticate': `Bearer error="insufficient_scope", scope="tools:call", error_description="${token} lacks tools:call" ${'q'.repeat(2000)}`,
              })
              .end(JSON.stringify({ error: 'forbidden', token: req.headers.authorization }));
          },
        },
      });
      await using client = httpClient(server.url, { auth: bearerToken(token) });
      await client.connect();
      const { error, ms } = await failure(client.callTool(TOOL_NAME, {}));
      reportTiming('403 on tools/call', ms);

      expect(error.code).toBe('HTTP_STATUS');
      expect(error.details?.status).toBe(403);
      const www = String(error.details?.wwwAuthenticate);
      expect(www).toMatch(/^Bearer /);
      expect(www).toContain('"insufficient_scope", scope="tools:call"');
      expect(www).toContain('error_description="<masked> lacks tools:call"');
      expect(www.length).toBeLessThanOrEqual(512);
      expectNoSecret(error, token);
      expect(server.attempts('tools/call')).toBe(1);
      for (const r of server.requests.filter((r) => r.method === 'POST'))
        expect(r.headers.authorization).toBe(`Bearer ${token}`);
      expect(ms).toBeLessThan(PROMPT_MS);
      // The session survives a refused call.
      await expect(client.listTools()).resolves.toMatchObject({ tools: [{ name: TOOL_NAME }] });
      await closeAndCheckSockets(client, server);
    });
  });

  it('nothing listening: connect fails with CONNECT_FAILED (ECONNREFUSED) at once', async () => {
    await using _guard = leakGuard();
    const gone = await startScriptedMcpServer();
    await gone[Symbol.asyncDispose]();
    await using client = httpClient(gone.url, { connectTimeoutMs: 10_000 });
    const { error, ms } = await failure(client.connect());
    reportTiming('connection refused', ms);

    expect(error.code).toBe('CONNECT_FAILED');
    expect(error.details?.errno).toBe('ECONNREFUSED');
    expect(error.message).toContain(gone.origin);
    // One transport, one attempt (an HTTP failure on the era probe is not a reason to try again).
    expect(client.transports).toHaveLength(1);
    expect(ms).toBeLessThan(PROMPT_MS);
    await client.close();
    expect(client.transports[0]?.state).toBe('closed');
  });

  it('a malformed Mcp-Session-Id on initialize: connect fails with PROTOCOL_VIOLATION naming it', async () => {
    await using _guard = leakGuard();
    // A session id must be visible ASCII (0x21-0x7E): this one has a space, which the client
    // could never send back (every later request would get the server's 400 "not initialized").
    const sessionId = 'sess-canary 4b1c9e';
    await using server = await startScriptedMcpServer({ sessionId });
    await using client = httpClient(server.url);
    const { error, ms } = await failure(client.connect());
    reportTiming('malformed session id', ms);

    expect(error.code).toBe('PROTOCOL_VIOLATION');
    expect(error.message).toContain(
      "the server's Mcp-Session-Id header has U+0020 (a space) at character 12 of 18",
    );
    expect(error.details).toEqual({ header: 'Mcp-Session-Id' });
    expectNoSecret(error, 'sess-canary');
    // Nothing after initialize: no notifications/initialized, no listing, no retry.
    expect(server.requests.map((r) => r.rpc?.method ?? r.method)).toEqual([
      'server/discover',
      'initialize',
    ]);
    expect(client.state).not.toBe('ready');
    expect(ms).toBeLessThan(PROMPT_MS);
    await closeAndCheckSockets(client, server);
  });

  describe('a response stream dropped mid-way', () => {
    it('with event ids: resumed with GET and Last-Event-ID, and the call succeeds', async () => {
      await using _guard = leakGuard();
      const progressSeen = deferred();
      let callId: unknown;
      await using server = await startScriptedMcpServer({
        methods: {
          'tools/call': async (req, res, raw) => {
            callId = req.rpc?.id;
            const token = (req.rpc?.params?._meta as { progressToken?: unknown })?.progressToken;
            res.writeHead(200, { 'content-type': 'text/event-stream' });
            res.write('retry: 100\n\n');
            res.write(sseEvent(progressOf(token, 1), 'evt-1'));
            // Drop the connection only once the client has the event (no sleep, no race).
            await progressSeen.promise;
            raw.socket.destroy();
          },
        },
        protocolVersion: '2025-06-18',
        get: (req, res) => {
          if (req.headers['last-event-id'] !== 'evt-1') return void res.writeHead(405).end();
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(
            sseEvent(
              {
                jsonrpc: '2.0',
                id: callId,
                result: { content: [{ type: 'text', text: 'resumed' }] },
              },
              'evt-2',
            ),
          );
        },
      });
      await using client = httpClient(server.url);
      await client.connect();
      const start = now();
      const progress: number[] = [];
      const result = await client.callTool(
        TOOL_NAME,
        {},
        {
          onProgress: (p) => {
            progress.push(p.progress);
            progressSeen.resolve();
          },
        },
      );
      const ms = now() - start;
      reportTiming('dropped stream, resumed', ms);

      expect(result.content).toEqual([{ type: 'text', text: 'resumed' }]);
      expect(progress).toEqual([1]);
      expect(server.attempts('tools/call')).toBe(1);
      const resumes = server.requests.filter(
        (r) => r.method === 'GET' && r.headers['last-event-id'] !== undefined,
      );
      expect(resumes).toHaveLength(1);
      expect(resumes[0]?.headers['last-event-id']).toBe('evt-1');
      expect(resumes[0]?.headers['mcp-session-id']).toMatch(/^sess-scripted-/);
      expect(resumes[0]?.headers['mcp-protocol-version']).toBe('2025-06-18');
      expect(ms).toBeLessThan(PROMPT_MS);
      await closeAndCheckSockets(client, server);
    });

    it('without event ids: STREAM_INTERRUPTED with maybeExecuted, no resume attempted', async () => {
      await using _guard = leakGuard();
      const progressSeen = deferred();
      await using server = await startScriptedMcpServer({
        methods: {
          'tools/call': async (req, res, raw) => {
            const token = (req.rpc?.params?._meta as { progressToken?: unknown })?.progressToken;
            res.writeHead(200, { 'content-type': 'text/event-stream' });
            res.write(sseEvent(progressOf(token, 1)));
            await progressSeen.promise;
            raw.socket.destroy();
          },
        },
      });
      await using client = httpClient(server.url);
      await client.connect();
      const { error, ms } = await failure(
        client.callTool(TOOL_NAME, {}, { onProgress: () => progressSeen.resolve() }),
      );
      reportTiming('dropped stream, no ids', ms);

      expect(error.code).toBe('STREAM_INTERRUPTED');
      expect(error.details).toMatchObject({ maybeExecuted: true });
      expect(server.attempts('tools/call')).toBe(1);
      expect(server.requests.filter((r) => r.headers['last-event-id'] !== undefined)).toEqual([]);
      expect(ms).toBeLessThan(PROMPT_MS);
      await closeAndCheckSockets(client, server);
    });
  });

  describe('a connection dropped without a stream to resume', () => {
    it('a JSON body cut mid-way: HTTP_REQUEST_FAILED, not retried', async () => {
      await using _guard = leakGuard();
      await using server = await startScriptedMcpServer({
        methods: {
          'tools/call': (req, res, raw) => {
            const body = JSON.stringify({
              jsonrpc: '2.0',
              id: req.rpc?.id,
              result: { content: [{ type: 'text', text: 'x'.repeat(4096) }] },
            });
            res.writeHead(200, {
              'content-type': 'application/json',
              'content-length': String(body.length),
            });
            res.write(body.slice(0, 1000), () => raw.socket.destroy());
          },
        },
      });
      await using client = httpClient(server.url);
      await client.connect();
      const { error, ms } = await failure(client.callTool(TOOL_NAME, {}));
      reportTiming('JSON body cut', ms);
      console.log(
        `[measure] JSON body cut: ${error.code} ${JSON.stringify(error.details)} ${error.message}`,
      );

      expect(error.code).toBe('HTTP_REQUEST_FAILED');
      expect(error.details).toEqual({ errno: 'UND_ERR_SOCKET', maybeExecuted: true });
      expect(server.attempts('tools/call')).toBe(1);
      expect(ms).toBeLessThan(PROMPT_MS);
      await closeAndCheckSockets(client, server);
    });

    it('reset before any response: HTTP_REQUEST_FAILED, not retried', async () => {
      await using _guard = leakGuard();
      await using server = await startScriptedMcpServer({
        methods: { 'tools/call': (_req, _res, raw) => void raw.socket.destroy() },
      });
      await using client = httpClient(server.url);
      await client.connect();
      const { error, ms } = await failure(client.callTool(TOOL_NAME, {}));
      reportTiming('reset before headers', ms);
      console.log(
        `[measure] reset: ${error.code} ${JSON.stringify(error.details)} ${error.message}`,
      );

      expect(error.code).toBe('HTTP_REQUEST_FAILED');
      expect(error.details).toEqual({ errno: 'UND_ERR_SOCKET', maybeExecuted: true });
      expect(server.attempts('tools/call')).toBe(1);
      expect(ms).toBeLessThan(PROMPT_MS);
      await closeAndCheckSockets(client, server);
    });
  });

  describe('slow servers', () => {
    it('one byte a second after the headers: REQUEST_TIMEOUT (total) at requestTimeoutMs', async () => {
      await using _guard = leakGuard();
      const requestTimeoutMs = 1_500;
      await using server = await startScriptedMcpServer({
        methods: {
          'tools/call': (_req, res) => {
            res.writeHead(200, { 'content-type': 'application/json' });
            trickle(res, '{"jsonrpc":"2.0","id":', 1_000);
          },
        },
      });
      await using client = httpClient(server.url, { requestTimeoutMs });
      await client.connect();
      const { error, ms } = await failure(client.callTool(TOOL_NAME, {}));
      reportTiming('trickling body', ms);

      expect(error.code).toBe('REQUEST_TIMEOUT');
      expect(error.details).toEqual({ kind: 'total' });
      expect(error.message).toContain(`${requestTimeoutMs} ms`);
      expect(server.attempts('tools/call')).toBe(1);
      // Cancelled on the server too, as after any timeout.
      await expectCallCancelled(server);
      // It waited for its own deadline (not less), and not for the client's 30 s idle timeout.
      expect(ms).toBeGreaterThanOrEqual(requestTimeoutMs - 100);
      expect(ms).toBeLessThan(requestTimeoutMs + PROMPT_MS);
      await closeAndCheckSockets(client, server);
    });

    it.each([
      ['no response headers ever', (): void => {}],
      [
        'response headers one byte a second',
        (_req: ScriptedRequest, _res: ServerResponse, raw: IncomingMessage): void => {
          // A slowloris status line and header, written on the raw socket.
          const socket = raw.socket;
          let sent = 0;
          const text = `HTTP/1.1 200 OK\r\nx-slow: ${'z'.repeat(100)}`;
          const next = (): void => void socket.write(text[sent++ % text.length]!);
          next();
          const timer = setInterval(next, 1_000);
          socket.once('close', () => clearInterval(timer));
        },
      ],
    ] as const)(
      '%s: REQUEST_TIMEOUT (headers) at headersTimeoutMs, and the call is cancelled on the server',
      async (label, handler) => {
        await using _guard = leakGuard();
        const headersTimeoutMs = 500;
        await using server = await startScriptedMcpServer({ methods: { 'tools/call': handler } });
        await using client = httpClient(server.url, { headersTimeoutMs });
        await client.connect();
        const { error, ms } = await failure(client.callTool(TOOL_NAME, {}));
        reportTiming(label, ms);

        expect(error.code).toBe('REQUEST_TIMEOUT');
        expect(error.details).toEqual({ kind: 'headers' });
        expect(server.attempts('tools/call')).toBe(1);
        // The server may still run the call: it is told (legacy era: notifications/cancelled).
        await expectCallCancelled(server);
        expect(server.attempts('notifications/cancelled')).toBe(1);
        // undici runs its headers timer on a coarse clock (about 1 s ticks): 500 ms fires at ~1 s.
        expect(ms).toBeGreaterThanOrEqual(headersTimeoutMs - 100);
        expect(ms).toBeLessThan(headersTimeoutMs + PROMPT_MS);
        await closeAndCheckSockets(client, server);
      },
    );
  });

  it.each([
    ['application/json', '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"'],
    ['text/event-stream', 'data: {"jsonrpc":"2.0","id":2,"result":{"text":"'],
  ])(
    'a 200 MiB %s body: MESSAGE_TOO_LARGE long before it is read, memory bounded',
    async (contentType, prefix) => {
      await using _guard = leakGuard();
      const totalBytes = 200 * MiB;
      let serverWrote: Promise<number> = Promise.resolve(0);
      await using server = await startScriptedMcpServer({
        methods: {
          'tools/call': (_req, res) => {
            res.writeHead(200, {
              'content-type': contentType,
              ...(contentType === 'application/json'
                ? { 'content-length': String(totalBytes) }
                : {}),
            });
            res.write(prefix);
            serverWrote = streamBytes(
              res,
              totalBytes - prefix.length,
              Buffer.alloc(64 * 1024, 'x'),
            );
          },
        },
      });
      await using client = httpClient(server.url);
      await client.connect();
      const rssBefore = process.memoryUsage.rss();
      const start = now();
      const { peakRss, result } = await peakRssWhile(client.callTool(TOOL_NAME, {}));
      const ms = now() - start;
      const written = await serverWrote;
      const growth = peakRss - rssBefore;
      reportTiming(`200 MiB ${contentType}`, ms);
      console.log(
        `[measure] 200 MiB ${contentType}: server wrote ${(written / MiB).toFixed(1)} MiB, RSS +${(growth / MiB).toFixed(1)} MiB`,
      );

      expect(result.status).toBe('rejected');
      const error = (result as PromiseRejectedResult).reason as McpHostError;
      expect(error).toBeInstanceOf(McpHostError);
      expect(error.code).toBe('MESSAGE_TOO_LARGE');
      expect(error.details?.maxMessageBytes).toBe(16 * MiB);
      expect(server.attempts('tools/call')).toBe(1);
      expect(written).toBeLessThan(64 * MiB);
      expect(growth).toBeLessThan(100 * MiB);
      expect(ms).toBeLessThan(10_000);
      await closeAndCheckSockets(client, server);
    },
  );

  describe('HTML instead of JSON', () => {
    const page = `<!DOCTYPE html><html><head><title>Sign in</title></head><body>${'<p>lorem ipsum</p>'.repeat(600)}END-OF-PAGE</body></html>`;

    it('200 text/html: INVALID_MESSAGE naming the content type', async () => {
      await using _guard = leakGuard();
      await using server = await startScriptedMcpServer({
        methods: {
          'tools/call': (_req, res) =>
            void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page),
        },
      });
      await using client = httpClient(server.url);
      await client.connect();
      const { error, ms } = await failure(client.callTool(TOOL_NAME, {}));
      reportTiming('200 text/html', ms);

      expect(error.code).toBe('INVALID_MESSAGE');
      expect(error.message).toContain("'text/html'");
      expect(error.message).not.toContain('END-OF-PAGE');
      expect(error.message.length).toBeLessThanOrEqual(1024);
      expect(server.attempts('tools/call')).toBe(1);
      expect(ms).toBeLessThan(PROMPT_MS);
      await closeAndCheckSockets(client, server);
    });

    it('200 application/json with an HTML body: INVALID_MESSAGE with a short preview', async () => {
      await using _guard = leakGuard();
      await using server = await startScriptedMcpServer({
        methods: {
          'tools/call': (_req, res) =>
            void res.writeHead(200, { 'content-type': 'application/json' }).end(page),
        },
      });
      await using client = httpClient(server.url);
      await client.connect();
      const { error, ms } = await failure(client.callTool(TOOL_NAME, {}));
      reportTiming('200 application/json with HTML', ms);

      expect(error.code).toBe('INVALID_MESSAGE');
      expect(error.message).toContain('not JSON');
      expect(error.message).toContain('<!DOCTYPE html>');
      expect(error.message).not.toContain('END-OF-PAGE');
      expect(error.message.length).toBeLessThanOrEqual(1024);
      expect(server.attempts('tools/call')).toBe(1);
      expect(ms).toBeLessThan(PROMPT_MS);
      await closeAndCheckSockets(client, server);
    });
  });

  it('a 500 with a 1 MiB body: HTTP_STATUS with at most a 1 KiB preview', async () => {
    await using _guard = leakGuard();
    const body = `Internal Server Error: ${'stack frame '.repeat(90_000)}END-OF-BODY`;
    await using server = await startScriptedMcpServer({
      methods: {
        'tools/call': (_req, res) =>
          void res.writeHead(500, { 'content-type': 'text/plain' }).end(body),
      },
    });
    await using client = httpClient(server.url);
    await client.connect();
    const { error, ms } = await failure(client.callTool(TOOL_NAME, {}));
    reportTiming('500 with a long body', ms);

    expect(error.code).toBe('HTTP_STATUS');
    expect(error.details?.status).toBe(500);
    expect(error.message).toContain('HTTP 500: Internal Server Error: stack frame');
    expect(error.message).not.toContain('END-OF-BODY');
    expect(error.message.length).toBeLessThanOrEqual(1024);
    expect(JSON.stringify(error).length).toBeLessThan(4 * 1024);
    expect(server.attempts('tools/call')).toBe(1);
    expect(ms).toBeLessThan(PROMPT_MS);
    await closeAndCheckSockets(client, server);
  });

  it('a 307 to another origin: not followed, HTTP_STATUS, no request (nor token) reaches it', async () => {
    await using _guard = leakGuard();
    const token = 'tok-redirect-c4n4ry-5e6f7a';
    await using other = await startScriptedMcpServer();
    await using server = await startScriptedMcpServer({
      methods: {
        'tools/call': (_req, res) => void res.writeHead(307, { location: other.url }).end(),
      },
    });
    await using client = httpClient(server.url, { auth: bearerToken(token) });
    await client.connect();
    const { error, ms } = await failure(client.callTool(TOOL_NAME, {}));
    reportTiming('307 to another origin', ms);

    expect(error.code).toBe('HTTP_STATUS');
    expect(error.details?.status).toBe(307);
    expect(error.message).toContain(`another origin (${other.origin})`);
    expectNoSecret(error, token);
    expect(server.attempts('tools/call')).toBe(1);
    expect(server.requests.find((r) => r.rpc?.method === 'tools/call')?.headers.authorization).toBe(
      `Bearer ${token}`,
    );
    expect(other.requests).toEqual([]);
    expect(other.connections).toBe(0);
    expect(ms).toBeLessThan(PROMPT_MS);
    await closeAndCheckSockets(client, server, other);
  });
});
