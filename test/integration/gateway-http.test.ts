/**
 * The gateway over Streamable HTTP (`gateway.listen()`), in process, with the official clients in
 * front (v1 `StreamableHTTPClientTransport`, v2 `@modelcontextprotocol/client` in its legacy
 * mode) and real servers behind: the reference everything server, and the SDK fixtures
 * (legacy-sdk-server.mjs for progress and cancellation, mutable-sdk-server.mjs for list_changed
 * and its `received` records, which show what reached it). The fixtures' records arrive through
 * the host's logger (their stderr); the tests wait on them, never sleep.
 */
import { createRequire } from 'node:module';
import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { McpHost, type McpHostOptions } from '../../src/index.js';
import {
  createGateway,
  createServerInputBridge,
  type GatewayListenOptions,
  type ServerInputBridge,
} from '../../src/gateway.js';
import type { Logger } from '../../src/internal/logger.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { sseEvents } from '../helpers/sse-events.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

const stdio = (name: string, script: string, ...args: string[]) => ({
  name,
  transport: { type: 'stdio' as const, command: process.execPath, args: [script, ...args] },
});

/** The fixtures' stderr lines (through the host's logger), with a wait for one. */
class StderrLines {
  readonly lines: string[] = [];
  readonly #waiters = new Set<() => void>();
  readonly logger: Logger = {
    debug: () => {},
    info: (message) => this.#push(message),
    warn: (message) => this.#push(message),
    error: (message) => this.#push(message),
  };

  #push(line: string): void {
    this.lines.push(line);
    for (const wake of this.#waiters) wake();
  }

  /** The lines of `server` that contain `text`. */
  of(server: string, text: string): string[] {
    return this.lines.filter(
      (line) => line.startsWith(`server '${server}'`) && line.includes(text),
    );
  }

  /** Resolves once `server` has written `count` lines containing `text`. */
  wait(server: string, text: string, count = 1): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.of(server, text).length < count) return;
        this.#waiters.delete(check);
        resolve();
      };
      this.#waiters.add(check);
      check();
    });
  }
}

/** A started host over `servers`, a gateway over it listening on 127.0.0.1, disposed in order. */
async function gatewayOver(
  servers: McpHostOptions['servers'],
  listen: GatewayListenOptions = {},
  hostOptions: Partial<McpHostOptions> = {},
  bridge?: ServerInputBridge,
) {
  const stderr = new StderrLines();
  const host = new McpHost({ servers, logger: stderr.logger, ...hostOptions });
  await host.start();
  const gateway = createGateway({ host, ...(bridge === undefined ? {} : { bridge }) });
  const listener = await gateway.listen(listen);
  const token = listener.bearerToken;
  const auth: Record<string, string> =
    token === undefined ? {} : { authorization: `Bearer ${token}` };
  const clients: Array<{ close(): Promise<void> }> = [];
  return {
    host,
    gateway,
    listener,
    stderr,
    auth,
    /** The v1 SDK client, connected to `path` (default `/mcp`). */
    async v1(path = '/mcp', headers: Record<string, string> = {}) {
      const client = new Client({ name: 'gateway-http-test', version: '1.0.0' });
      const url = new URL(path, listener.url);
      await client.connect(
        new StreamableHTTPClientTransport(url, {
          requestInit: { headers: { ...auth, ...headers } },
        }),
      );
      clients.push(client);
      return client;
    },
    /** Raw `fetch` to the listener, with the token unless `headers` says otherwise. */
    fetch(path: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
      return fetch(new URL(path, listener.url), {
        ...init,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...auth,
          ...init.headers,
        },
      });
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

const initialize = (id = 1, capabilities: object = {}) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities,
      clientInfo: { name: 'raw', version: '1' },
    },
  });

const callTarget = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'mcp__mutable__target', arguments: { text: 'refused?' } },
});

