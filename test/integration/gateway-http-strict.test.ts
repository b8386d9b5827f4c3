/**
 * The gateway's 2026-07-28 rules over HTTP, held strictly (`gateway.listen()`, in process): the
 * request envelope (SEP-2575), the `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` headers checked
 * against the body (SEP-2243), the era's HTTP statuses, the methods the era removed, a backend's
 * -32021 passed on, and answers sent without a `requestState`. Raw `fetch` for what a refusal
 * looks like, the official v2 client (2026-07-28) to prove a well-behaved client passes them all,
 * the v1 client to prove legacy traffic is untouched. Behind: test/fixtures/mcp/conformance-backend.mjs
 * (a dual-era server on the official v2 SDK, with an `x-mcp-header` tool). What reached the
 * backend is read from the host's call metrics.
 */
import { fileURLToPath } from 'node:url';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { McpHost } from '../../src/index.js';
import { createGateway } from '../../src/gateway.js';
import { leakGuard } from '../helpers/leak-guard.js';

const backend = fileURLToPath(new URL('../fixtures/mcp/conformance-backend.mjs', import.meta.url));
const VERSION = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'strict-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const HEADER_TOOL = 'mcp__conformance__test_custom_headers';

/** A host over the conformance backend, a gateway over it listening on 127.0.0.1, disposed in order. */
async function strictGateway() {
  const host = new McpHost({
    servers: [
      {
        name: 'conformance',
        transport: { type: 'stdio', command: process.execPath, args: [backend] },
      },
    ],
  });
  await host.start();
  const gateway = createGateway({ host });
  const listener = await gateway.listen({ auth: 'none' });
  const clients: Array<{ close(): Promise<void> }> = [];
  return {
    host,
    listener,
    /** Calls that reached the host (and so the backend) so far. */
    calls: () => host.metrics().total.calls,
    /**
     * POSTs one request: the era's headers derived from it (`MCP-Protocol-Version`, `Mcp-Method`,
     * `Mcp-Name`) unless `headers` overrides or drops (`undefined`) them.
     */
    async post(
      method: string,
      params: Record<string, unknown> | undefined,
      headers: Record<string, string | undefined> = {},
      id: number | string = 7,
    ) {
      const name = params?.name ?? params?.uri;
      const all: Record<string, string | undefined> = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': VERSION,
        'mcp-method': method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
        ...headers,
      };
      const sent = Object.fromEntries(
        Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined),
      );
      const response = await fetch(listener.url, {
        method: 'POST',
        headers: sent,
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      });
      const body = (await response.json()) as {
        id: unknown;
        result?: Record<string, unknown>;
        error?: { code: number; message: string; data?: unknown };
      };
      return { status: response.status, body };
    },
    async v2() {
      const client = new ClientV2(
        { name: 'strict-test', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: VERSION } } },
      );
      await client.connect(new StreamableHTTPClientTransportV2(new URL(listener.url)));
      clients.push(client);
      return client;
    },
    async v1() {
      const client = new Client({ name: 'strict-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
      clients.push(client);
      return client;
    },
    async [Symbol.asyncDispose]() {
      await Promise.allSettled(clients.map((client) => client.close()));
      await gateway.close();
      await host.close();
    },
  };
}

const text = (result: object): string =>
  (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[])
    .map((block) => (block.type === 'text' ? (block.text ?? '') : ''))
    .join('');

