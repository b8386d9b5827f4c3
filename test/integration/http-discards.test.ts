/**
 * Over Streamable HTTP, what the client throws away is counted in `McpClient.stats` and reported
 * through `onDiscarded`, and a broken SSE event or JSON body that names a pending request fails
 * that request at once (INVALID_MESSAGE with a redacted preview) instead of at its timeout. A
 * broken event that names no request is only counted and reported. Against the scripted loopback
 * server of test/helpers/scripted-mcp-http-server.ts, legacy era.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { McpClient, McpHostError, type DiscardEvent } from '../../src/index.js';
import { StreamableHttpTransport } from '../../src/http.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { within } from '../helpers/mcp-fixtures.js';
import {
  startScriptedMcpServer,
  TOOL_NAME,
  type ScriptedMcpServer,
  type ScriptedRequest,
} from '../helpers/scripted-mcp-http-server.js';
import { rejectionOf, reportTiming, timed } from '../helpers/timing.js';

/** A generous bound for "at once", far below the client's 30 s request timeout below. */
const AT_ONCE_MS = 3000;

function httpClient(server: ScriptedMcpServer): McpClient {
  return new McpClient({
    serverName: 'http-broken',
    requestTimeoutMs: 30_000,
    transport: () =>
      new StreamableHttpTransport({ serverName: 'http-broken', url: server.url, proxy: false }),
  });
}

/** Answers a POST with an SSE stream that sends `events` (raw `data` lines) and stays open. */
function streamEvents(...events: ((request: ScriptedRequest) => string)[]) {
  return (request: ScriptedRequest, res: ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const data of events) res.write(`data: ${data(request)}\n\n`);
  };
}

const idOf = (request: ScriptedRequest): string => JSON.stringify(request.rpc?.id);

describe('Streamable HTTP: a broken response', () => {
  it('in an SSE event, naming the pending request, fails it at once with a redacted preview', async () => {
    await using _guard = leakGuard();
    const token = `ghp_${'a1B2'.repeat(9)}`; // a GitHub token: masked without registration
    await using server = await startScriptedMcpServer({
      methods: {
        'tools/call': streamEvents(
          (r) => `{"jsonrpc":"2.0","id":${idOf(r)},"result":{"t":"${token}","content":[{"ty`,
        ),
      },
    });
    await using client = httpClient(server);
    const events: DiscardEvent[] = [];
    client.onDiscarded((event) => events.push(event));
    await client.connect();

    const { ms, ...outcome } = await within(
      timed(client.callTool(TOOL_NAME, {})),
      AT_ONCE_MS,
      'failure',
    );
    reportTiming('broken SSE event with a pending id to its failure', ms);
    expect(outcome.ok).toBe(false);
    const error = (outcome as { error: unknown }).error as McpHostError;
    expect(error).toBeInstanceOf(McpHostError);
    const callId = server.requests.find((r) => r.rpc?.method === 'tools/call')?.rpc?.id;
    expect(error).toMatchObject({
      code: 'INVALID_MESSAGE',
      serverName: 'http-broken',
      requestId: callId,
    });
    expect(error.message).toContain(`SSE event data (a response to request ${String(callId)})`);
    expect(error.message).not.toContain(token);
    expect(JSON.stringify(error)).not.toContain(token);
    expect(events).toEqual([{ kind: 'junk', error }]);
    expect(client.stats.junkMessages).toBe(1);

    // Later calls are unaffected.
    await expect(client.ping()).resolves.toBeUndefined();
  });

  it('in an SSE event that names no request is only counted and reported; the real answer arrives', async () => {
    await using _guard = leakGuard();
    await using server = await startScriptedMcpServer({
      methods: {
        'tools/call': streamEvents(
          () => '{"jsonrpc":"2.0","result":{"content":[{"ty',
          (r) =>
            `{"jsonrpc":"2.0","id":${idOf(r)},"result":{"content":[{"type":"text","text":"ok"}]}}`,
        ),
      },
    });
    await using client = httpClient(server);
    const events: DiscardEvent[] = [];
    client.onDiscarded((event) => events.push(event));
    await client.connect();

    await expect(client.callTool(TOOL_NAME, {})).resolves.toMatchObject({
      content: [{ text: 'ok' }],
    });
    expect(client.stats.junkMessages).toBe(1);
    expect(events.map((e) => e.kind)).toEqual(['junk']);
    expect(events[0]!.error).toMatchObject({ code: 'INVALID_MESSAGE', requestId: undefined });
    expect(events[0]!.error.message).toContain('SSE event data is not JSON');
  });

  it('as a JSON body fails its request at once, and is counted', async () => {
    await using _guard = leakGuard();
    await using server = await startScriptedMcpServer({
      methods: {
        'tools/call': (request, res) =>
          void res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(`{"jsonrpc":"2.0","id":${idOf(request)},"result":{"content":[{"ty`),
      },
    });
    await using client = httpClient(server);
    await client.connect();
    const { error } = await within(
      rejectionOf(client.callTool(TOOL_NAME, {})),
      AT_ONCE_MS,
      'failure',
    );
    expect(error).toMatchObject({ code: 'INVALID_MESSAGE' });
    expect((error as McpHostError).message).toContain('response body is not JSON');
    expect(client.stats.junkMessages).toBe(1);
  });
});
