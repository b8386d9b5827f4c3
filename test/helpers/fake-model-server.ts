/**
 * A scripted model provider on 127.0.0.1 for the agent adapters' end-to-end tests: each request
 * to any path is recorded and answered by the next reply the test queued (JSON, or a server-sent
 * event stream for a streaming request), in that provider's wire format. A request with no reply
 * queued gets a 500 naming it, so a test that expected fewer turns fails loudly.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the model server received. */
export interface ModelRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body (undefined when there was none). */
  body: Record<string, unknown> | undefined;
}

/**
 * How to answer one request: a JSON body, or a list of server-sent events (each `data` is sent as
 * JSON unless it is a string; `event` names the event when the wire format uses names). A function
 * sees the request first (for example to answer streaming and non-streaming requests alike).
 */
export type ModelReply =
  | { json: unknown; status?: number }
  | SseReply
  | ((request: ModelRequest) => { json: unknown; status?: number } | SseReply);

/**
 * A server-sent event stream. `open`: the stream is held open after its events (a model that
 * streams forever) until the client goes away or the server closes. `raw`: text written as it is
 * after the events (a cut or malformed stream).
 */
export interface SseReply {
  sse: ReadonlyArray<{ event?: string; data: unknown }>;
  open?: boolean;
  raw?: string;
}

export interface FakeModelServer extends AsyncDisposable {
  /** The base URL (`http://127.0.0.1:<port>`), without a path. */
  readonly url: string;
  /** Every request so far, in order. */
  readonly requests: ModelRequest[];
  /** Queues replies, answered in order. */
  reply(...replies: ModelReply[]): void;
  /** Replies queued and not yet used. */
  readonly pending: number;
  close(): Promise<void>;
}

export async function startFakeModelServer(): Promise<FakeModelServer> {
  const requests: ModelRequest[] = [];
  const queue: ModelReply[] = [];
  const server: Server = createServer((req, res) => {
    void answer(req, res);
  });
  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: Record<string, unknown> | undefined;
    try {
      body = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      body = undefined;
    }
    const request: ModelRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      body,
    };
    requests.push(request);
    const next = queue.shift();
    if (next === undefined) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: {
            message: `fake model server: no reply queued for request ${requests.length} (${request.method} ${request.path})`,
          },
        }),
      );
      return;
    }
    const reply = typeof next === 'function' ? next(request) : next;
    if ('json' in reply) {
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply.json));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const event of reply.sse) {
      const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
      res.write(`${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${data}\n\n`);
    }
    if (reply.raw !== undefined) res.write(reply.raw);
    if (reply.open !== true) res.end();
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }));
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply: (...replies) => queue.push(...replies),
    get pending() {
      return queue.length;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
