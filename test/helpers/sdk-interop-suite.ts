/**
 * The primitive tests of the client against the SDK fixture servers (test/fixtures/mcp), shared by
 * every transport they run over: stdio (interop-sdk-servers.test.ts) and Streamable HTTP
 * (interop-sdk-http.test.ts). A variant names the server, the era the client should land in, and
 * the cases its transport mode cannot support, each with the reason: those cases are registered
 * as skipped tests whose title says why, never left out silently.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  JsonRpcError,
  McpHostError,
  type JsonObject,
  type JsonRpcMessage,
  type LoggingMessageParams,
  type McpClient,
  type McpClientOptions,
  type ProgressNotificationParams,
  type ServerInputHandlers,
} from '../../src/index.js';
import type { FixtureRecord } from '../fixtures/mcp/lib/record.mjs';
import { within } from './mcp-fixtures.js';
import type { RecordingTransport } from './recording-transport.js';
import { SpecSchema } from './spec-schema.js';

const ROOT = { uri: 'file:///tmp/mcp-host-root', name: 'test root' };

/** What the test handlers were asked, per server. */
interface Asked {
  sampling: unknown[];
  elicitation: unknown[];
  roots: number;
}

function handlers(asked: Asked): ServerInputHandlers {
  return {
    sampling: (params) => {
      asked.sampling.push(params);
      return Promise.resolve({
        role: 'assistant',
        content: { type: 'text', text: 'sampled answer' },
        model: 'test-model',
        stopReason: 'endTurn',
      });
    },
    roots: () => {
      asked.roots += 1;
      return [ROOT];
    },
    elicitation: {
      form: (params) => {
        asked.elicitation.push(params);
        return Promise.resolve({ action: 'accept', content: { name: 'Ada' } });
      },
    },
  };
}

/** The requests the client sent for `method` (and for tools/call, the tool `tool`). */
function sentRequests(
  sent: readonly JsonRpcMessage[],
  method: string,
  tool?: string,
): { id: string | number; params: JsonObject }[] {
  return (sent as readonly { id?: string | number; method?: string; params?: JsonObject }[])
    .filter((m) => m.method === method && m.id !== undefined)
    .filter((m) => tool === undefined || m.params?.name === tool)
    .map((m) => ({ id: m.id!, params: m.params ?? {} }));
}

/** Cases a server mode may not support. */
export type SdkCase =
  | 'progress'
  | 'serverInput'
  | 'serverSeesCancellation'
  | 'logging'
  | 'listChanged'
  | 'resourceUpdates';

export interface SdkVariant {
  label: string;
  /** Which official SDK the server is built with (they differ in a few answers). */
  sdk: 'v1' | 'v2';
  script: string;
  args: string[];
  /** Pin the era instead of detecting it. */
  pinned?: 'legacy';
  era: 'legacy' | 'modern';
  version: string;
  serverName: string;
  /** Over Streamable HTTP (where a 2026-07-28 client cancels by closing the request's exchange). */
  http?: boolean;
  /** Cases this server mode cannot support, with the reason (the test is skipped and says why). */
  unsupported?: Partial<Record<SdkCase, string>>;
}

/** A connected-to-be client and what the suite reads of its server. */
export interface SdkTarget extends AsyncDisposable {
  readonly client: McpClient;
  /** The recording transport of the client's latest connection. */
  readonly transport: RecordingTransport;
  /** How many connections (stdio: processes; HTTP: transports) the client opened. */
  readonly connections: number;
  /** The first fixture record of `event` on the server's stderr that matches. */
  waitForRecord(
    event: string,
    matches?: (record: FixtureRecord) => boolean,
  ): Promise<FixtureRecord>;
}

/** Opens the target for a variant with these client options (the suite connects it). */
export type OpenTarget = (options: Partial<McpClientOptions>) => SdkTarget | Promise<SdkTarget>;

/**
 * Registers the primitive tests for one variant (call it inside a `describe`): tools (structured
 * content, error results), progress, cancellation, server input answered by the test's handlers
 * (legacy: server-to-client requests; modern: multi round-trip requests), resources and
 * templates, prompts and completion, logging, list_changed and resource updates; every message
 * the client sent validates against the schema of its session's revision.
 */
