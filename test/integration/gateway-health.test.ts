/**
 * The gateway's HTTP listener in a fleet: `GET /healthz` for a load balancer's checks (no token,
 * nothing revealed, 503 once closing) and the replica id on every response (`mcp-host-replica`)
 * and in `/metrics`. In process, over a host with the legacy SDK fixture behind it.
 */
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { McpHost } from '../../src/index.js';
import { createGateway, type GatewayOptions } from '../../src/gateway.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';

async function gatewayOver(options: Partial<GatewayOptions> = {}) {
  const host = new McpHost({
    servers: [
      {
        name: 'legacy',
        transport: { type: 'stdio', command: process.execPath, args: [mcpFixtures.legacySdk] },
      },
    ],
  });
  await host.start();
  const gateway = createGateway({ host, ...options });
  const listener = await gateway.listen();
  return {
    gateway,
    listener,
    async [Symbol.asyncDispose]() {
      await gateway.close();
      await host.close();
    },
  };
}

describe('the gateway in a fleet', () => {
  it('answers GET /healthz 200 "ok" without the token, revealing nothing else', async () => {
    await using _guard = leakGuard();
    await using g = await gatewayOver({ replicaId: 'replica-a' });
    const url = new URL('/healthz', g.listener.url);
    // No token, no Host or Origin a browser would send: a load balancer's probe.
    const health = await fetch(url);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('ok\n');
    expect(health.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(health.headers.get('cache-control')).toBe('no-store');
    expect(health.headers.get('mcp-host-replica')).toBe('replica-a');
    expect((await fetch(url, { method: 'HEAD' })).status).toBe(200);
    const post = await fetch(url, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    // Everything else still needs the token.
    expect((await fetch(new URL('/metrics', g.listener.url))).status).toBe(401);
    expect((await fetch(new URL('/healthz/x', g.listener.url))).status).toBe(401);
  });

  it('names the replica on every response and in /metrics; --replica-id is checked', async () => {
    await using _guard = leakGuard();
    await using g = await gatewayOver({ replicaId: 'eu-west-1:pod-7' });
    const token = { authorization: `Bearer ${g.listener.bearerToken}` };
    const unauthorized = await fetch(g.listener.url, { method: 'POST', body: '{}' });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('mcp-host-replica')).toBe('eu-west-1:pod-7');
    const answered = await fetch(g.listener.url, {
      method: 'POST',
      headers: {
        ...token,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(answered.headers.get('mcp-host-replica')).toBe('eu-west-1:pod-7');
    await answered.arrayBuffer();
    const metrics = await fetch(new URL('/metrics', g.listener.url), { headers: token });
    expect(metrics.headers.get('mcp-host-replica')).toBe('eu-west-1:pod-7');
    expect(await metrics.text()).toContain(
      'mcp_host_gateway_replica_info{replica="eu-west-1:pod-7"} 1\n',
    );
    expect(g.gateway.replicaId).toBe('eu-west-1:pod-7');

    const host = new McpHost();
    await using _host = host;
    expect(createGateway({ host }).replicaId).toBe(
      `${hostname().replace(/[^A-Za-z0-9._:-]/g, '-')}-${process.pid}`,
    );
    for (const bad of ['', 'a b', 'x'.repeat(129), 'new\nline'])
      expect(() => createGateway({ host, replicaId: bad })).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
  });
});
