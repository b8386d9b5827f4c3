/**
 * The gRPC management API (`mcp-host/grpc`) driven by a grpc-js client, over a host with real
 * servers: the SDK-built legacy fixture (records what it is sent: `sleeping`, `cancelled`) and the
 * official server-everything (progress). One API listens on a loopback port with a token and
 * permits stdio registration; another listens on a Unix socket without a token and does not.
 * Every RPC, refusal without the token, an unpermitted stdio registration, CallTool progress and
 * cancellation (client cancel and deadline) reaching the server, WatchEvents and a slow consumer
 * cut off, health over both listeners, and canary secrets absent from responses and logs.
 */
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { connect as connectHttp2 } from 'node:http2';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  credentials,
  Metadata,
  status,
  type Client,
  type ClientReadableStream,
  type ServiceClientConstructor,
  type ServiceError,
} from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApiServer,
  ERROR_CODE_METADATA,
  fromStruct,
  loadApiPackage,
  toStruct,
  type ApiAuditRecord,
  type ApiServer,
  type Struct,
} from '../../src/grpc.js';
import { McpHost, type HostServerDefinition, type Logger } from '../../src/index.js';
import { leakGuard, type LeakGuard } from '../helpers/leak-guard.js';
import { MemoryTokenStore } from '../helpers/memory-token-store.js';
import { consent } from '../helpers/oauth-fixture.js';
import { startProtectedMcpServer } from '../helpers/protected-mcp-server.js';
import {
  fixtureTransport,
  mcpFixtures,
  within,
  type FixtureProcess,
} from '../helpers/mcp-fixtures.js';
import { tempDir, type TempDir } from '../helpers/scratch.js';

const require = createRequire(import.meta.url);
const everythingScript = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

const EVENT_MS = 15_000;
const NO_ARGUMENTS = { type: 'object' } as const;
const TOKEN = `api-token-${randomBytes(12).toString('hex')}`;
const CANARY_ENV = `canary-env-${randomBytes(12).toString('hex')}`;
const CANARY_HEADER = `canary-header-${randomBytes(12).toString('hex')}`;

interface Packages {
  mcp_host: { v1: { McpHostService: ServiceClientConstructor } };
  grpc: { health: { v1: { Health: ServiceClientConstructor } } };
}

type Unary = (
  request: unknown,
  metadata: Metadata,
  options: { deadline?: number },
  callback: (error: ServiceError | null, response?: unknown) => void,
) => void;

/** What every response carried, to look for canaries in. */
const responses: unknown[] = [];
const logLines: string[] = [];
const audits: ApiAuditRecord[] = [];
const logger: Logger = {
  debug: (message, fields) => void logLines.push(JSON.stringify({ message, fields })),
  info: (message, fields) => void logLines.push(JSON.stringify({ message, fields })),
  warn: (message, fields) => void logLines.push(JSON.stringify({ message, fields })),
  error: (message, fields) => void logLines.push(JSON.stringify({ message, fields })),
};

function bearer(token = TOKEN): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

/** Calls a unary RPC; resolves with the response, or rejects with the ServiceError. */
function rpc<T = Record<string, unknown>>(
  client: Client,
  method: string,
  request: unknown = {},
  metadata: Metadata = bearer(),
  deadlineMs = EVENT_MS,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const call = (client as unknown as Record<string, Unary>)[method]!.bind(client);
    call(request, metadata, { deadline: Date.now() + deadlineMs }, (error, response) => {
      if (error !== null) reject(error);
      else {
        responses.push(response);
        resolve(response as T);
      }
    });
  });
}

async function refusal(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeDefined();
  return error as ServiceError;
}