describe('the gateway over Streamable HTTP, with the official clients', () => {
  it('serves the v1 SDK client: tools, resources, prompts of the everything server', async () => {
    await using _guard = leakGuard();
    await using g = await gatewayOver([stdio('everything', everything, 'stdio')]);
    expect(g.listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await g.v1();
    expect(client.getServerVersion()).toMatchObject({ name: 'mcp-host' });

    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('mcp__everything__echo');
    const echoed = await client.callTool({
      name: 'mcp__everything__echo',
      arguments: { message: 'over http' },
    });
    expect(text(echoed)).toContain('over http');
    await expect(client.callTool({ name: 'mcp__everything__nope', arguments: {} })).rejects.toThrow(
      /Unknown tool/,
    );

    const { resources } = await client.listResources();
    const doc = resources.find((r) => r.uri.endsWith('/architecture.md'));
    expect(doc).toBeDefined();
    const read = await client.readResource({ uri: doc!.uri });
    expect(read.contents[0]).toMatchObject({ uri: doc!.uri });
    const prompt = await client.getPrompt({
      name: 'mcp__everything__args-prompt',
      arguments: { city: 'Oslo' },
    });
    expect(JSON.stringify(prompt.messages)).toContain('Oslo');
    expect(g.listener.sessionCount).toBe(1);
  });

  it('passes progress, cancellation and list_changed (on the GET stream) to and from the backends', async () => {
    await using _guard = leakGuard();
    await using g = await gatewayOver([
      stdio('legacy', mcpFixtures.legacySdk),
      stdio('mutable', mcpFixtures.mutableSdk),
    ]);
    const client = await g.v1();
    let changed!: () => void;
    const announced = new Promise<void>((resolve) => (changed = resolve));
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
      changed();
    });
    const before = (await client.listTools()).tools.map((tool) => tool.name);
    expect(before).not.toContain('mcp__mutable__fresh');

    // Progress from the backend reaches the client (on the POST's SSE answer).
    const progress: number[] = [];
    const stepped = await client.callTool(
      { name: 'mcp__legacy__progress', arguments: { steps: 3 } },
      undefined,
      { onprogress: (p) => void progress.push(p.progress) },
    );
    expect(stepped.isError).not.toBe(true);
    expect(progress).toHaveLength(3);

    // Cancelling reaches the backend.
    const controller = new AbortController();
    const sleeping = client.callTool(
      { name: 'mcp__legacy__sleep', arguments: { ms: 60_000 } },
      undefined,
      { signal: controller.signal },
    );
    await g.stderr.wait('legacy', '"event":"sleeping"');
    controller.abort(new Error('no longer needed'));
    await expect(sleeping).rejects.toThrow();
    await g.stderr.wait('legacy', '"event":"cancelled"');
    expect(changes).toBe(0);

    // A backend's list changes: list_changed reaches the client's GET stream.
    await client.callTool({ name: 'mcp__mutable__mutate', arguments: { kind: 'newTool' } });
    await announced;
    const after = (await client.listTools()).tools.map((tool) => tool.name);
    expect(after).toContain('mcp__mutable__fresh');
    expect(changes).toBe(1);
  });

  it('closing the HTTP request of a session-less (2026-07-28) call cancels it on the backend', async () => {
    await using _guard = leakGuard();
    await using g = await gatewayOver([stdio('legacy', mcpFixtures.legacySdk)]);
    const sleep = (id: number, meta: object | undefined) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: {
          name: 'mcp__legacy__sleep',
          arguments: { ms: 60_000 },
          ...(meta === undefined ? {} : { _meta: meta }),
        },
      });
    // A session-less legacy request: the legacy gateway session refuses work before initialize.
    const refused = await g.fetch('/mcp', { method: 'POST', body: sleep(1, undefined) });
    expect(((await refused.json()) as { error?: { code: number } }).error?.code).toBe(-32600);

    const controller = new AbortController();
    const call = g.fetch('/mcp', {
      method: 'POST',
      signal: controller.signal,
      headers: {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'mcp__legacy__sleep',
      },
      body: sleep(2, {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      }),
    });
    await g.stderr.wait('legacy', '"event":"sleeping"');
    controller.abort();
    await expect(call).rejects.toThrow();
    await g.stderr.wait('legacy', '"event":"cancelled"');
  });

  it("a legacy session's call runs on when its POST stream drops; GET + Last-Event-ID resumes it with the answer", async () => {
    await using _guard = leakGuard();
    // The backend's elicitation goes to the client whose call it is (the bridge).
    const bridge = createServerInputBridge();
    await using g = await gatewayOver(
      [{ ...stdio('legacy', mcpFixtures.legacySdk), client: { handlers: bridge.handlers } }],
      {},
      {},
      bridge,
    );
    const opened = await g.fetch('/mcp', {
      method: 'POST',
      body: initialize(1, { elicitation: { form: {} } }),
    });
    const session = { 'mcp-session-id': opened.headers.get('mcp-session-id')! };
    await opened.text();
    const notified = await g.fetch('/mcp', {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(notified.status).toBe(202);

    // The call asks the client (elicitation) on its stream: it waits for the answer.
    const controller = new AbortController();
    const call = await g.fetch('/mcp', {
      method: 'POST',
      headers: session,
      signal: controller.signal,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'mcp__legacy__ask', arguments: { question: 'Your name?' } },
      }),
    });
    expect(call.headers.get('content-type')).toBe('text/event-stream');
    const events = sseEvents(call);
    const primed = (await events.next()).value!;
    expect(primed).toMatchObject({ data: '', retryMs: 1000 });
    const asked = (await events.next()).value!;
    const question = JSON.parse(asked.data) as { id: number; method: string };
    expect(question, asked.data).toMatchObject({ method: 'elicitation/create' });
    // The stream drops (the client's network, say): not a cancellation.
    controller.abort();
    await events.return(undefined);

    const answered = await g.fetch('/mcp', {
      method: 'POST',
      headers: session,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: question.id,
        result: { action: 'accept', content: { name: 'Ada' } },
      }),
    });
    expect(answered.status).toBe(202);
    const resumed = await g.fetch('/mcp', {
      method: 'GET',
      headers: { ...session, accept: 'text/event-stream', 'last-event-id': asked.id! },
    });
    expect(resumed.status).toBe(200);
    const rest = [];
    for await (const event of sseEvents(resumed)) rest.push(JSON.parse(event.data) as unknown);
    // The answer, after the client came back (replayed or live); then the stream ends.
    expect(rest).toHaveLength(1);
    expect(rest[0]).toMatchObject({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text' }] },
    });
    expect(rest[0]).not.toHaveProperty('result.isError', true);
    expect(JSON.stringify(rest[0])).toContain('Ada');

    // An id the session never gave is 400, and the session goes on.
    const unknown = await g.fetch('/mcp', {
      method: 'GET',
      headers: { ...session, accept: 'text/event-stream', 'last-event-id': '999-1' },
    });
    expect(unknown.status).toBe(400);
    await unknown.text();
    expect(g.listener.sessionCount).toBe(1);

    // A client's notifications/cancelled cancels a call, and its POST stream ends.
    const second = await g.fetch('/mcp', {
      method: 'POST',
      headers: session,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'mcp__legacy__sleep', arguments: { ms: 60_000 } },
      }),
    });
    await g.stderr.wait('legacy', '"event":"sleeping"');
    const cancel = await g.fetch('/mcp', {
      method: 'POST',
      headers: session,
      body: JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 3, reason: 'changed my mind' },
      }),
    });
    expect(cancel.status).toBe(202);
    await g.stderr.wait('legacy', '"event":"cancelled"');
    const ended = [];
    for await (const event of sseEvents(second)) ended.push(event.data);
    expect(ended).toEqual(['']);
  });

  it("the v1 SDK client resumes a POST stream that dropped after its priming event, with the call's result", async () => {
    await using _guard = leakGuard();
    await using g = await gatewayOver([stdio('legacy', mcpFixtures.legacySdk)]);
    const seen: string[] = [];
    // Cuts the first tools/call stream after its first chunk (the priming event).
    const cutting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const headers = new Headers(init?.headers);
      seen.push(`${init?.method ?? 'GET'} ${headers.get('last-event-id') ?? ''}`.trim());
      const body = typeof init?.body === 'string' ? init.body : '';
      if (!body.includes('"tools/call"') || seen.includes('cut')) return response;
      if (!response.headers.get('content-type')?.includes('text/event-stream')) return response;
      seen.push('cut');
      const reader = response.body!.getReader();
      const first = await reader.read();
      await reader.cancel();
      return new Response(
        new ReadableStream({
          start(controller) {
            if (first.value !== undefined) controller.enqueue(first.value);
            controller.close();
          },
        }),
        { status: response.status, headers: response.headers },
      );
    };
    const client = new Client({ name: 'gateway-http-resume', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(g.listener.url), {
        requestInit: { headers: g.auth },
        fetch: cutting,
      }),
    );
    try {
      const result = await client.callTool({ name: 'mcp__legacy__sleep', arguments: { ms: 100 } });
      expect(text(result)).toBe('slept 100');
      expect(seen).toContain('cut');
      // It came back with a GET naming the priming event it had.
      expect(seen.some((line) => /^GET \d+-\d+$/.test(line))).toBe(true);
      expect(g.stderr.of('legacy', '"event":"cancelled"')).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('serves the v2 client (@modelcontextprotocol/client, legacy mode): lists, calls, progress, cancel, list_changed', async () => {
    await using _guard = leakGuard();
    await using g = await gatewayOver([
      stdio('legacy', mcpFixtures.legacySdk),
      stdio('everything', everything, 'stdio'),
      stdio('mutable', mcpFixtures.mutableSdk),
    ]);
    const client = new ClientV2({ name: 'gateway-http-v2', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransportV2(new URL(g.listener.url), {
        requestInit: { headers: g.auth },
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('mcp__legacy__echo');
      const echoed = await client.callTool({
        name: 'mcp__legacy__echo',
        arguments: { message: 'from v2' },
      });
      expect(text(echoed)).toBe('from v2');
      const { resources } = await client.listResources();
      expect(resources.length).toBeGreaterThan(0);
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toContain('mcp__everything__simple-prompt');

      const progress: number[] = [];
      const stepped = await client.callTool(
        { name: 'mcp__legacy__progress', arguments: { steps: 2 } },
        { onprogress: (p) => void progress.push(p.progress) },
      );
      expect(stepped.isError).not.toBe(true);
      expect(progress).toHaveLength(2);

      const controller = new AbortController();
      const sleeping = client.callTool(
        { name: 'mcp__legacy__sleep', arguments: { ms: 60_000 } },
        { signal: controller.signal },
      );
      await g.stderr.wait('legacy', '"event":"sleeping"');
      controller.abort(new Error('no longer needed'));
      await expect(sleeping).rejects.toThrow();
      await g.stderr.wait('legacy', '"event":"cancelled"');

      const announced = new Promise<void>((resolve) =>
        client.setNotificationHandler('notifications/tools/list_changed', () => resolve()),
      );
      await client.callTool({ name: 'mcp__mutable__mutate', arguments: { kind: 'newTool' } });
      await announced;
      const after = (await client.listTools()).tools.map((tool) => tool.name);
      expect(after).toContain('mcp__mutable__fresh');
    } finally {
      await client.close();
    }
  });
});

describe('the gateway over HTTP refuses, and nothing reaches a backend', () => {
  it('no token, a wrong token, a foreign Origin, a bad Host, an oversized body, an unknown session', async () => {
    await using _guard = leakGuard();
    await using g = await gatewayOver([stdio('mutable', mcpFixtures.mutableSdk)], {
      maxBodyBytes: 64 * 1024,
    });
    await g.stderr.wait('mutable', 'ready');
    const opened = await g.fetch('/mcp', { method: 'POST', body: initialize() });
    const session = opened.headers.get('mcp-session-id')!;
    expect(session).toMatch(/^[\x21-\x7e]{32,}$/);
    await opened.text();
    const post = (headers: Record<string, string>, body = callTarget) =>
      g.fetch('/mcp', { method: 'POST', headers: { 'mcp-session-id': session, ...headers }, body });

    const noToken = await fetch(g.listener.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mcp-session-id': session },
      body: callTarget,
    });
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await post({ authorization: 'Bearer not-the-token-at-all' })).status).toBe(401);
    expect((await post({ authorization: 'Basic abc' })).status).toBe(401);
    expect((await post({ origin: 'http://evil.example' })).status).toBe(403);
    expect((await post({ origin: `http://localhost:${g.listener.port}` })).status).toBe(200);
    expect((await post({ 'mcp-session-id': 'no-such-session' })).status).toBe(404);
    expect((await post({ 'mcp-protocol-version': '1999-01-01' })).status).toBe(400);
    expect((await post({}, `[${Array(40).fill(callTarget).join(',')}]`)).status).toBe(400);
    expect((await post({}, `[${callTarget},${callTarget}]`)).status).toBe(400);
    expect((await post({ 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post({}, '{"not": "json-rpc"}')).status).toBe(400);
    expect((await post({}, '{ nope')).status).toBe(400);
    expect(await rawStatus(g.listener.port, { host: `evil.example:${g.listener.port}` })).toBe(403);
    expect(
      await rawStatus(g.listener.port, {
        authorization: g.auth.authorization!,
        'content-length': String(10 * 1024 * 1024),
        'mcp-session-id': session,
      }),
    ).toBe(413);

    // Only the one allowed call (the localhost Origin) reached the backend.
    const calls = () => g.stderr.of('mutable', '"method":"tools/call"');
    expect(calls()).toHaveLength(1);

    // DELETE ends the session: it is unknown from then on.
    expect(
      (await g.fetch('/mcp', { method: 'DELETE', headers: { 'mcp-session-id': session } })).status,
    ).toBe(200);
    expect((await post({})).status).toBe(404);
    expect(calls()).toHaveLength(1);
  });

  it('too many sessions: 503, too many streams: 409; the sessions open keep working', async () => {
    await using _guard = leakGuard();
    await using g = await gatewayOver([stdio('mutable', mcpFixtures.mutableSdk)], {
      maxSessions: 2,
    });
    const first = await g.v1();
    await g.v1();
    const third = await g.fetch('/mcp', { method: 'POST', body: initialize() });
    expect(third.status).toBe(503);
    expect(third.headers.get('retry-after')).not.toBeNull();
    await third.text();
    const target = await first.callTool({
      name: 'mcp__mutable__target',
      arguments: { text: 'ok' },
    });
    expect(text(target)).toContain('ok');
    expect(g.stderr.of('mutable', '"method":"tools/call"')).toHaveLength(1);
    const metrics = await (await g.fetch('/metrics')).text();
    expect(metrics).toContain('mcp_host_gateway_sessions 2\n');

    // The v1 client holds its session's one GET stream: a second is refused.
    const { sessionId } = first.transport as StreamableHTTPClientTransport;
    const stream = await g.fetch('/mcp', {
      method: 'GET',
      headers: { 'mcp-session-id': sessionId!, accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(409);
    await stream.text();
  });

  it('an idle session expires (sessionIdleMs); a session-less ping is answered', async () => {
    await using _guard = leakGuard();
    await using g = await gatewayOver([], { sessionIdleMs: 50, auth: 'none' });
    expect(g.listener.bearerToken).toBeUndefined();
    const ended = new Promise<string>((resolve) => g.listener.onSessionEnd(resolve));
    const opened = await g.fetch('/mcp', { method: 'POST', body: initialize() });
    const session = opened.headers.get('mcp-session-id')!;
    await opened.text();
    expect(await ended).toBe(session);
    expect(g.listener.sessionCount).toBe(0);
    const after = await g.fetch('/mcp', {
      method: 'POST',
      headers: { 'mcp-session-id': session },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
    });
    expect(after.status).toBe(404);
    await after.text();
    const ping = await g.fetch('/mcp', {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }),
    });
    expect(ping.status).toBe(200);
    expect(await ping.json()).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });
});

describe('a legacy call whose stream dropped, never resumed', () => {
  it('runs to its end, keeping its session until then; the idle expiry then frees the session', async () => {
    await using _guard = leakGuard();
    await using g = await gatewayOver([stdio('legacy', mcpFixtures.legacySdk)], {
      sessionIdleMs: 100,
    });
    const opened = await g.fetch('/mcp', { method: 'POST', body: initialize() });
    const session = opened.headers.get('mcp-session-id')!;
    await opened.text();
    const ended = new Promise<string>((resolve) => g.listener.onSessionEnd(resolve));
    const controller = new AbortController();
    const call = await g.fetch('/mcp', {
      method: 'POST',
      signal: controller.signal,
      headers: { 'mcp-session-id': session },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'mcp__legacy__sleep', arguments: { ms: 500 } },
      }),
    });
    const events = sseEvents(call);
    expect((await events.next()).value).toMatchObject({ data: '' });
    controller.abort();
    await events.return(undefined);
    // The call outlives sessionIdleMs several times over: the session ends only after it did,
    // and it ended well (not cancelled by the drop, nor by the session's end).
    expect(await ended).toBe(session);
    expect(g.host.metrics().total).toMatchObject({ calls: 1, ok: 1, cancelled: 0 });
    expect(g.stderr.of('legacy', '"event":"cancelled"')).toEqual([]);
    expect(g.listener.sessionCount).toBe(0);
  });
});

