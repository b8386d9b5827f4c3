/**
 * A hand-written HTTP server on 127.0.0.1 port 0 for transport tests: each request is recorded
 * (method, headers, body) and answered by the test's handler. Disposing it closes every socket.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (
  request: RecordedRequest,
  res: ServerResponse,
  req: IncomingMessage,
) => void | Promise<void>;

export interface TestHttpServer extends AsyncDisposable {
  readonly url: string;
  readonly origin: string;
  readonly requests: RecordedRequest[];
  /** Connections open now (keep-alive ones included). */
  readonly openSockets: number;
  handle(handler: Handler): void;
  /** Resolves once the server has recorded `count` requests (on the request event, no polling). */
  requestsSeen(count: number): Promise<void>;
  /** Resolves once every connection to the server has closed (on the close events). */
  socketsClosed(): Promise<void>;
}

export async function startHttpServer(handler: Handler = defaultHandler): Promise<TestHttpServer> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  /** Checks run after every recorded request and every closed socket. */
  const waiters = new Set<() => void>();
  const changed = (): void => {
    for (const check of [...waiters]) check();
  };
  const until = (condition: () => boolean): Promise<void> =>
    new Promise<void>((resolve) => {
      const check = (): void => {
        if (!condition()) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      changed();
      void Promise.resolve(current(recorded, res, req)).catch((error: unknown) => {
        res.destroy(error as Error);
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      changed();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const origin = `http://127.0.0.1:${address.port}`;
  return {
    url: `${origin}/mcp`,
    origin,
    requests,
    get openSockets() {
      return sockets.size;
    },
    handle(next) {
      current = next;
    },
    requestsSeen: (count) => until(() => requests.length >= count),
    socketsClosed: () => until(() => sockets.size === 0),
    async [Symbol.asyncDispose]() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function defaultHandler(_request: RecordedRequest, res: ServerResponse): void {
  res.writeHead(404).end();
}

/** Answers with one JSON body. */
export function sendJson(
  res: ServerResponse,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
}

/** Formats one SSE event. */
export function sseEvent(data: unknown, id?: string): string {
  const lines = id === undefined ? [] : [`id: ${id}`];
  lines.push(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}`);
  return `${lines.join('\n')}\n\n`;
}