describe('the 2026-07-28 request headers (SEP-2243) over HTTP', () => {
  it('refuses a Mcp-Method or Mcp-Name that is missing or does not match the body: 400, -32020, the request id; nothing reaches the backend', async () => {
    await using _guard = leakGuard();
    await using g = await strictGateway();
    const call = { name: HEADER_TOOL, arguments: { region: 'eu' }, _meta: META };
    const refusals = [
      await g.post('tools/list', { _meta: META }, { 'mcp-method': 'prompts/list' }),
      await g.post('tools/list', { _meta: META }, { 'mcp-method': undefined }),
      await g.post('tools/list', { _meta: META }, { 'mcp-method': 'TOOLS/LIST' }),
      await g.post('tools/call', call, { 'mcp-name': 'mcp__conformance__other' }),
      await g.post('tools/call', call, { 'mcp-name': undefined }),
      await g.post('tools/call', call, { 'mcp-param-region': 'us' }),
      await g.post('tools/call', call, { 'mcp-param-region': undefined }),
      await g.post('tools/call', call, { 'mcp-param-region': '=?base64?ZXU?=' }),
      await g.post('tools/call', call, { 'mcp-param-region': '=?base64?ZX!!?=' }),
      await g.post(
        'resources/read',
        { uri: 'test://static-text', _meta: META },
        { 'mcp-name': 'test://other' },
      ),
    ];
    for (const { status, body } of refusals) {
      expect(status).toBe(400);
      expect(body.id).toBe(7);
      expect(body.error?.code).toBe(-32020);
    }
    expect(g.calls()).toBe(0);
  });

  it('takes header names in any case, values without surrounding whitespace and in base64 form', async () => {
    await using _guard = leakGuard();
    await using g = await strictGateway();
    const listed = await g.post(
      'tools/list',
      { _meta: META },
      { 'mcp-method': undefined, 'MCP-METHOD': ' tools/list ' },
    );
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body.result?.tools)).toContain(HEADER_TOOL);
    const called = await g.post(
      'tools/call',
      { name: HEADER_TOOL, arguments: { region: 'eu' }, _meta: META },
      { 'mcp-name': `  ${HEADER_TOOL} `, 'mcp-param-region': '=?base64?ZXU=?=' },
    );
    expect(called.status).toBe(200);
    expect(text(called.body.result!)).toBe('region=eu');
    expect(g.calls()).toBe(1);
  });

  it('passes the official v2 client (2026-07-28) and the v1 client untouched', async () => {
    await using _guard = leakGuard();
    await using g = await strictGateway();
    const modern = await g.v2();
    expect(modern.getProtocolEra()).toBe('modern');
    expect((await modern.listTools()).tools.map((tool) => tool.name)).toContain(HEADER_TOOL);
    expect(
      text(await modern.callTool({ name: HEADER_TOOL, arguments: { region: 'ap south' } })),
    ).toBe('region=ap south');
    const read = await modern.readResource({ uri: 'test://static-text' });
    expect(read.contents.length).toBe(1);
    const legacy = await g.v1();
    expect(text(await legacy.callTool({ name: HEADER_TOOL, arguments: { region: 'eu' } }))).toBe(
      'region=eu',
    );
    expect(g.calls()).toBe(2);
  });
});

describe('the 2026-07-28 envelope and statuses over HTTP (SEP-2575)', () => {
  it('refuses a modern request without its envelope (400, -32602), an unsupported version (400, -32022), a header that disagrees with the body (400, -32020)', async () => {
    await using _guard = leakGuard();
    await using g = await strictGateway();
    const noMeta = await g.post('server/discover', {}, {}, 'a');
    expect(noMeta).toMatchObject({ status: 400, body: { id: 'a', error: { code: -32602 } } });
    const noCapabilities = await g.post('server/discover', {
      _meta: { 'io.modelcontextprotocol/protocolVersion': VERSION },
    });
    expect(noCapabilities).toMatchObject({ status: 400, body: { error: { code: -32602 } } });
    const noVersion = await g.post('tools/list', {
      _meta: { 'io.modelcontextprotocol/clientCapabilities': {} },
    });
    expect(noVersion).toMatchObject({ status: 400, body: { error: { code: -32602 } } });
    const future = { ...META, 'io.modelcontextprotocol/protocolVersion': 'v999' };
    const unsupported = await g.post(
      'server/discover',
      { _meta: future },
      { 'mcp-protocol-version': 'v999' },
    );
    expect(unsupported).toMatchObject({
      status: 400,
      body: { id: 7, error: { code: -32022, data: { requested: 'v999' } } },
    });
    expect((unsupported.body.error?.data as { supported: string[] }).supported).toContain(VERSION);
    const disagreeing = await g.post('server/discover', { _meta: future });
    expect(disagreeing).toMatchObject({ status: 400, body: { error: { code: -32020 } } });
    const headerless = await g.post(
      'server/discover',
      { _meta: META },
      { 'mcp-protocol-version': undefined },
    );
    expect(headerless).toMatchObject({ status: 400, body: { error: { code: -32020 } } });
    const served = await g.post('server/discover', { _meta: META });
    expect(served.status).toBe(200);
    expect(served.body.result?.supportedVersions).toContain(VERSION);
  });

  it('answers the methods the era removed, and unknown ones, with 404 and -32601; legacy ping still works', async () => {
    await using _guard = leakGuard();
    await using g = await strictGateway();
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'x/y']) {
      const { status, body } = await g.post(method, { _meta: META }, {}, 500);
      expect({ method, status, code: body.error?.code, id: body.id }).toEqual({
        method,
        status: 404,
        code: -32601,
        id: 500,
      });
    }
    expect(g.listener.sessionCount).toBe(0);
    // A session-less legacy ping (no envelope, no modern header) is answered as before.
    const ping = await g.post('ping', undefined, {
      'mcp-protocol-version': undefined,
      'mcp-method': undefined,
    });
    expect(ping).toMatchObject({ status: 200, body: { id: 7, result: {} } });
  });

  it("passes a backend's -32021 on as a JSON-RPC error with 400, and answers sent without a requestState to the backend", async () => {
    await using _guard = leakGuard();
    await using g = await strictGateway();
    const missing = await g.post('tools/call', {
      name: 'mcp__conformance__test_missing_capability',
      arguments: {},
      _meta: META,
    });
    expect(missing).toMatchObject({
      status: 400,
      body: { id: 7, error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } } },
    });
    const answered = await g.post('tools/call', {
      name: 'mcp__conformance__test_input_required_result_elicitation',
      arguments: {},
      inputResponses: {
        user_name: { action: 'accept', content: { name: 'Alice' } },
        unrelated: { action: 'accept', content: { x: 1 } },
      },
      _meta: META,
    });
    expect(answered.status).toBe(200);
    expect(answered.body.result).toMatchObject({ resultType: 'complete' });
    expect(text(answered.body.result!)).toBe('Hello, Alice!');
  });
});

