import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import { silentLogger } from '../../internal/logger.js';
import { GatewayListener, type GatewayEndpoint } from './gateway-listener.js';

const endpoint: GatewayEndpoint = {
  serve: () => Promise.resolve(),
  hasView: () => false,
  toolHeaderParams: () => undefined,
  metrics: () => ({ servers: {}, tools: {} }) as unknown as ReturnType<GatewayEndpoint['metrics']>,
  status: () => [],
  replicaId: 'replica-z',
  logger: silentLogger,
};

/** A request as the server hands it over, and a response that records what it is sent. */
function exchange(method: string, url: string) {
  const req = Object.assign(new EventEmitter(), { method, url, headers: {} });
  const sent: { status?: number; headers: Record<string, unknown>; body?: string } = {
    headers: {},
  };
  const res = Object.assign(new EventEmitter(), {
    statusCode: 200,
    headersSent: false,
    setHeader: (name: string, value: string) => void (sent.headers[name] = value),
    writeHead(status: number, headers: Record<string, string>) {
      sent.status = status;
      Object.assign(sent.headers, headers);
    },
    end: (body?: string) => void (sent.body = body ?? ''),
  });
  return { req: req as unknown as IncomingMessage, res: res as unknown as ServerResponse, sent };
}

describe('GatewayListener: /healthz', () => {
  it('answers 200 ok while serving and 503 once closing, without the token, naming the replica', async () => {
    await using _guard = leakGuard();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const listener = new GatewayListener(server, endpoint, {}, 'a-token-of-16-chars-or-more');
    await using _listener = listener;
    const serving = exchange('GET', '/healthz');
    server.emit('request', serving.req, serving.res);
    expect(serving.sent).toMatchObject({
      status: 200,
      body: 'ok\n',
      headers: { 'mcp-host-replica': 'replica-z', 'cache-control': 'no-store' },
    });
    await listener.close();
    // A request that still reaches it (on a connection open while it closes).
    const closing = exchange('GET', '/healthz');
    server.emit('request', closing.req, closing.res);
    expect(closing.sent).toMatchObject({
      status: 503,
      body: 'closing\n',
      headers: { 'mcp-host-replica': 'replica-z', connection: 'close' },
    });
    const head = exchange('HEAD', '/healthz');
    server.emit('request', head.req, head.res);
    expect(head.sent).toMatchObject({ status: 503, body: '' });
  });
});
