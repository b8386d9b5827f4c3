/**
 * A scripted legacy-era MCP server over Streamable HTTP on 127.0.0.1 port 0, for fault tests.
 * By default it plays a well-behaved server: `server/discover` gets a JSON-RPC -32601 error (so era
 * detection falls back to legacy), `initialize` answers 2025-11-25 with a session id,
 * notifications and responses get 202, a GET without `Last-Event-ID` gets 405 (no GET stream),
 * `tools/list` lists one tool and `tools/call` answers with one text block. A test overrides any
 * JSON-RPC method (or every POST, or the GET) with a handler that misbehaves. Every request is
 * recorded, and every server-side socket is counted, so a test can prove none stays open.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface ScriptedRequest {
  /** The HTTP method. */
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The JSON-RPC message of a POST, when it parsed as one. */
  rpc: { method?: string; id?: string | number; params?: Record<string, unknown> } | undefined;
}

export type ScriptedHandler = (
  request: ScriptedRequest,
  res: ServerResponse,
  req: IncomingMessage,
) => void | Promise<void>;

export interface ScriptedServerOptions {
  /** Handlers for POSTs of these JSON-RPC methods, instead of the script. */
  methods?: Record<string, ScriptedHandler>;
  /** Sees every request first: true when it answered it (a 401, say), false to go on. */
  guard?: (request: ScriptedRequest, res: ServerResponse) => boolean;
  /** A handler for every POST (before `methods` and the script). */
  everyPost?: ScriptedHandler;
  /** A handler for GET requests (default: 405). */
  get?: ScriptedHandler;
  /** The session id `initialize` hands out; `false` for none (default `sess-scripted-…`). */
  sessionId?: string | false;
  /** The protocol version `initialize` answers (default 2025-11-25). */
  protocolVersion?: '2025-06-18' | '2025-11-25';
}

export interface ScriptedMcpServer extends AsyncDisposable {
  readonly url: string;
  readonly origin: string;
  readonly requests: readonly ScriptedRequest[];
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** Server-side sockets open now. */
  readonly openSockets: number;
  /** POSTs that carried this JSON-RPC method. */
  attempts(rpcMethod: string): number;
  /** The first request, seen so far or to come, that `matches` (on the request event, no polling). */
  requestSeen(matches: (request: ScriptedRequest) => boolean): Promise<ScriptedRequest>;
  /** Resolves once no server-side socket is open; rejects after `timeoutMs` with the count. */
  allSocketsClosed(timeoutMs?: number): Promise<void>;
}

export const TOOL_NAME = 'work';