describe('input rounds of prompts/get through the gateway', () => {
  const PROMPT = 'mcp__conformance__test_input_required_result_prompt';
  const ASKING = {
    ...META,
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  };

  it('gives a modern client the round as input_required, and its retry the prompt; the state is for that prompt only', async () => {
    await using _guard = leakGuard();
    await using g = await strictGateway();
    const first = await g.post('prompts/get', { name: PROMPT, _meta: ASKING });
    expect(first.status).toBe(200);
    const round = first.body.result as {
      resultType: string;
      inputRequests: Record<string, { method: string; params: { message: string } }>;
      requestState: string;
    };
    expect(round.resultType).toBe('input_required');
    const [key, asked] = Object.entries(round.inputRequests)[0]!;
    expect(asked).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'What context should the prompt use?' },
    });

    const retry = await g.post('prompts/get', {
      name: PROMPT,
      inputResponses: { [key]: { action: 'accept', content: { context: 'the tests' } } },
      requestState: round.requestState,
      _meta: ASKING,
    });
    expect(retry.status).toBe(200);
    expect(retry.body.result).toMatchObject({ resultType: 'complete', ttlMs: 0 });
    expect(JSON.stringify(retry.body.result?.messages)).toContain('Context: the tests');

    // A requestState belongs to its request: used on another one, it is refused (and spent).
    const again = (await g.post('prompts/get', { name: PROMPT, _meta: ASKING })).body.result!;
    const misused = await g.post(
      'tools/call',
      {
        name: HEADER_TOOL,
        arguments: { region: 'eu' },
        inputResponses: {},
        requestState: again.requestState,
        _meta: META,
      },
      { 'mcp-param-region': 'eu' },
    );
    expect(misused.body.error?.code).toBe(-32602);
    expect(g.calls()).toBe(0);
  });

  it('asks a legacy client live (elicitation/create), and gets the prompt built from its answer', async () => {
    await using _guard = leakGuard();
    await using g = await strictGateway();
    const client = new Client(
      { name: 'strict-test', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return Promise.resolve({ action: 'accept', content: { context: 'live' } });
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(g.listener.url)));
    try {
      const prompt = await client.getPrompt({ name: PROMPT });
      expect(JSON.stringify(prompt.messages)).toContain('Context: live');
      expect(asked).toEqual([
        expect.objectContaining({ message: 'What context should the prompt use?' }),
      ]);
    } finally {
      await client.close();
    }
  });
});

describe('legacy answers', () => {
  it("carry none of a modern backend's 2026-07-28 fields (resultType, ttlMs, cacheScope, its serverInfo)", async () => {
    await using _guard = leakGuard();
    await using g = await strictGateway();
    expect(g.host.status()[0]).toMatchObject({ era: 'modern' });
    // JSON answers (a 2025-11-25 session answers a POST that accepts SSE with a primed stream).
    const legacy = {
      'mcp-protocol-version': '2025-11-25',
      'mcp-method': undefined,
      accept: 'application/json',
    };
    const init = await fetch(g.listener.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const inSession = { ...legacy, 'mcp-session-id': session };
    const answers = [
      await g.post(
        'tools/call',
        { name: 'mcp__conformance__test_simple_text', arguments: {} },
        inSession,
      ),
      await g.post('prompts/get', { name: 'mcp__conformance__test_simple_prompt' }, inSession),
      await g.post('resources/read', { uri: 'test://static-text' }, inSession),
    ];
    for (const { status, body } of answers) {
      expect(status).toBe(200);
      expect(body.result).toBeDefined();
      for (const field of ['resultType', 'ttlMs', 'cacheScope'])
        expect(body.result).not.toHaveProperty(field);
      expect(JSON.stringify(body.result)).not.toContain('io.modelcontextprotocol/serverInfo');
    }
    // The same requests in the modern era carry them, with the gateway's serverInfo.
    const modern = await g.post('prompts/get', {
      name: 'mcp__conformance__test_simple_prompt',
      _meta: META,
    });
    expect(modern.body.result).toMatchObject({
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'mcp-host' } },
    });
  });
});
