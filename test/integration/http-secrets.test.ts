/**
 * Credentials configured outside `auth` (extra headers, the URL's query, URL user info) never
 * show (RELIABILITY.md): a header or query canary the server echoes back appears in no error
 * message, toJSON or inspect output, and a URL with user info is refused up front. Every header
 * value counts as a secret, whatever the header's name, unless it describes the request or is
 * named in `publicHeaders`, through `McpClient` and `McpHost` alike.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { McpClient, McpHost, McpHostError } from '../../src/index.js';
import { StreamableHttpTransport } from '../../src/http.js';
import { capturingLogger } from '../helpers/fixture-server.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { startScriptedMcpServer, TOOL_NAME } from '../helpers/scripted-mcp-http-server.js';

function whereLeaked(error: unknown, secret: string): string[] {
  expect(error).toBeInstanceOf(McpHostError);
  const e = error as McpHostError;
  return [
    e.message.includes(secret) ? 'message' : '',
    JSON.stringify(e).includes(secret) ? 'toJSON' : '',
    inspect(e, { depth: 10 }).includes(secret) ? 'inspect' : '',
  ].filter((where) => where !== '');
}

describe('credentials configured outside auth', () => {
  it('an API key in `headers`, echoed in a 500 body, is masked', async () => {
    await using _guard = leakGuard();
    const canary = 'hdr-canary-6b1f0e2d9c';
    await using server = await startScriptedMcpServer({
      methods: {
        'tools/call': (req, res) =>
          void res.writeHead(500).end(`invalid key ${String(req.headers['x-api-key'])}`),
      },
    });
    await using client = new McpClient({
      serverName: 'faulty',
      transport: () =>
        new StreamableHttpTransport({ url: server.url, headers: { 'x-api-key': canary } }),
    });
    await client.connect();
    const error = await client.callTool(TOOL_NAME, {}).catch((e: unknown) => e);
    expect(server.requests.at(-1)?.headers['x-api-key']).toBe(canary);
    expect(whereLeaked(error, canary)).toEqual([]);
  });

  it('an api_key in the URL query, echoed in a 500 body, is masked', async () => {
    await using _guard = leakGuard();
    const canary = 'qry-canary-0a9b8c7d6e';
    await using server = await startScriptedMcpServer({
      methods: {
        'tools/call': (req, res) =>
          void res
            .writeHead(500)
            .end(`bad key ${String(new URL(req.url, 'http://x').searchParams.get('api_key'))}`),
      },
    });
    await using client = new McpClient({
      serverName: 'faulty',
      transport: () => new StreamableHttpTransport({ url: `${server.url}?api_key=${canary}` }),
    });
    await client.connect();
    const error = await client.callTool(TOOL_NAME, {}).catch((e: unknown) => e);
    expect(whereLeaked(error, canary)).toEqual([]);
  });

  it('any header is secret unless named in publicHeaders: McpClient and McpHost', async () => {
    await using _guard = leakGuard();
    const canary = 'tenant-canary-3e7d1c0b5a';
    const open = 'label-public-9f2a4c6e1d';
    await using server = await startScriptedMcpServer({
      methods: {
        'tools/call': (req, res) =>
          void res
            .writeHead(500)
            .end(
              `tenant ${String(req.headers['x-tenant'])} unknown (client ${String(req.headers['x-client-label'])})`,
            ),
      },
    });
    const transport = {
      type: 'http' as const,
      url: server.url,
      headers: { 'X-Tenant': canary, 'X-Client-Label': open },
      publicHeaders: ['x-client-label'],
    };
    const logger = capturingLogger();
    await using client = new McpClient({ serverName: 'tenant', transport, logger });
    await client.connect();
    const error = await client.callTool(TOOL_NAME, {}).catch((e: unknown) => e);
    expect(server.requests.at(-1)?.headers['x-tenant']).toBe(canary);
    expect(whereLeaked(error, canary)).toEqual([]);
    // The public header's value is not masked: the checks above can fail.
    expect(whereLeaked(error, open)).toEqual(['message', 'toJSON', 'inspect']);

    await using host = new McpHost({
      servers: [{ name: 'tenant', transport }],
      restart: { enabled: false },
      pins: false,
      logger,
    });
    await host.start();
    const hostError = await host.callTool(`mcp__tenant__${TOOL_NAME}`, {}).catch((e: unknown) => e);
    expect(whereLeaked(hostError, canary)).toEqual([]);
    expect(whereLeaked(hostError, open)).toEqual(['message', 'toJSON', 'inspect']);
    await host.close();
    expect(logger.text()).not.toContain(canary);
  });

  it('a URL with user info is refused up front with INVALID_ARGUMENT', async () => {
    await using _guard = leakGuard();
    await using server = await startScriptedMcpServer();
    const url = server.url.replace('http://', 'http://alice:pw-canary-1234@');
    expect(() => new StreamableHttpTransport({ url })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(server.requests).toEqual([]);
  });
});
