/**
 * A WebSocket server on 127.0.0.1, port 0, for transport tests: it records each connection's
 * upgrade headers and subprotocol, hands connections out in order, and closes everything (its
 * clients too) when disposed. `serverTransport()` turns one of its sockets into a Transport, so the
 * fake MCP server can answer over it.
 */
import type { IncomingMessage } from 'node:http';
import { WebSocketServer, type RawData, type ServerOptions, type WebSocket } from 'ws';
import type { McpHostError } from '../../src/errors/mcp-host-error.js';
import { Emitter } from '../../src/internal/emitter.js';
import type { JsonRpcMessage } from '../../src/jsonrpc/message.js';
import type { Transport, TransportProblem, TransportState } from '../../src/jsonrpc/transport.js';

export interface ServerConnection {
  socket: WebSocket;
  request: IncomingMessage;
  /** Resolves with the close code and reason the server saw. */
  closed: Promise<{ code: number; reason: string }>;
  /** Each parsed text frame, in order. */
  messages: AsyncIterableIterator<unknown>;
}

export interface TestWsServer extends AsyncDisposable {
  url: string;
  server: WebSocketServer;
  /** The next connection (in order of arrival). */
  nextConnection(): Promise<ServerConnection>;
}

export async function startWsServer(options: ServerOptions = {}): Promise<TestWsServer> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, ...options });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  const arrived: ServerConnection[] = [];
  const waiting: ((connection: ServerConnection) => void)[] = [];
  server.on('connection', (socket, request) => {
    const connection: ServerConnection = {
      socket,
      request,
      closed: new Promise((resolve) =>
        socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
      ),
      messages: frames(socket),
    };
    const waiter = waiting.shift();
    if (waiter === undefined) arrived.push(connection);
    else waiter(connection);
  });
  return {
    url: `ws://127.0.0.1:${address.port}/mcp`,
    server,
    nextConnection() {
      const connection = arrived.shift();
      if (connection !== undefined) return Promise.resolve(connection);
      return new Promise((resolve) => waiting.push(resolve));
    },
    async [Symbol.asyncDispose]() {
      const closing = [...server.clients].map(
        (client) => new Promise((resolve) => client.once('close', resolve)),
      );
      for (const client of server.clients) client.terminate();
      await Promise.all(closing);
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function frames(socket: WebSocket): AsyncIterableIterator<unknown> {
  const queue: unknown[] = [];
  const waiting: ((value: IteratorResult<unknown>) => void)[] = [];
  let done = false;
  socket.on('message', (data, isBinary) => {
    if (isBinary) return;
    const value: unknown = JSON.parse(rawText(data));
    const waiter = waiting.shift();
    if (waiter === undefined) queue.push(value);
    else waiter({ value, done: false });
  });
  socket.once('close', () => {
    done = true;
    for (const waiter of waiting.splice(0)) waiter({ value: undefined, done: true });
  });
  const iterator: AsyncIterableIterator<unknown> = {
    next() {
      if (queue.length > 0) return Promise.resolve({ value: queue.shift(), done: false });
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => waiting.push(resolve));
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/** The server's end of one connection as a Transport (already open), for `FakeMcpServer`. */
export function serverTransport(socket: WebSocket): Transport {
  const messages = new Emitter<unknown>();
  const problems = new Emitter<TransportProblem>();
  const closes = new Emitter<McpHostError | undefined>();
  let state: TransportState = 'open';
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      state = 'closed';
      closes.fire(undefined);
      resolve();
    }),
  );
  socket.on('message', (data, isBinary) => {
    if (!isBinary) messages.fire(JSON.parse(rawText(data)));
  });
  const close = async (): Promise<void> => {
    if (state === 'open') {
      state = 'closing';
      socket.close(1000);
    }
    await closed;
  };
  return {
    get state() {
      return state;
    },
    start: () => Promise.resolve(),
    send(message: JsonRpcMessage) {
      socket.send(JSON.stringify(message));
    },
    close,
    onMessage: messages.event,
    onProblem: problems.event,
    onClose: closes.event,
    [Symbol.asyncDispose]: close,
  };
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}