describe('views by path and header, and /metrics', () => {
  it('/mcp/<view> and Mcp-Host-View serve a named view; an unknown or unoffered one is 404', async () => {
    await using _guard = leakGuard();
    await using g = await gatewayOver(
      [stdio('legacy', mcpFixtures.legacySdk), stdio('mutable', mcpFixtures.mutableSdk)],
      { views: ['small'] },
      {
        views: { small: { servers: ['mutable'] }, hidden: { servers: ['legacy'] } },
      },
    );
    const all = (await (await g.v1()).listTools()).tools.map((tool) => tool.name);
    expect(all).toContain('mcp__legacy__echo');
    expect(all).toContain('mcp__mutable__target');
    for (const client of [
      await g.v1('/mcp/small'),
      await g.v1('/mcp', { 'mcp-host-view': 'small' }),
    ]) {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names.length).toBeGreaterThan(0);
      expect(names.every((name) => name.startsWith('mcp__mutable__'))).toBe(true);
    }
    for (const path of ['/mcp/nope', '/mcp/hidden', '/elsewhere']) {
      const refused = await g.fetch(path, { method: 'POST', body: initialize() });
      expect(refused.status).toBe(404);
      await refused.text();
    }
  });

  it('GET /metrics: the host’s and the gateway’s metrics in the Prometheus text format', async () => {
    await using _guard = leakGuard();
    await using g = await gatewayOver([stdio('legacy', mcpFixtures.legacySdk)]);
    const client = await g.v1();
    await client.callTool({ name: 'mcp__legacy__echo', arguments: { message: 'counted' } });
    expect((await fetch(new URL('/metrics', g.listener.url))).status).toBe(401);
    const metrics = await g.fetch('/metrics');
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const body = await metrics.text();
    expect(body).toContain('# TYPE mcp_host_tool_calls_total counter');
    expect(body).toContain('mcp_host_tool_calls_total{server="legacy",outcome="ok"} 1');
    expect(body).toContain('mcp_host_server_up{server="legacy",state="ready"} 1');
    expect(body).toContain('mcp_host_gateway_sessions 1');
    expect(body).toMatch(/mcp_host_gateway_http_requests_total\{status="200"\} \d+/);
    expect(body).toMatch(/mcp_host_gateway_http_requests_total\{status="401"\} 1/);

    // gateway.close() ends its listeners: the port is closed, the session gone.
    await g.gateway.close();
    expect(g.listener.sessionCount).toBe(0);
    await expect(fetch(g.listener.url, { method: 'POST', headers: g.auth })).rejects.toThrow();
    await expect(g.gateway.listen()).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
  });
});

/** The status of a raw POST whose headers say what `headers` say (the body is never sent). */
function rawStatus(port: number, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method: 'POST',
      headers: { 'content-type': 'application/json', host: `127.0.0.1:${port}`, ...headers },
    });
    req.once('response', (res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      req.destroy();
    });
    req.once('error', reject);
    req.flushHeaders();
  });
}
