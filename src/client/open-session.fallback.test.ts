/**
 * The client's fallback from Streamable HTTP to the legacy HTTP+SSE transport, against a
 * hand-written loopback server that speaks only the legacy transport at one URL (POST refused,
 * GET opens the event stream) and records every request.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import {
  sendJson,
  startHttpServer,
  type RecordedRequest,
} from '../../test/helpers/http-test-server.js';
import { MemoryStateStore } from '../state/state-store.js';
import { LegacySseTransport } from '../transport/http/legacy-sse-transport.js';
import { StreamableHttpTransport } from '../transport/http/streamable-http-transport.js';
import type { CachedEra } from './client-options.js';
import { McpClient } from './mcp-client.js';

const event = (type: string, data: unknown) =>
  `event: ${type}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

/** A legacy-only server at `/mcp`: POST answers `postStatus`, GET answers `getStatus` or streams. */
async function startLegacyServer(options: { postStatus?: number; getStatus?: number } = {}) {
  let stream: ServerResponse | undefined;
  const server = await startHttpServer((req, res) => {
    if (req.url === '/mcp' && req.method === 'POST')
      return void res.writeHead(options.postStatus ?? 405, { allow: 'GET' }).end('no POST here');
    if (req.url === '/mcp' && req.method === 'GET') {
      if (options.getStatus !== undefined) return void res.writeHead(options.getStatus).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event('endpoint', '/messages?sessionId=legacy-session-1'));
      stream = res;
      return;
    }
    if (req.url.startsWith('/messages') && req.method === 'POST') {
      res.writeHead(202).end('Accepted');
      answer(req, stream!);
      return;
    }
    res.writeHead(404).end();
  });
  const seen = (method: string, url: string) =>
    server.requests.filter((r) => r.method === method && r.url.startsWith(url)).length;
  return Object.assign(server, { seen });
}

function answer(req: RecordedRequest, stream: ServerResponse): void {
  const message = JSON.parse(req.body) as { id?: number; method: string };
  if (message.id === undefined) return;
  const results: Record<string, unknown> = {
    initialize: {
      protocolVersion: '2024-11-05',
      capabilities: { tools: {} },
      serverInfo: { name: 'legacy-sse', version: '1.0.0' },
    },
    'tools/list': { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] },
  };
  const result = results[message.method];
  stream.write(
    event(
      'message',
      result === undefined
        ? { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'no' } }
        : { jsonrpc: '2.0', id: message.id, result },
    ),
  );
}

/** A client over Streamable HTTP that remembers the fallback transport it was handed. */
function client(url: string, store?: MemoryStateStore) {
  const made: { fallbacks: LegacySseTransport[] } = { fallbacks: [] };
  const mcp = new McpClient({
    serverName: 'legacy-sse',
    ...(store === undefined ? {} : { stateStore: store, identity: 'legacy-sse#1' }),
    discoverTimeoutMs: 2_000,
    transport: () => {
      const transport = new StreamableHttpTransport({
        url,
        serverName: 'legacy-sse',
        proxy: false,
      });
      const fallback = transport.fallback.bind(transport);
      transport.fallback = () => {
        const alternative = fallback();
        made.fallbacks.push(alternative as LegacySseTransport);
        return alternative;
      };
      return transport;
    },
  });
  return Object.assign(mcp, made);
}

describe('McpClient over Streamable HTTP to a legacy HTTP+SSE server', () => {
  it('falls back to the SSE transport when discover and initialize are refused, and caches it', async () => {
    await using _guard = leakGuard();
    await using server = await startLegacyServer();
    await using store = new MemoryStateStore();
    {
      await using first = client(server.url, store);
      await first.connect();
      expect(first.era).toBe('legacy');
      expect(first.session?.version).toBe('2024-11-05');
      expect(first.fallbacks).toHaveLength(1);
      expect(first.fallbacks[0]).toBeInstanceOf(LegacySseTransport);
      expect(first.fallbacks[0]?.state).toBe('open');
      // server/discover and initialize were both refused before the GET.
      expect(server.seen('POST', '/mcp')).toBe(2);
      expect(server.seen('GET', '/mcp')).toBe(1);
      const { tools: items } = await first.listTools();
      expect(items.map((t) => t.name)).toEqual(['echo']);
      expect(await store.get<CachedEra>('era', 'legacy-sse#1')).toEqual({
        era: 'legacy',
        version: '2024-11-05',
        transport: 'sse',
      });
    }
    expect(server.seen('POST', '/mcp')).toBe(2);
    {
      // The second connect goes straight to the SSE stream: no POST to the MCP URL at all.
      await using second = client(server.url, store);
      await second.connect();
      expect(second.session?.serverInfo?.name).toBe('legacy-sse');
      expect(second.fallbacks).toHaveLength(1);
      expect(server.seen('POST', '/mcp')).toBe(2);
      expect(server.seen('GET', '/mcp')).toBe(2);
    }
  });

  it('goes back to Streamable HTTP when the cached SSE stream is refused, and forgets the fallback', async () => {
    await using _guard = leakGuard();
    // A Streamable HTTP server with no GET stream: discover is unknown, initialize answers JSON.
    await using server = await startHttpServer((req, res) => {
      if (req.method === 'GET') return void res.writeHead(405).end();
      const message = JSON.parse(req.body) as { id?: number; method: string };
      if (message.id === undefined) return void res.writeHead(202).end();
      sendJson(
        res,
        message.method === 'initialize'
          ? {
              jsonrpc: '2.0',
              id: message.id,
              result: {
                protocolVersion: '2025-06-18',
                capabilities: {},
                serverInfo: { name: 'now-streamable', version: '2.0.0' },
              },
            }
          : { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'no' } },
      );
    });
    await using store = new MemoryStateStore();
    await store.set('era', 'legacy-sse#1', {
      era: 'legacy',
      version: '2024-11-05',
      transport: 'sse',
    } satisfies CachedEra);
    await using mcp = client(server.url, store);
    await mcp.connect();
    expect(mcp.fallbacks).toHaveLength(1);
    expect(mcp.fallbacks[0]?.state).toBe('closed');
    expect(mcp.session?.serverInfo?.name).toBe('now-streamable');
    expect(server.requests[0]?.method).toBe('GET');
    expect(await store.get<CachedEra>('era', 'legacy-sse#1')).toEqual({
      era: 'legacy',
      version: '2025-06-18',
    });
  });

  it('does not fall back on 401: the credentials are the problem, not the transport', async () => {
    await using _guard = leakGuard();
    await using server = await startLegacyServer({ postStatus: 401 });
    await using mcp = client(server.url);
    await expect(mcp.connect()).rejects.toMatchObject({
      code: 'HTTP_STATUS',
      details: { status: 401 },
    });
    expect(mcp.fallbacks).toEqual([]);
    expect(server.seen('GET', '/mcp')).toBe(0);
  });

  it('reports the refused initialize when the SSE stream is refused too', async () => {
    await using _guard = leakGuard();
    await using server = await startLegacyServer({ postStatus: 404, getStatus: 404 });
    await using mcp = client(server.url);
    const error = await mcp.connect().then(
      () => undefined,
      (e: unknown) => e as { code: string; message: string; details?: { status?: number } },
    );
    expect(error?.code).toBe('HTTP_STATUS');
    expect(error?.details?.status).toBe(404);
    expect(error?.message).toMatch(/^server 'legacy-sse': /);
    expect(mcp.fallbacks).toHaveLength(1);
    expect(mcp.fallbacks[0]?.state).toBe('closed');
    expect(server.seen('GET', '/mcp')).toBe(1);
  });
});