export async function startScriptedMcpServer(
  options: ScriptedServerOptions = {},
): Promise<ScriptedMcpServer> {
  const requests: ScriptedRequest[] = [];
  const sockets = new Set<Socket>();
  const drained = new Set<() => void>();
  const watchers = new Set<(request: ScriptedRequest) => void>();
  let connections = 0;
  const sessionId =
    options.sessionId === false
      ? undefined
      : (options.sessionId ?? `sess-scripted-${Math.random().toString(36).slice(2)}`);

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const recorded: ScriptedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        rpc: req.method === 'POST' ? parseRpc(body) : undefined,
      };
      requests.push(recorded);
      for (const watch of [...watchers]) watch(recorded);
      if (options.guard?.(recorded, res) === true) return;
      const handler = pick(recorded);
      void Promise.resolve(handler(recorded, res, req)).catch((error: unknown) => {
        res.destroy(error as Error);
      });
    });
  });

  function pick(request: ScriptedRequest): ScriptedHandler {
    if (request.method === 'GET') return options.get ?? refuseGet;
    if (request.method === 'DELETE') return (_r, res) => void res.writeHead(204).end();
    if (request.method !== 'POST') return (_r, res) => void res.writeHead(405).end();
    if (options.everyPost !== undefined) return options.everyPost;
    const method = request.rpc?.method;
    const override = method === undefined ? undefined : options.methods?.[method];
    return override ?? script;
  }

  function script(request: ScriptedRequest, res: ServerResponse): void {
    const rpc = request.rpc;
    if (rpc === undefined) return void res.writeHead(400).end('not JSON-RPC');
    // Notifications and responses to our requests.
    if (rpc.id === undefined || rpc.method === undefined) return void res.writeHead(202).end();
    const reply = (value: Record<string, unknown>, headers: Record<string, string> = {}): void =>
      void res
        .writeHead(200, { 'content-type': 'application/json', ...headers })
        .end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, ...value }));
    switch (rpc.method) {
      case 'initialize':
        return reply(
          {
            result: {
              protocolVersion: options.protocolVersion ?? '2025-11-25',
              capabilities: { tools: {} },
              serverInfo: { name: 'scripted', version: '1.0.0' },
            },
          },
          sessionId === undefined ? {} : { 'mcp-session-id': sessionId },
        );
      case 'tools/list':
        return reply({
          result: { tools: [{ name: TOOL_NAME, inputSchema: { type: 'object' } }] },
        });
      case 'tools/call':
        return reply({ result: { content: [{ type: 'text', text: 'done' }] } });
      case 'ping':
        return reply({ result: {} });
      default:
        return reply({ error: { code: -32601, message: `Method not found: ${rpc.method}` } });
    }
  }

  server.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) for (const wake of drained) wake();
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
    get connections() {
      return connections;
    },
    get openSockets() {
      return sockets.size;
    },
    attempts(rpcMethod) {
      return requests.filter((r) => r.method === 'POST' && r.rpc?.method === rpcMethod).length;
    },
    requestSeen(matches) {
      const seen = requests.find(matches);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise<ScriptedRequest>((resolve) => {
        const watch = (request: ScriptedRequest): void => {
          if (!matches(request)) return;
          watchers.delete(watch);
          resolve(request);
        };
        watchers.add(watch);
      });
    },
    allSocketsClosed(timeoutMs = 2_000) {
      if (sockets.size === 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const done = (): void => {
          clearTimeout(timer);
          drained.delete(done);
          resolve();
        };
        const timer = setTimeout(() => {
          drained.delete(done);
          reject(
            new Error(`${sockets.size} server-side socket(s) still open after ${timeoutMs} ms`),
          );
        }, timeoutMs);
        drained.add(done);
      });
    },
    async [Symbol.asyncDispose]() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function refuseGet(_request: ScriptedRequest, res: ServerResponse): void {
  res.writeHead(405).end();
}

function parseRpc(body: string): ScriptedRequest['rpc'] {
  try {
    const value: unknown = JSON.parse(body);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    return value;
  } catch {
    return undefined;
  }
}

/** Formats one SSE event, with an optional id. */
export function sseEvent(data: unknown, id?: string): string {
  const lines = id === undefined ? [] : [`id: ${id}`];
  lines.push(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}`);
  return `${lines.join('\n')}\n\n`;
}

/**
 * Writes `totalBytes` of `chunk` repeated (the last one cut), honouring backpressure, and stops
 * when the client goes away. Resolves with the bytes handed to the socket.
 */
export async function streamBytes(
  res: ServerResponse,
  totalBytes: number,
  chunk: Buffer,
): Promise<number> {
  let written = 0;
  while (written < totalBytes && !res.destroyed) {
    const piece =
      totalBytes - written >= chunk.length ? chunk : chunk.subarray(0, totalBytes - written);
    written += piece.length;
    if (!res.write(piece)) {
      const goOn = await new Promise<boolean>((resolve) => {
        const onDrain = (): void => finish(true);
        const onClose = (): void => finish(false);
        function finish(value: boolean): void {
          res.off('drain', onDrain);
          res.off('close', onClose);
          resolve(value);
        }
        res.on('drain', onDrain);
        res.on('close', onClose);
      });
      if (!goOn) break;
    }
  }
  if (!res.destroyed) res.end();
  return written;
}

/** Writes one byte of `text` every `intervalMs` until the client goes away. */
export function trickle(res: ServerResponse, text: string, intervalMs: number): void {
  let index = 0;
  const next = (): void => {
    if (res.destroyed) return;
    res.write(text[index % text.length] ?? ' ');
    index++;
  };
  next();
  const timer = setInterval(next, intervalMs);
  res.once('close', () => clearInterval(timer));
}
