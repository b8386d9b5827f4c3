/**
 * What counts as a refusal of the era probe: a server that goes away during it is started once
 * more only when it refused the probe by going (a closed network connection, or a process whose
 * last words name the probe); and over HTTP, a probe whose response stream closes unanswered
 * means legacy on the same transport.
 */
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { sendJson, startHttpServer } from '../../test/helpers/http-test-server.js';
import { McpHostError, ProcessExitedError } from '../errors/mcp-host-error.js';
import { StreamableHttpTransport } from '../transport/http/streamable-http-transport.js';
import { McpClient } from './mcp-client.js';
import { refusedByExiting } from './open-session.js';

const exited = (stderrTail: string) =>
  new ProcessExitedError('process exited with code 1', {
    serverName: 'probe',
    exitCode: 1,
    signal: null,
    stderrTail,
  });

describe('refusedByExiting', () => {
  it.each([
    // rmcp's serve() ends with ExpectedInitializeRequest, printed by `main` as a Debug value.
    'Error: ExpectedInitializeRequest(Some(Request(JsonRpcRequest { jsonrpc: JsonRpcVersion2_0, id: Number(1), request: CustomRequest(CustomRequest { method: "server/discover", params: None }) })))',
    'Error: ExpectedInitializeRequest(None)',
    'ERROR serving error: expect initialized request, but received: Some(Request(..))',
    'fatal: expected an initialize request first',
    '[crash at=1] server/discover is not a method this server knows',
  ])('true for a process that names the probe or initialize as it exits: %s', (tail) => {
    expect(refusedByExiting(exited(tail))).toBe(true);
  });

  it.each([
    'fatal: no API key in the environment (set WIDGETS_API_KEY)',
    'RuntimeError: failed to initialize the database',
    'Error: Cannot find module "./server.js"',
    '',
  ])('false for a process that crashed on its own: %s', (tail) => {
    expect(refusedByExiting(exited(tail))).toBe(false);
  });

  it('true for a network connection the server closed (nothing is started again)', () => {
    expect(refusedByExiting(new McpHostError('CONNECTION_CLOSED', 'the connection closed'))).toBe(
      true,
    );
  });
});

describe('the era probe over Streamable HTTP', () => {
  it('a probe whose response stream closes unanswered means legacy: initialize follows', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer((req, res) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const message = JSON.parse(req.body) as { id?: number; method: string };
      if (message.id === undefined) return void res.writeHead(202).end();
      // The probe: an event stream that ends at once, with no event and no id to resume from.
      if (message.method === 'server/discover')
        return void res.writeHead(200, { 'content-type': 'text/event-stream' }).end();
      sendJson(res, {
        jsonrpc: '2.0',
        id: message.id,
        result: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          serverInfo: { name: 'closes-the-probe', version: '1.0.0' },
        },
      });
    });
    await using client = new McpClient({
      serverName: 'closes-the-probe',
      transport: () =>
        new StreamableHttpTransport({
          url: server.url,
          serverName: 'closes-the-probe',
          proxy: false,
        }),
    });
    await client.connect();
    expect(client.era).toBe('legacy');
    expect(client.session?.serverInfo?.name).toBe('closes-the-probe');
    await server.requestsSeen(3); // notifications/initialized is sent without waiting
    expect(server.requests.map((r) => (JSON.parse(r.body) as { method: string }).method)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
    ]);
  });
});
