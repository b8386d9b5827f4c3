/**
 * The network settings Node users expect of an HTTP client: `HTTP_PROXY` / `HTTPS_PROXY` with
 * `NO_PROXY`, an explicit `proxy` option (or `false` to ignore the environment), and extra
 * trusted certificates (`ca`) for a server with a private certificate. A loopback CONNECT proxy
 * records where it was asked to tunnel; a loopback HTTPS server uses the test certificate in
 * test/fixtures/tls.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type Socket } from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { McpHostError } from '../../src/index.js';
import { type TransportProblem } from '../../src/index.js';
import { StreamableHttpTransport, type StreamableHttpTransportOptions } from '../../src/http.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { sendJson, startHttpServer } from '../helpers/http-test-server.js';

const tlsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/tls');
const cert = readFileSync(path.join(tlsDir, 'localhost-cert.pem'), 'utf8');
const key = readFileSync(path.join(tlsDir, 'localhost-key.pem'), 'utf8');

/** A CONNECT-only forward proxy on loopback that records each tunnel's target. */
async function startProxy() {
  const targets: string[] = [];
  const sockets = new Set<Socket>();
  const server = createHttpServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    targets.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.once('close', () => sockets.delete(socket));
    }
    upstream.once('close', () => client.destroy());
    client.once('close', () => upstream.destroy());
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    targets,
    async [Symbol.asyncDispose]() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Runs `body` with environment variables set, restoring them afterwards. */
async function withEnv<T>(env: Record<string, string>, body: () => Promise<T>): Promise<T> {
  const names = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];
  const saved = new Map(names.map((name) => [name, process.env[name]]));
  for (const name of names) delete process.env[name];
  Object.assign(process.env, env);
  try {
    return await body();
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** Sends one request over a fresh transport; resolves with its answer or its problem. */
async function roundTrip(
  options: StreamableHttpTransportOptions,
): Promise<{ message?: unknown; problem?: McpHostError }> {
  const transport = new StreamableHttpTransport({ openGetStream: false, ...options });
  try {
    await transport.start();
    const outcome = new Promise<{ message?: unknown; problem?: McpHostError }>((resolve) => {
      transport.onMessage((message) => resolve({ message }));
      transport.onProblem((problem: TransportProblem) => resolve({ problem: problem.error }));
    });
    transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    return await outcome;
  } finally {
    await transport.close();
  }
}

const pong = { jsonrpc: '2.0', id: 1, result: {} };

describe('proxies', () => {
  it('tunnels through HTTP_PROXY, and not for a host in NO_PROXY', async () => {
    await using _guard = leakGuard();
    await using proxy = await startProxy();
    await using server = await startHttpServer((_request, res) => sendJson(res, pong));
    const target = new URL(server.url).host;

    const proxied = await withEnv({ HTTP_PROXY: proxy.url }, () => roundTrip({ url: server.url }));
    expect(proxied.message).toEqual(pong);
    expect(proxy.targets).toEqual([target]);

    const direct = await withEnv({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' }, () =>
      roundTrip({ url: server.url }),
    );
    expect(direct.message).toEqual(pong);
    expect(proxy.targets).toEqual([target]);
    expect(server.requests).toHaveLength(2);
  });

  it('uses an explicit proxy, and ignores the environment with proxy: false', async () => {
    await using _guard = leakGuard();
    await using proxy = await startProxy();
    await using server = await startHttpServer((_request, res) => sendJson(res, pong));

    const explicit = await withEnv({}, () => roundTrip({ url: server.url, proxy: proxy.url }));
    expect(explicit.message).toEqual(pong);
    expect(proxy.targets).toHaveLength(1);

    const ignored = await withEnv({ HTTP_PROXY: proxy.url }, () =>
      roundTrip({ url: server.url, proxy: false }),
    );
    expect(ignored.message).toEqual(pong);
    expect(proxy.targets).toHaveLength(1);
  });

  it('fails with CONNECT_FAILED, naming the server, when the proxy is down', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((_request, res) => sendJson(res, pong));
    const closed = await startProxy();
    const deadProxy = closed.url;
    await closed[Symbol.asyncDispose]();
    const started = Date.now();
    const outcome = await roundTrip({ url: server.url, proxy: deadProxy, serverName: 'behind' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(outcome.problem?.code).toMatch(/^(CONNECT_FAILED|HTTP_REQUEST_FAILED)$/);
    expect(outcome.problem?.message).toContain("server 'behind'");
    expect(server.requests).toHaveLength(0);
  });
});

describe('extra trusted certificates', () => {
  it('refuses a private certificate by default and accepts it with ca', async () => {
    await using _guard = leakGuard();
    const sockets = new Set<Socket>();
    const server = createHttpsServer({ cert, key }, (req, res) => {
      req.resume();
      req.on('end', () => sendJson(res, pong));
    });
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    server.on('tlsClientError', () => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const url = `https://127.0.0.1:${address.port}/mcp`;
    try {
      const refused = await withEnv({}, () => roundTrip({ url, serverName: 'private' }));
      expect(refused.problem?.code).toBe('CONNECT_FAILED');
      expect(refused.problem?.message).toContain("server 'private'");

      const trusted = await withEnv({}, () => roundTrip({ url, ca: cert }));
      expect(trusted.message).toEqual(pong);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
