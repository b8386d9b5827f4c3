/**
 * Credentials configured outside `auth` (extra headers, the URL's query, URL user info) never
 * show (RELIABILITY.md): a header or query canary the server echoes back appears in no error
 * message, toJSON or inspect output, and a URL with user info is refused up front.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { McpClient, McpHostError } from '../../src/index.js';
import { StreamableHttpTransport } from '../../src/http.js';
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