/** Reads a server stream to its end: its messages, and the error it ended with (if any). */
function readAll(
  stream: ClientReadableStream<unknown>,
): Promise<{ messages: Record<string, unknown>[]; error: ServiceError | undefined }> {
  const messages: Record<string, unknown>[] = [];
  return new Promise((resolve) => {
    stream.on('data', (message: Record<string, unknown>) => {
      responses.push(message);
      messages.push(message);
    });
    stream.on('error', (error: ServiceError) => resolve({ messages, error }));
    stream.on('end', () => resolve({ messages, error: undefined }));
  });
}

function stream(
  client: Client,
  method: string,
  request: unknown,
  metadata = bearer(),
  deadlineMs?: number,
): ClientReadableStream<unknown> {
  const open = (
    client as unknown as Record<
      string,
      (r: unknown, m: Metadata, o: object) => ClientReadableStream<unknown>
    >
  )[method]!.bind(client);
  return open(
    request,
    metadata,
    deadlineMs === undefined ? {} : { deadline: Date.now() + deadlineMs },
  );
}

let guard: LeakGuard;
let dir: TempDir;
let host: McpHost;
let legacyProcesses: readonly FixtureProcess[];
let tcpApi: ApiServer;
let socketApi: ApiServer;
let slowApi: ApiServer;
let tcp: Client;
let socket: Client;
let slow: Client;
let tcpHealth: Client;
let socketHealth: Client;
let socketPath: string;
let slowAddress: string;
const slowLogLines: string[] = [];

beforeAll(async () => {
  guard = leakGuard();
  dir = tempDir();
  const legacy = fixtureTransport('legacy', mcpFixtures.legacySdk);
  legacyProcesses = legacy.processes;
  const everything: HostServerDefinition = {
    name: 'everything',
    transport: { type: 'stdio', command: process.execPath, args: [everythingScript, 'stdio'] },
  };
  host = new McpHost({
    health: { intervalMs: 0 },
    servers: [{ name: 'legacy', transport: legacy.transport }, everything],
  });
  // (The schema is a named constant: a literal here would join the schema test's scraped corpus.)
  host.registerTool({ name: 'noop', inputSchema: NO_ARGUMENTS, run: () => 'ok' });
  // Every server process the host starts (restarts, registrations) belongs to this guard.
  host.onServerStatus((s) => {
    if (s.pid !== undefined) guard.trackPid(s.pid);
  });
  await host.start();
  for (const s of host.status()) if (s.pid !== undefined) guard.trackPid(s.pid);

  tcpApi = createApiServer({
    host,
    token: TOKEN,
    allowStdioRegistration: true,
    logger,
    onAudit: (record) => audits.push(record),
  });
  const tcpAddress = await tcpApi.listen({ port: 0 });
  socketApi = createApiServer({ host, logger, onAudit: (record) => audits.push(record) });
  socketPath = join(dir.path, 'api.sock');
  const socketAddress = await socketApi.listen({ socket: socketPath });
  slowApi = createApiServer({
    host,
    token: TOKEN,
    maxEventBuffer: 8,
    logger: { ...logger, warn: (message) => void slowLogLines.push(message) },
  });
  slowAddress = (await slowApi.listen({ port: 0 })).address;

  const packages = loadApiPackage() as unknown as Packages;
  const { McpHostService } = packages.mcp_host.v1;
  const { Health } = packages.grpc.health.v1;
  const insecure = credentials.createInsecure();
  tcp = new McpHostService(tcpAddress.address, insecure);
  socket = new McpHostService(socketAddress.address, insecure);
  slow = new McpHostService(slowAddress, insecure);
  tcpHealth = new Health(tcpAddress.address, insecure);
  socketHealth = new Health(socketAddress.address, insecure);
}, 60_000);

afterAll(async () => {
  for (const client of [tcp, socket, slow, tcpHealth, socketHealth]) client?.close();
  await Promise.all([tcpApi?.close(), socketApi?.close(), slowApi?.close()]);
  await host?.close();
  await guard?.[Symbol.asyncDispose]();
  dir?.[Symbol.dispose]();
}, 30_000);

