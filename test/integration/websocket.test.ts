import { createServer, type Server, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/mcp-client.js';
import { MASK, redact } from '../../src/errors/redact.js';
import { type McpHostError } from '../../src/errors/mcp-host-error.js';
import { JsonRpcPeer } from '../../src/jsonrpc/peer.js';
import type { TransportProblem } from '../../src/jsonrpc/transport.js';
import { FakeMcpServer } from '../../src/testing/fake-mcp-server.js';
import { WebSocketTransport, type WebSocketTransportOptions } from '../../src/ws.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { serverTransport, startWsServer, type ServerConnection } from '../helpers/ws-server.js';

type Request = { id: number; method: string; params?: unknown };

/** A client transport and peer; disposing closes both. */
async function openPeer(url: string, options: Partial<WebSocketTransportOptions> = {}) {
  const transport = new WebSocketTransport({ url, serverName: 'ws-test', ...options });
  const peer = new JsonRpcPeer(transport, { serverName: 'ws-test' });
  const problems: TransportProblem[] = [];
  transport.onProblem((problem) => problems.push(problem));
  const closed = new Promise<McpHostError | undefined>((resolve) => transport.onClose(resolve));
  await peer.start();
  return {
    transport,
    peer,
    problems,
    closed,
    async [Symbol.asyncDispose]() {
      await peer.close();
    },
  };
}

async function nextRequest(connection: ServerConnection): Promise<Request> {
  const { value } = await connection.messages.next();
  return value as Request;
}

/** A TCP port nobody listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return address.port;
}

describe('WebSocketTransport', () => {
  it('round-trips requests, negotiates the mcp subprotocol and sends the headers', async () => {
    await using _guard = leakGuard();
    await using server = await startWsServer();
    const token = 'ws-test-token-0123456789';
    const tenant = 'ws-tenant-canary-5c8e2a';
    const label = 'ws-label-public-7d1b3f';
    await using client = await openPeer(server.url, {
      headers: {
        Authorization: `Bearer ${token}`,
        'X-Trace': 'abc',
        'X-Tenant': tenant,
        'X-Label': label,
      },
      publicHeaders: ['x-label'],
    });
    const connection = await server.nextConnection();
    expect(client.transport.state).toBe('open');
    expect(client.transport.protocol).toBe('mcp');
    expect(connection.socket.protocol).toBe('mcp');
    expect(connection.request.headers.authorization).toBe(`Bearer ${token}`);
    expect(connection.request.headers['x-trace']).toBe('abc');
    // The header values are registered secrets while the transport is open, whatever the
    // header's name, except those named in publicHeaders.
    expect(redact(`token is ${token}`)).toBe(`token is ${MASK}`);
    expect(redact(`tenant ${tenant}, label ${label}`)).toBe(`tenant ${MASK}, label ${label}`);

    const answer = client.peer.request('echo', { n: 1 });
    const request = await nextRequest(connection);
    expect(request).toMatchObject({ jsonrpc: '2.0', method: 'echo', params: { n: 1 } });
    connection.socket.send(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { ok: 1 } }));
    expect(await answer).toEqual({ ok: 1 });
    expect(client.transport.stats).toMatchObject({ messagesReceived: 1, messagesSent: 1 });
  });

  it('delivers a frame the server sends right after the handshake', async () => {
    await using _guard = leakGuard();
    await using server = await startWsServer();
    server.server.on('connection', (socket) =>
      socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/hello' })),
    );
    await using transport = new WebSocketTransport({ url: server.url });
    const first = new Promise((resolve) => transport.onMessage(resolve));
    await transport.start();
    expect(await first).toEqual({ jsonrpc: '2.0', method: 'notifications/hello' });
  });

  it('an unusable URL is INVALID_ARGUMENT', async () => {
    await using transport = new WebSocketTransport({ url: 'ftp://127.0.0.1/' });
    await expect(transport.start()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(transport.state).toBe('closed');
  });

  it('skips binary and non-JSON text frames, counts them and keeps the connection', async () => {
    await using _guard = leakGuard();
    await using server = await startWsServer();
    await using client = await openPeer(server.url);
    const connection = await server.nextConnection();
    const answer = client.peer.request('ping');
    const request = await nextRequest(connection);
    connection.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    connection.socket.send('hello, I am a log line');
    connection.socket.send('{"not json');
    connection.socket.send(Buffer.from([0xff, 0xfe, 0x7b]).toString('latin1'));
    connection.socket.send(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: {} }));
    expect(await answer).toEqual({});
    expect(client.transport.stats).toMatchObject({ binaryFrames: 1, junkFrames: 3 });
    expect(client.problems.map((p) => p.error.code)).toEqual([
      'INVALID_MESSAGE',
      'INVALID_MESSAGE',
      'INVALID_MESSAGE',
      'INVALID_MESSAGE',
    ]);
    expect(client.problems[1]?.error.message).toContain('hello, I am a log line');
    expect(client.transport.state).toBe('open');
  });

  it('an oversized frame fails the pending request at once with MESSAGE_TOO_LARGE (closed with 1009)', async () => {
    await using _guard = leakGuard();
    await using server = await startWsServer();
    await using client = await openPeer(server.url, { maxMessageBytes: 1024 });
    const connection = await server.nextConnection();
    const answer = client.peer.request('big');
    const request = await nextRequest(connection);
    const big = JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { x: 'y'.repeat(2000) } });
    connection.socket.send(big);
    await expect(answer).rejects.toMatchObject({ code: 'MESSAGE_TOO_LARGE' });
    expect(await client.closed).toMatchObject({
      code: 'MESSAGE_TOO_LARGE',
      details: { maxMessageBytes: 1024, closeCode: 1009 },
    });
    expect(client.problems.map((p) => p.error.code)).toEqual(['MESSAGE_TOO_LARGE']);
    expect(client.transport.stats.oversizedMessages).toBe(1);
    expect((await connection.closed).code).toBe(1009);
    await client.transport.close();
  });

  it('a server that closes mid-request fails the pending request at once with the close code', async () => {
    await using _guard = leakGuard();
    await using server = await startWsServer();
    const token = 'close-reason-token-9876543210';
    await using client = await openPeer(server.url, { headers: { 'X-Api-Key': token } });
    const connection = await server.nextConnection();
    const answer = client.peer.request('slow', {}, { timeoutMs: 60_000 });
    await nextRequest(connection);
    connection.socket.close(4001, `going away, key ${token}`);
    const error = (await answer.catch((e: unknown) => e)) as McpHostError;
    expect(error).toMatchObject({ code: 'CONNECTION_CLOSED', details: { closeCode: 4001 } });
    expect(error.message).toContain('4001: going away, key');
    expect(error.message).not.toContain(token);
    expect(JSON.stringify(error)).not.toContain(token);
    expect(await client.closed).toBe(error);
    expect(() => client.transport.send({ jsonrpc: '2.0', method: 'x' })).toThrow(
      expect.objectContaining({ code: 'CONNECTION_CLOSED' }),
    );
  });

  it('a dropped TCP connection (no closing handshake) closes with 1006', async () => {
    await using _guard = leakGuard();
    await using server = await startWsServer();
    await using client = await openPeer(server.url);
    const connection = await server.nextConnection();
    const answer = client.peer.request('slow', {}, { timeoutMs: 60_000 });
    await nextRequest(connection);
    connection.socket.terminate();
    await expect(answer).rejects.toMatchObject({
      code: 'CONNECTION_CLOSED',
      details: { closeCode: 1006 },
    });
  });

  it('keep-alive: a server that stops answering pings closes the transport with KEEPALIVE_TIMEOUT', async () => {
    await using _guard = leakGuard();
    await using server = await startWsServer({ autoPong: false });
    await using client = await openPeer(server.url, { keepAliveIntervalMs: 20 });
    await server.nextConnection();
    const answer = client.peer.request('slow', {}, { timeoutMs: 60_000 });
    const reason = await client.closed;
    expect(reason).toMatchObject({
      code: 'KEEPALIVE_TIMEOUT',
      details: { keepAliveIntervalMs: 20 },
    });
    await expect(answer).rejects.toBe(reason);
    await client.transport.close();
  });

  it('keep-alive: a server that answers pings stays connected', async () => {
    await using _guard = leakGuard();
    await using server = await startWsServer();
    await using client = await openPeer(server.url, { keepAliveIntervalMs: 50 });
    const connection = await server.nextConnection();
    // Several pings answered in time (by the server's autoPong): still open. 50 ms leaves room
    // for a loaded machine; a late pong would close the transport.
    await new Promise<void>((resolve) => {
      let pings = 0;
      connection.socket.on('ping', () => {
        if (++pings === 4) resolve();
      });
    });
    expect(client.transport.state).toBe('open');
  });

  it('connection refused: start() throws CONNECT_FAILED with the errno', async () => {
    await using _guard = leakGuard();
    const port = await freePort();
    const transport = new WebSocketTransport({ url: `ws://127.0.0.1:${port}/` });
    const closed = new Promise((resolve) => transport.onClose(resolve));
    const error = await transport.start().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONNECT_FAILED', details: { errno: 'ECONNREFUSED' } });
    expect(await closed).toBe(error);
    expect(transport.state).toBe('closed');
    await transport.close();
  });

  it('upgrade rejected with 401: start() throws CONNECT_FAILED with the status, token redacted', async () => {
    await using _guard = leakGuard();
    await using server = await startWsServer({
      verifyClient: (_info, callback) => callback(false, 401, 'Unauthorized'),
    });
    const token = 'rejected-token-abcdef123456';
    const transport = new WebSocketTransport({
      url: `${server.url}?access_token=${token}`,
      headers: { Authorization: `Bearer ${token}` },
    });
    const error = (await transport.start().catch((e: unknown) => e)) as McpHostError;
    expect(error).toMatchObject({ code: 'CONNECT_FAILED', details: { status: 401 } });
    expect(error.message).toContain('401');
    expect(JSON.stringify(error)).not.toContain(token);
    expect(error.message).not.toContain(token);
    await transport.close();
  });

  it('a server that does not select the mcp subprotocol is refused', async () => {
    await using _guard = leakGuard();
    await using server = await startWsServer({ handleProtocols: () => false });
    const transport = new WebSocketTransport({ url: server.url });
    await expect(transport.start()).rejects.toMatchObject({ code: 'CONNECT_FAILED' });
    await transport.close();
  });

  it('a server that never answers the upgrade: CONNECT_TIMEOUT', async () => {
    await using _guard = leakGuard();
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    await using _silent = {
      async [Symbol.asyncDispose]() {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => silent.close(resolve));
      },
    };
    const { port } = silent.address() as { port: number };
    const transport = new WebSocketTransport({
      url: `ws://127.0.0.1:${port}/`,
      connectTimeoutMs: 50,
    });
    await expect(transport.start()).rejects.toMatchObject({
      code: 'CONNECT_TIMEOUT',
      details: { connectTimeoutMs: 50 },
    });
    await transport.close();
  });

  it('start() honours an aborted signal', async () => {
    await using _guard = leakGuard();
    await using server = await startWsServer();
    const transport = new WebSocketTransport({ url: server.url });
    const controller = new AbortController();
    const reason = new Error('stop');
    const started = transport.start({ signal: controller.signal });
    controller.abort(reason);
    await expect(started).rejects.toMatchObject({ code: 'ABORTED', cause: reason });
    await transport.close();
  });

  it('close() is idempotent and concurrent-safe: a normal closure, one close event', async () => {
    await using _guard = leakGuard();
    await using server = await startWsServer();
    const transport = new WebSocketTransport({ url: server.url });
    const reasons: unknown[] = [];
    transport.onClose((reason) => reasons.push(reason));
    await transport.start();
    const connection = await server.nextConnection();
    const first = transport.close();
    const second = transport.close();
    expect(second).toBe(first);
    await Promise.all([first, second, transport.close()]);
    expect(transport.state).toBe('closed');
    expect(reasons).toEqual([undefined]);
    expect((await connection.closed).code).toBe(1000);
    await transport.close();
    expect(() => transport.send({ jsonrpc: '2.0', method: 'x' })).toThrow(
      expect.objectContaining({ code: 'CONNECTION_CLOSED' }),
    );
  });

  it('close() while connecting ends the attempt; close() before start() just closes', async () => {
    await using _guard = leakGuard();
    await using server = await startWsServer();
    const never = new WebSocketTransport({ url: server.url });
    await never.close();
    expect(never.state).toBe('closed');
    await expect(never.start()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });

    const transport = new WebSocketTransport({ url: server.url });
    const started = transport.start();
    await transport.close();
    await expect(started).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
  });

  it('send() refuses with OUTBOUND_BUFFER_FULL when the server stops reading', async () => {
    await using _guard = leakGuard();
    await using server = await startWsServer();
    await using client = await openPeer(server.url, { maxOutboundBytes: 1024 * 1024 });
    const connection = await server.nextConnection();
    const raw = (connection.socket as unknown as { _socket: Socket })._socket;
    raw.pause();
    const chunk = 'x'.repeat(256 * 1024);
    let error: unknown;
    for (let i = 0; i < 2000 && error === undefined; i++) {
      try {
        client.transport.send({ jsonrpc: '2.0', method: 'flood', params: { chunk } });
      } catch (e) {
        error = e;
      }
    }
    expect(error).toMatchObject({ code: 'OUTBOUND_BUFFER_FULL' });
    expect(client.transport.state).toBe('open');
  });

  it('McpClient end to end: connect, list tools, call a tool', async () => {
    await using _guard = leakGuard();
    await using server = await startWsServer();
    const servers: FakeMcpServer[] = [];
    server.server.on('connection', (socket) => {
      const fake = new FakeMcpServer(serverTransport(socket), {
        era: 'legacy',
        tools: [
          {
            name: 'add',
            inputSchema: { type: 'object' },
            handler: (args) => ({
              content: [{ type: 'text', text: String(Number(args.a) + Number(args.b)) }],
            }),
          },
        ],
      });
      servers.push(fake);
      void fake.start();
    });
    const client = new McpClient({
      transport: new WebSocketTransport({ url: server.url, serverName: 'ws-fake' }),
      serverName: 'ws-fake',
    });
    await using _client = client;
    await client.connect();
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['add']);
    const result = await client.callTool('add', { a: 2, b: 3 });
    expect(result.content[0]).toMatchObject({ type: 'text', text: '5' });
    expect(servers[0]?.received.map((r) => r.method)).toContain('tools/call');
  });
});