export function sdkInteropSuite(variant: SdkVariant, open: OpenTarget): void {
  const { sdk, pinned, era, version } = variant;
  const unsupported = variant.unsupported ?? {};
  /** `it`, or a skipped test that says why when the mode cannot support `kind`. */
  const itIf = (kind: SdkCase, title: string, body: () => Promise<void> | void): void => {
    const reason = unsupported[kind];
    if (reason === undefined) it(title, body);
    else it.skip(`${title} (skipped: ${reason})`, body);
  };
  const asked: Asked = { sampling: [], elicitation: [], roots: 0 };
  let server: SdkTarget;
  const sent = (): readonly JsonRpcMessage[] => server.transport.sent;

  beforeAll(async () => {
    server = await open({
      handlers: handlers(asked),
      ...(pinned === undefined ? {} : { era: pinned }),
    });
    await server.client.connect();
  });

  afterAll(async () => {
    await server?.[Symbol.asyncDispose]();
  });

  it(`is detected as ${era} (${version}) in one connection`, () => {
    const { client } = server;
    expect(client.era).toBe(era);
    expect(client.session?.version).toBe(version);
    expect(client.session?.serverInfo?.name).toBe(variant.serverName);
    expect(client.session?.capabilities).toMatchObject({
      tools: expect.any(Object),
      resources: expect.any(Object),
      prompts: expect.any(Object),
    });
    expect(server.connections).toBe(1);
    const methods = sent().map((m) => (m as { method?: string }).method);
    if (era === 'legacy') {
      expect(methods.slice(0, 3)).toEqual([
        ...(pinned === undefined ? ['server/discover'] : []),
        'initialize',
        'notifications/initialized',
      ]);
    } else {
      // The probe, then (2026-07-28) the client's subscriptions/listen stream; never initialize.
      expect(methods[0]).toBe('server/discover');
      expect(methods).not.toContain('initialize');
    }
  });

  it('lists its tools, none excluded; extra is off', async () => {
    const { tools: items, excluded } = await server.client.listTools();
    const names = items.map((t) => t.name);
    for (const expected of [
      'echo',
      'add',
      'progress',
      'fail',
      'sleep',
      'log',
      'sample',
      'ask',
      'list-roots',
      'toggle-tool',
      'touch-resource',
    ]) {
      expect(names).toContain(expected);
    }
    expect(names).not.toContain('extra');
    expect(excluded).toEqual([]);
    expect(items.find((t) => t.name === 'add')?.outputSchema).toMatchObject({ type: 'object' });
  });

  it('calls tools: text, structured content, and an error result returned as data', async () => {
    const echo = await server.client.callTool('echo', { message: 'hello' });
    expect(echo.content).toEqual([{ type: 'text', text: 'hello' }]);
    const add = await server.client.callTool('add', { a: 2, b: 3 });
    expect(add.isError).not.toBe(true);
    expect(add.structuredContent).toEqual({ sum: 5 });
    const fail = await server.client.callTool('fail', {});
    expect(fail.isError).toBe(true);
    expect(fail.content).toEqual([{ type: 'text', text: 'this tool always fails' }]);
  });

  itIf('progress', 'delivers progress notifications to the call', async () => {
    const progress: ProgressNotificationParams[] = [];
    const result = await server.client.callTool(
      'progress',
      { steps: 3 },
      { onProgress: (p) => progress.push(p) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'done 3' }]);
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(progress.at(-1)).toMatchObject({ total: 3, message: 'step 3' });
  });

  let sleepId: string | number | undefined;
  it('cancels a call: the caller is told at once and the client says so', async () => {
    const controller = new AbortController();
    const call = server.client.callTool('sleep', { ms: 20_000 }, { signal: controller.signal });
    // Once the server says the handler runs, it is watching its signal (over HTTP a round trip
    // behind it is no barrier: requests travel on separate connections).
    const sleeping = await within(server.waitForRecord('sleeping'), 10_000, 'sleeping record');
    const [request] = sentRequests(sent(), 'tools/call', 'sleep');
    sleepId = request!.id;
    expect(sleeping.requestId).toBe(sleepId);
    controller.abort(new Error('the user gave up'));
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpHostError);
    expect(error).toMatchObject({ code: 'ABORTED', cause: { message: 'the user gave up' } });
    const cancels = sent().filter(
      (m) => (m as { method?: string }).method === 'notifications/cancelled',
    );
    if (era === 'modern' && variant.http === true) {
      // 2026-07-28 over HTTP: closing the request's exchange is the cancellation.
      expect(cancels).toEqual([]);
    } else {
      expect(cancels).toContainEqual(
        expect.objectContaining({ params: expect.objectContaining({ requestId: sleepId }) }),
      );
    }
    // The connection goes on.
    expect((await server.client.callTool('echo', { message: 'after' })).content).toEqual([
      { type: 'text', text: 'after' },
    ]);
  });

  itIf(
    'serverSeesCancellation',
    'the server sees the cancellation: the handler is aborted',
    async () => {
      expect(sleepId).toBeDefined();
      const cancelled = await within(
        server.waitForRecord('cancelled', (r) => r.requestId === sleepId),
        10_000,
        'cancelled record',
      );
      expect(cancelled).toMatchObject({ tool: 'sleep' });
    },
  );

  itIf('serverInput', 'answers sampling, elicitation and roots through the handlers', async () => {
    const sample = await server.client.callTool('sample', { prompt: 'capital of France?' });
    expect(sample.isError).not.toBe(true);
    expect(sample.content).toEqual([{ type: 'text', text: 'sampled answer' }]);
    expect(asked.sampling).toEqual([
      expect.objectContaining({
        messages: [{ role: 'user', content: { type: 'text', text: 'capital of France?' } }],
      }),
    ]);

    const ask = await server.client.callTool('ask', { question: 'Who are you?' });
    expect(ask.isError).not.toBe(true);
    expect(ask.content[0]).toMatchObject({ type: 'text' });
    const text = (ask.content[0] as { text: string }).text;
    if (sdk === 'v1')
      expect(JSON.parse(text)).toEqual({ action: 'accept', content: { name: 'Ada' } });
    else expect(text).toBe('hello Ada');
    expect(asked.elicitation).toEqual([expect.objectContaining({ message: 'Who are you?' })]);

    const roots = await server.client.callTool('list-roots', {});
    expect(roots.isError).not.toBe(true);
    expect(JSON.parse((roots.content[0] as { text: string }).text)).toEqual([ROOT]);
    expect(asked.roots).toBe(1);

    // Legacy: real server-to-client requests; modern: none (MRTR).
    const inbound = [...server.transport.inboundMethods.values()];
    if (era === 'legacy') {
      expect(inbound).toEqual(
        expect.arrayContaining(['sampling/createMessage', 'elicitation/create', 'roots/list']),
      );
    } else {
      expect(inbound).toEqual([]);
    }
  });

  if (era === 'modern') {
    itIf(
      'serverInput',
      'answers server input through MRTR: a new request with inputResponses and the state echoed',
      () => {
        const rounds = sentRequests(sent(), 'tools/call', 'ask');
        expect(rounds).toHaveLength(2);
        const [first, retry] = rounds as [(typeof rounds)[0], (typeof rounds)[0]];
        expect(retry.id).not.toBe(first.id);
        expect(first.params.inputResponses).toBeUndefined();
        expect(retry.params.inputResponses).toMatchObject({
          name: { action: 'accept', content: { name: 'Ada' } },
        });
        expect(retry.params.requestState).toMatch(/^ask:\d+$/);
        expect(retry.params.arguments).toEqual(first.params.arguments);
        const roots = sentRequests(sent(), 'tools/call', 'list-roots');
        expect(roots).toHaveLength(2);
        expect(roots[1]!.params.inputResponses).toMatchObject({ roots: { roots: [ROOT] } });
      },
    );
  }

  it('lists, reads and templates resources', async () => {
    const { resources: items } = await server.client.listResources();
    const uris = items.map((r) => r.uri);
    expect(uris).toContain('fixture://static/hello');
    expect(uris).toContain('fixture://colours/red');
    const hello = await server.client.readResource('fixture://static/hello');
    expect(hello.contents).toEqual([
      { uri: 'fixture://static/hello', mimeType: 'text/plain', text: 'hello, world' },
    ]);
    const templates = await server.client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toContain(
      'fixture://colours/{name}',
    );
    const cyan = await server.client.readResource('fixture://colours/cyan');
    expect(cyan.contents[0]?.text).toBe('colour cyan');
    const completion = await server.client.complete(
      { type: 'ref/resource', uri: 'fixture://colours/{name}' },
      { name: 'name', value: 'c' },
    );
    expect(completion.completion.values).toEqual(['cyan']);
  });

  it('gets prompts with arguments and completes prompt arguments', async () => {
    const { prompts: items } = await server.client.listPrompts();
    expect(items.map((p) => p.name)).toContain('greet');
    const prompt = await server.client.getPrompt('greet', { name: 'bob', style: 'formal' });
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Greet bob in a formal way.' } },
    ]);
    const completion = await server.client.complete(
      { type: 'ref/prompt', name: 'greet' },
      { name: 'name', value: 'a' },
    );
    expect(completion.completion.values).toEqual(['alice']);
  });

  itIf(
    'logging',
    era === 'legacy'
      ? 'sets the log level with logging/setLevel and receives log messages'
      : 'sends the log level on _meta and receives log messages',
    async () => {
      const messages: LoggingMessageParams[] = [];
      const subscription = server.client.onLogMessage((m) => messages.push(m));
      try {
        if (era === 'modern') {
          // No level asked for: the server sends nothing (the result comes after any message).
          await server.client.callTool('log', { level: 'info', message: 'unasked' });
          expect(messages).toEqual([]);
        }
        const warned = new Promise<void>((resolve) => {
          const done = server.client.onLogMessage((m) => {
            if (m.level !== 'warning') return;
            done.dispose();
            resolve();
          });
        });
        await server.client.setLoggingLevel('info');
        await server.client.callTool('log', { level: 'debug', message: 'too low' });
        await server.client.callTool('log', { level: 'warning', message: 'careful' });
        // Over HTTP a legacy server sends them on the GET stream, which the result may overtake;
        // the filtered debug message would have come first on that same stream.
        await within(warned, 10_000, 'warning log message');
        expect(messages).toEqual([expect.objectContaining({ level: 'warning', data: 'careful' })]);
      } finally {
        subscription.dispose();
      }
      const setLevel = sentRequests(sent(), 'logging/setLevel');
      const logCalls = sentRequests(sent(), 'tools/call', 'log');
      const levelOf = (params: JsonObject): unknown =>
        (params._meta as JsonObject | undefined)?.['io.modelcontextprotocol/logLevel'];
      if (era === 'legacy') {
        expect(setLevel.map((r) => r.params)).toEqual([{ level: 'info' }]);
        expect(logCalls.map((r) => levelOf(r.params))).toEqual([undefined, undefined]);
      } else {
        expect(setLevel).toEqual([]);
        expect(logCalls.map((r) => levelOf(r.params))).toEqual([undefined, 'info', 'info']);
      }
    },
  );

  // Legacy: list_changed and resource updates come on the connection (after resources/subscribe).
  // Modern: both ride on the client's subscriptions/listen stream, opened at connect for the list
  // changes the server advertises; subscribeResource replaces it with one whose filter names the URI.
  itIf('listChanged', 'reports tool list changes', async () => {
    const toolsChanged = new Promise<{ added: string[]; removed: string[] }>((resolve) => {
      const subscription = server.client.onToolsChanged((change) => {
        subscription.dispose();
        resolve({
          added: change.added.map((t) => t.name),
          removed: change.removed.map((t) => t.name),
        });
      });
    });
    await server.client.listTools();
    expect(await server.client.callTool('toggle-tool', {})).toMatchObject({
      content: [{ type: 'text', text: 'extra on' }],
    });
    expect(await within(toolsChanged, 10_000, 'tools change event')).toEqual({
      added: ['extra'],
      removed: [],
    });
    expect((await server.client.callTool('extra', {})).content).toEqual([
      { type: 'text', text: 'extra' },
    ]);
    await server.client.callTool('toggle-tool', {});
  });

  if (sdk === 'v2' && era === 'legacy') {
    it('gets -32601 for resources/subscribe, which the v2 legacy shim advertises but does not serve', async () => {
      expect(server.client.session?.capabilities.resources?.subscribe).toBe(true);
      await expect(server.client.subscribeResource('fixture://static/hello')).rejects.toMatchObject(
        {
          code: -32601,
        },
      );
    });
  } else {
    itIf(
      'resourceUpdates',
      'delivers updates of a subscribed resource, and none after unsubscribing',
      async () => {
        const uri = 'fixture://static/hello';
        const updated = new Promise<string>((resolve) => {
          const subscription = server.client.onResourceUpdated(({ uri: changed }) => {
            if (changed !== uri) return;
            subscription.dispose();
            resolve(changed);
          });
        });
        await server.client.subscribeResource(uri);
        await server.client.callTool('touch-resource', { uri });
        expect(await within(updated, 10_000, 'resource update event')).toBe(uri);

        // Unsubscribed, an update is no longer delivered (the server sends it before the result).
        let late = 0;
        const subscription = server.client.onResourceUpdated(() => void late++);
        await server.client.unsubscribeResource(uri);
        await server.client.callTool('touch-resource', { uri });
        subscription.dispose();
        expect(late).toBe(0);

        const listens = sentRequests(sent(), 'subscriptions/listen').map(
          (r) => r.params.notifications as JsonObject,
        );
        if (era === 'legacy') {
          expect(sentRequests(sent(), 'resources/subscribe').map((r) => r.params)).toEqual([
            { uri },
          ]);
          expect(sentRequests(sent(), 'resources/unsubscribe').map((r) => r.params)).toEqual([
            { uri },
          ]);
          expect(listens).toEqual([]);
        } else {
          expect(sentRequests(sent(), 'resources/subscribe')).toEqual([]);
          const lists = {
            toolsListChanged: true,
            resourcesListChanged: true,
            promptsListChanged: true,
          };
          // Opened at connect for the list changes, replaced with the URI, replaced without it.
          expect(listens).toEqual([lists, { ...lists, resourceSubscriptions: [uri] }, lists]);
        }
      },
    );
  }

  it('answers ping (legacy: ping; modern: server/discover)', async () => {
    await expect(server.client.ping()).resolves.toBeUndefined();
    const method = era === 'legacy' ? 'ping' : 'server/discover';
    expect(sentRequests(sent(), method).length).toBeGreaterThanOrEqual(1);
  });

  it('reports an unknown tool (v1: error result; v2: -32602) and invalid arguments (error result)', async () => {
    const unknown = server.client.callTool('no-such-tool', {});
    if (sdk === 'v1') {
      // The v1 SDK turns its own -32602 into an error result.
      await expect(unknown).resolves.toMatchObject({
        isError: true,
        content: [{ type: 'text', text: expect.stringContaining('no-such-tool not found') }],
      });
    } else {
      const error = await unknown.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(JsonRpcError);
      expect(error).toMatchObject({ code: -32602, serverName: 'sdk' });
    }
    const invalid = await server.client.callTool('add', { a: 'two' });
    expect(invalid.isError).toBe(true);
    expect(JSON.stringify(invalid.content)).toContain('Input validation error');
    await expect(server.client.callTool('echo', { message: 'still here' })).resolves.toMatchObject({
      content: [{ type: 'text', text: 'still here' }],
    });
  });

  it(`sent only messages that validate against the ${era === 'legacy' ? '2025-11-25 schema after the probe' : '2026-07-28 schema'}`, () => {
    const transport = server.transport;
    // Detected: the probe is a 2026-07-28 request whatever the era. Pinned: no probe.
    const rest = pinned === undefined ? transport.sent.slice(1) : transport.sent;
    if (pinned === undefined) {
      const probe = transport.sent[0]!;
      expect(probe).toMatchObject({ method: 'server/discover' });
      expect(modern.check(probe)).toEqual([]);
    }
    const schema = era === 'legacy' ? legacy : modern;
    expect(rest.length).toBeGreaterThan(20);
    expect(rest.flatMap((m) => schema.check(m, transport.inboundMethods))).toEqual([]);
  });
}

const legacy = new SpecSchema('2025-11-25');
const modern = new SpecSchema('2026-07-28');