describe('the gRPC management API', () => {
  it('answers health SERVING over the port and the socket, without a token', async () => {
    const empty = new Metadata();
    for (const client of [tcpHealth, socketHealth]) {
      expect(await rpc(client, 'Check', {}, empty)).toEqual({ status: 'SERVING' });
      expect(await rpc(client, 'Check', { service: 'mcp_host.v1.McpHostService' }, empty)).toEqual({
        status: 'SERVING',
      });
      const unknown = await refusal(rpc(client, 'Check', { service: 'nope.Nope' }, empty));
      expect(unknown.code).toBe(status.NOT_FOUND);
    }
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
  });

  it('refuses every other RPC without the right token (UNAUTHENTICATED)', async () => {
    for (const metadata of [new Metadata(), bearer('not-the-token-at-all-0000')]) {
      const error = await refusal(rpc(tcp, 'ListMcpServers', {}, metadata));
      expect(error.code).toBe(status.UNAUTHENTICATED);
      expect(error.details).toMatch(/missing or wrong API token/);
    }
    const called = await readAll(stream(tcp, 'CallTool', { name: 'noop' }, new Metadata()));
    expect(called.error?.code).toBe(status.UNAUTHENTICATED);
    const watched = await readAll(stream(tcp, 'WatchEvents', {}, new Metadata()));
    expect(watched.error?.code).toBe(status.UNAUTHENTICATED);
    await expect(
      refusal(
        rpc(
          tcp,
          'RegisterMcpServer',
          { name: 'x', remote: { kind: 'REMOTE_KIND_HTTP', url: 'http://127.0.0.1:1/mcp' } },
          new Metadata(),
        ),
      ),
    ).resolves.toMatchObject({ code: status.UNAUTHENTICATED });
    expect(host.status().map((s) => s.name)).not.toContain('x');
  });

  it('lists the servers, their status and their tools', async () => {
    const { servers } = await rpc<{ servers: Array<Record<string, unknown>> }>(
      tcp,
      'ListMcpServers',
    );
    expect(servers.map((s) => [s.name, s.state])).toEqual([
      ['legacy', 'SERVER_STATE_READY'],
      ['everything', 'SERVER_STATE_READY'],
    ]);
    const { status: legacy } = await rpc<{ status: Record<string, unknown> }>(
      tcp,
      'GetMcpServerStatus',
      { name: 'legacy' },
    );
    expect(legacy).toMatchObject({
      name: 'legacy',
      era: 'legacy',
      protocolVersion: expect.any(String),
    });
    expect(Number(legacy.toolCount)).toBeGreaterThan(3);
    const missing = await refusal(rpc(tcp, 'GetMcpServerStatus', { name: 'nope' }));
    expect(missing.code).toBe(status.NOT_FOUND);

    const { tools } = await rpc<{
      tools: Array<{ name: string; server?: string; originalName: string; inputSchema: Struct }>;
    }>(tcp, 'GetMcpTools', { server: 'legacy' });
    const echo = tools.find((t) => t.originalName === 'echo');
    expect(echo).toMatchObject({ name: 'mcp__legacy__echo', server: 'legacy' });
    expect(fromStruct(echo!.inputSchema)).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
    });
    expect(tools.every((t) => t.server === 'legacy')).toBe(true);
    const all = await rpc<{ tools: Array<{ name: string }> }>(tcp, 'GetMcpTools');
    expect(all.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['noop', 'mcp__everything__echo']),
    );
  });

  it('calls a tool: the result, an error result, and an unknown tool', async () => {
    const echoed = await readAll(
      stream(tcp, 'CallTool', {
        name: 'mcp__legacy__echo',
        arguments: toStruct({ message: 'hi' }),
      }),
    );
    expect(echoed.error).toBeUndefined();
    expect(echoed.messages).toHaveLength(1);
    const result = echoed.messages[0]!.result as { isError?: boolean; result: Struct };
    expect(result.isError ?? false).toBe(false);
    expect(fromStruct(result.result)).toMatchObject({ content: [{ type: 'text', text: 'hi' }] });

    const failed = await readAll(stream(tcp, 'CallTool', { name: 'mcp__legacy__fail' }));
    expect(failed.error).toBeUndefined();
    expect(failed.messages[0]!.result).toMatchObject({ isError: true });

    const unknown = await readAll(stream(tcp, 'CallTool', { name: 'mcp__legacy__nope' }));
    expect(unknown.error?.code).toBe(status.NOT_FOUND);
    expect(unknown.error?.metadata.get(ERROR_CODE_METADATA)).toEqual(['TOOL_NOT_FOUND']);
  });

  it('streams progress, then the result (server-everything)', async () => {
    const { messages, error } = await readAll(
      stream(tcp, 'CallTool', {
        name: 'mcp__everything__trigger-long-running-operation',
        arguments: toStruct({ duration: 0.3, steps: 3 }),
      }),
    );
    expect(error).toBeUndefined();
    const progress = messages.filter((m) => m.event === 'progress');
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.at(-1)!.progress).toMatchObject({ progress: expect.any(Number), total: 3 });
    expect(messages.at(-1)!.event).toBe('result');
    expect(messages.slice(0, -1).every((m) => m.event === 'progress')).toBe(true);
  });

  it('carries a client cancellation and a deadline to the server as notifications/cancelled', async () => {
    const fixture = legacyProcesses.at(-1)!;
    const before = fixture.records('cancelled').length;
    const call = stream(tcp, 'CallTool', {
      name: 'mcp__legacy__sleep',
      arguments: toStruct({ ms: 60_000 }),
    });
    const ended = readAll(call);
    await within(
      fixture.waitForRecord('sleeping', () => fixture.records('sleeping').length > before),
      EVENT_MS,
      'sleeping record',
    );
    call.cancel();
    expect((await ended).error?.code).toBe(status.CANCELLED);
    await within(
      fixture.waitForRecord('cancelled', () => fixture.records('cancelled').length > before),
      EVENT_MS,
      'cancelled record after the client cancelled',
    );

    const timed = await within(
      readAll(
        stream(
          tcp,
          'CallTool',
          { name: 'mcp__legacy__sleep', arguments: toStruct({ ms: 60_000 }) },
          bearer(),
          500,
        ),
      ),
      EVENT_MS,
      'the end of a call past its deadline',
    );
    expect(timed.error?.code).toBe(status.DEADLINE_EXCEEDED);
    await within(
      fixture.waitForRecord('cancelled', () => fixture.records('cancelled').length > before + 1),
      EVENT_MS,
      'cancelled record after the deadline',
    );
  });

  it('reads resources and prompts', async () => {
    const { resources } = await rpc<{ resources: Array<Record<string, unknown>> }>(
      tcp,
      'ListResources',
      { server: 'legacy' },
    );
    expect(resources).toContainEqual(
      expect.objectContaining({ uri: 'fixture://static/hello', server: 'legacy' }),
    );
    const read = await rpc<{ result: Struct }>(tcp, 'ReadResource', {
      uri: 'fixture://static/hello',
    });
    expect(fromStruct(read.result)).toMatchObject({
      contents: [{ uri: 'fixture://static/hello', text: 'hello, world' }],
    });

    const { prompts } = await rpc<{ prompts: Array<Record<string, unknown>> }>(tcp, 'ListPrompts', {
      server: 'legacy',
    });
    const greet = prompts.find((p) => p.originalName === 'greet');
    expect(greet).toMatchObject({ name: 'mcp__legacy__greet', server: 'legacy' });
    expect(greet!.arguments).toContainEqual(
      expect.objectContaining({ name: 'name', required: true }),
    );
    const got = await rpc<{ result: Struct }>(tcp, 'GetPrompt', {
      name: 'mcp__legacy__greet',
      arguments: { name: 'alice' },
    });
    expect(JSON.stringify(fromStruct(got.result))).toContain('alice');
  });

  it('registers a stdio server when permitted, drives it through its states, and unregisters it', async () => {
    const registered = await rpc<{ status: Record<string, unknown> }>(tcp, 'RegisterMcpServer', {
      name: 'fresh',
      stdio: {
        command: process.execPath,
        args: [mcpFixtures.legacySdk],
        env: { FIXTURE_CANARY: CANARY_ENV },
      },
    });
    expect(registered.status).toMatchObject({ name: 'fresh', state: 'SERVER_STATE_READY' });
    const audit = audits.find((a) => a.server === 'fresh');
    expect(audit).toMatchObject({
      action: 'register',
      outcome: 'allowed',
      transport: 'stdio',
      envNames: ['FIXTURE_CANARY'],
    });
    expect(
      logLines.some((line) => line.includes('api: server registered') && line.includes('fresh')),
    ).toBe(true);

    const again = await refusal(
      rpc(tcp, 'RegisterMcpServer', { name: 'fresh', stdio: { command: process.execPath } }),
    );
    expect(again.code).toBe(status.ALREADY_EXISTS);

    const state = async (method: string): Promise<unknown> =>
      (await rpc<{ status: { state: string } }>(tcp, method, { name: 'fresh' })).status.state;
    expect(await state('DisconnectMcpServer')).toBe('SERVER_STATE_IDLE');
    expect(await state('ConnectMcpServer')).toBe('SERVER_STATE_READY');
    expect(await state('DisableMcpServer')).toBe('SERVER_STATE_DISABLED');
    expect(await state('EnableMcpServer')).toBe('SERVER_STATE_READY');
    const restarted = await rpc<{ status: { state: string; restartCount?: number } }>(
      tcp,
      'RestartMcpServer',
      { name: 'fresh' },
    );
    expect(restarted.status).toMatchObject({ state: 'SERVER_STATE_READY', restartCount: 1 });

    await rpc(tcp, 'UnregisterMcpServer', { name: 'fresh' });
    expect(host.status().map((s) => s.name)).not.toContain('fresh');
    const gone = await refusal(rpc(tcp, 'ConnectMcpServer', { name: 'fresh' }));
    expect(gone.code).toBe(status.NOT_FOUND);
  });

  it('refuses a stdio registration the API does not permit, and audits it', async () => {
    const error = await refusal(
      rpc(
        socket,
        'RegisterMcpServer',
        {
          name: 'sneaky',
          stdio: {
            command: process.execPath,
            args: ['-e', 'process.exit(0)'],
            env: { SNEAKY_SECRET: CANARY_ENV },
          },
        },
        new Metadata(),
      ),
    );
    expect(error.code).toBe(status.PERMISSION_DENIED);
    expect(error.details).toMatch(/allowStdioRegistration/);
    expect(host.status().map((s) => s.name)).not.toContain('sneaky');
    expect(audits.find((a) => a.server === 'sneaky')).toMatchObject({
      outcome: 'refused',
      transport: 'stdio',
      envNames: ['SNEAKY_SECRET'],
    });
    expect(
      logLines.some(
        (line) => line.includes('stdio registration refused') && line.includes('sneaky'),
      ),
    ).toBe(true);
  });

  it('registers a remote server, its header values kept secret', async () => {
    const registered = await rpc<{ status: Record<string, unknown> }>(tcp, 'RegisterMcpServer', {
      name: 'remote',
      remote: {
        kind: 'REMOTE_KIND_HTTP',
        url: 'http://127.0.0.1:9/mcp',
        headers: { Authorization: `Bearer ${CANARY_HEADER}` },
      },
      lazy: true,
    });
    expect(registered.status).toMatchObject({ name: 'remote', state: 'SERVER_STATE_IDLE' });
    // A refused connection is a state, not an RPC failure: the server is registered and down.
    const connected = await rpc<{ status: { state: string; lastError?: { code: string } } }>(
      tcp,
      'ConnectMcpServer',
      { name: 'remote' },
    );
    expect(connected.status.state).not.toBe('SERVER_STATE_READY');
    expect(connected.status.lastError?.code).toBe('CONNECT_FAILED');
    await rpc(tcp, 'UnregisterMcpServer', { name: 'remote' });
  });

  it('streams host events (WatchEvents) as they happen', async () => {
    const call = stream(tcp, 'WatchEvents', { kinds: ['EVENT_KIND_SERVER_STATUS'] });
    await new Promise((resolve) => call.once('metadata', resolve));
    const seen: Array<Record<string, unknown>> = [];
    const ready = new Promise<void>((resolve) =>
      call.on('data', (event: Record<string, unknown>) => {
        seen.push(event);
        const s = event.serverStatus as { name: string; state: string } | undefined;
        if (s?.name === 'legacy' && s.state === 'SERVER_STATE_READY') resolve();
      }),
    );
    call.on('error', () => {});
    await rpc(tcp, 'RestartMcpServer', { name: 'legacy' });
    await within(ready, EVENT_MS, 'the ready event');
    expect(seen.every((e) => e.event === 'serverStatus' && e.time !== undefined)).toBe(true);
    expect(seen.map((e) => (e.serverStatus as { state: string }).state)).toContain(
      'SERVER_STATE_CONNECTING',
    );
    call.cancel();
  });

  it('cuts off a WatchEvents client that stops reading (RESOURCE_EXHAUSTED), memory bounded', async () => {
    // A client that stops reading, for real: a bare HTTP/2 stream with a 1 KiB window, paused
    // (grpc-js's own client keeps taking messages into its memory when its stream is paused).
    const session = connectHttp2(`http://${slowAddress}`, {
      settings: { initialWindowSize: 1024 },
    });
    const stalled = session.request({
      ':method': 'POST',
      ':path': '/mcp_host.v1.McpHostService/WatchEvents',
      'content-type': 'application/grpc',
      te: 'trailers',
      authorization: `Bearer ${TOKEN}`,
    });
    stalled.end(Buffer.alloc(5)); // one empty WatchEventsRequest: every kind
    stalled.pause();
    await new Promise((resolve) => stalled.once('response', resolve));
    const reading = stream(slow, 'WatchEvents', { kinds: ['EVENT_KIND_TOOL_CALL'] });
    await new Promise((resolve) => reading.once('metadata', resolve));
    let read = 0;
    let readingError: ServiceError | undefined;
    reading.on('data', () => void read++);
    reading.on('error', (error: ServiceError) => (readingError = error));

    // Events one call at a time, the event loop free in between, as a live host's events come.
    let fired = 0;
    const cutOff = (): boolean => slowLogLines.some((line) => line.includes('fell behind'));
    while (!cutOff() && fired < 100_000) {
      await host.callTool('noop');
      fired += 2;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(cutOff()).toBe(true);

    // Reading again, it gets what was in flight (bounded), then the status.
    let bytes = 0;
    const trailers = new Promise<Record<string, unknown>>((resolve) =>
      stalled.once('trailers', resolve),
    );
    stalled.on('data', (chunk: Buffer) => (bytes += chunk.length));
    stalled.resume();
    const ended = await within(trailers, EVENT_MS, 'the status of the stalled stream');
    expect(ended['grpc-status']).toBe(String(status.RESOURCE_EXHAUSTED));
    expect(decodeURIComponent(String(ended['grpc-message']))).toMatch(
      /fell more than 8 events behind/,
    );
    expect(ended[ERROR_CODE_METADATA]).toBe('SLOW_CONSUMER');
    expect(bytes).toBeLessThan(64 * 1024);
    session.close();

    // The client that kept reading, with the same buffer, got every event and is still on.
    await within(
      (async () => {
        while (read < fired) await new Promise((resolve) => setImmediate(resolve));
      })(),
      EVENT_MS,
      'every event at the reading client',
    );
    expect(readingError).toBeUndefined();
    expect(slowLogLines.filter((line) => line.includes('fell behind'))).toHaveLength(1);
    reading.cancel();
  });

  it('shows no canary secret in any response or log line', () => {
    const everything = JSON.stringify({ responses, logLines, audits });
    for (const canary of [TOKEN, CANARY_ENV, CANARY_HEADER])
      expect(everything).not.toContain(canary);
  });
});

describe('the gRPC management API with an OAuth server', () => {
  it('logs a server in with StartMcpOAuth and CompleteMcpOAuth; a forged state is refused', async () => {
    await using _guard = leakGuard();
    await using world = await startProtectedMcpServer();
    await using oauthHost = new McpHost({ tokenStore: new MemoryTokenStore() });
    using scratch = tempDir();
    await using api = createApiServer({ host: oauthHost, logger });
    const { address } = await api.listen({ socket: join(scratch.path, 'oauth.sock') });
    const packages = loadApiPackage() as unknown as Packages;
    const client = new packages.mcp_host.v1.McpHostService(address, credentials.createInsecure());
    const health = new packages.grpc.health.v1.Health(address, credentials.createInsecure());
    try {
      const none = new Metadata();
      const registered = await rpc<{ status: { state: string } }>(
        client,
        'RegisterMcpServer',
        { name: 'tracker', remote: { kind: 'REMOTE_KIND_HTTP', url: world.mcp.url }, oauth: {} },
        none,
      );
      expect(registered.status.state).toBe('SERVER_STATE_NEEDS_AUTH');

      // A forged state is refused before anything is redeemed.
      const first = await rpc<{ authorizationUrl: string; expiresAt: { seconds: string } }>(
        client,
        'StartMcpOAuth',
        { name: 'tracker' },
        none,
      );
      expect(Number(first.expiresAt.seconds) * 1000).toBeGreaterThan(Date.now());
      const forged = new URL(await consent({ url: new URL(first.authorizationUrl) }));
      forged.searchParams.set('state', 'forged');
      const refused = await refusal(
        rpc(client, 'CompleteMcpOAuth', { name: 'tracker', redirectUrl: forged.href }, none),
      );
      expect(refused.code).toBe(status.PERMISSION_DENIED);
      expect(refused.metadata.get(ERROR_CODE_METADATA)).toEqual(['AUTH_FAILED']);
      expect(world.oauth.tokenRequests).toHaveLength(0);

      const start = await rpc<{ authorizationUrl: string }>(
        client,
        'StartMcpOAuth',
        { name: 'tracker' },
        none,
      );
      const redirect = await consent({ url: new URL(start.authorizationUrl) });
      const completed = await rpc<{ status: { state: string } }>(
        client,
        'CompleteMcpOAuth',
        { name: 'tracker', redirectUrl: redirect },
        none,
      );
      expect(completed.status.state).toBe('SERVER_STATE_READY');
      const called = await readAll(
        stream(client, 'CallTool', { name: 'mcp__tracker__work' }, none),
      );
      expect(called.error).toBeUndefined();
      expect(called.messages.at(-1)!.result).toMatchObject({ isError: false });
      // The access token went only to the server, never into a response.
      const token = [...world.accepted][0]!;
      expect(JSON.stringify(responses)).not.toContain(token);

      // Health Watch: SERVING now, NOT_SERVING when the API closes, then the stream ends.
      const watch = stream(health, 'Watch', {}, none);
      const watched = readAll(watch);
      await new Promise((resolve) => watch.once('data', resolve));
      await api.close();
      const { messages } = await within(watched, EVENT_MS, 'the end of the health watch');
      expect(messages.map((m) => m.status)).toEqual(['SERVING', 'NOT_SERVING']);
    } finally {
      client.close();
      health.close();
    }
  }, 60_000);
});
