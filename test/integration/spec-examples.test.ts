/**
 * The 2026-07-28 example messages of the specification (../shared/mcp-spec/2026-07-28/examples),
 * read by this library: every message parses as JSON-RPC by our guards, every example result is
 * accepted by the McpClient when a server answers with it, example errors surface as typed
 * JsonRpcErrors, and example notifications reach the client's events. Also: the messages the
 * client sends in a modern session validate against the 2026-07-28 schema.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { JsonRpcError, McpClient, type JsonObject } from '../../src/index.js';
import { isJsonRpcErrorObject, isJsonRpcMessage } from '../../src/jsonrpc/message.js';
import { isDiscoverResult, isInputRequiredResult, isTool } from '../../src/protocol/guards.js';
import { createFakeServer } from '../../src/testing/index.js';
import { RecordingTransport } from '../helpers/recording-transport.js';
import { SpecSchema } from '../helpers/spec-schema.js';

const dir = fileURLToPath(
  new URL('../../../shared/mcp-spec/2026-07-28/examples/', import.meta.url),
);
const examples = readdirSync(dir).flatMap((type) =>
  readdirSync(`${dir}${type}`).map((file) => ({
    type,
    file,
    value: JSON.parse(readFileSync(`${dir}${type}/${file}`, 'utf8')) as JsonObject,
  })),
);
const ofType = (type: string) => examples.filter((e) => e.type === type).map((e) => e.value);
const messageTypes = /(Request|Notification|Response|Error)$/;

describe('2026-07-28 examples', () => {
  it('there are examples to read', () => {
    expect(examples.length).toBeGreaterThan(80);
  });

  it.each(
    examples
      .filter((e) => messageTypes.test(e.type))
      .map((e) => [`${e.type}/${e.file}`, e.value] as const),
  )('%s is read by our guards', (_name, value) => {
    if ('jsonrpc' in value) expect(isJsonRpcMessage(value)).toBe(true);
    // A bare error object, as it sits inside a response.
    else if ('code' in value) expect(isJsonRpcErrorObject(value)).toBe(true);
    // An input request, as it sits inside an input_required result (no jsonrpc, no id).
    else expect(value).toMatchObject({ method: expect.any(String) });
  });

  it('result and definition examples pass our shape guards', () => {
    for (const value of ofType('DiscoverResult')) expect(isDiscoverResult(value)).toBe(true);
    for (const value of ofType('InputRequiredResult'))
      expect(isInputRequiredResult(value)).toBe(true);
    for (const value of ofType('Tool')) expect(isTool(value)).toBe(true);
  });

  it('the client accepts every example result a server answers with', async () => {
    // The examples of list results carry a nextCursor: the second page is the same list without it.
    const result = (type: string) => (params: JsonObject) => {
      const value = ofType(type)[0]!.result as JsonObject;
      return params.cursor === undefined ? value : { ...value, nextCursor: undefined };
    };
    const { server, clientTransport } = await createFakeServer({
      era: 'modern',
      handlers: {
        'server/discover': result('DiscoverResultResponse'),
        'tools/list': result('ListToolsResultResponse'),
        'tools/call': result('CallToolResultResponse'),
        'resources/list': result('ListResourcesResultResponse'),
        'resources/templates/list': result('ListResourceTemplatesResultResponse'),
        'resources/read': result('ReadResourceResultResponse'),
        'prompts/list': result('ListPromptsResultResponse'),
        'prompts/get': result('GetPromptResultResponse'),
        'completion/complete': result('CompleteResultResponse'),
      },
    });
    const recording = new RecordingTransport(clientTransport);
    await using client = new McpClient({ transport: recording });
    await client.connect();
    expect(client.era).toBe('modern');
    expect(client.session?.serverInfo?.name).toBe('ExampleServer');
    const tools = await client.listTools();
    expect(tools.tools.length).toBeGreaterThan(0);
    expect(tools).toHaveProperty('ttlMs');
    expect((await client.callTool(tools.tools[0]!.name, {})).content.length).toBeGreaterThan(0);
    expect((await client.listResources()).resources.length).toBeGreaterThan(0);
    expect((await client.listResourceTemplates()).resourceTemplates.length).toBeGreaterThan(0);
    expect((await client.readResource('file:///example.txt')).contents.length).toBeGreaterThan(0);
    expect((await client.listPrompts()).prompts.length).toBeGreaterThan(0);
    expect((await client.getPrompt('p', {})).messages.length).toBeGreaterThan(0);
    expect(
      (await client.complete({ type: 'ref/prompt', name: 'p' }, { name: 'a', value: 'b' }))
        .completion.values,
    ).toBeDefined();
    const spec = new SpecSchema('2026-07-28');
    const problems = recording.sent.flatMap((message) => spec.check(message));
    expect(problems).toEqual([]);
    await server.close();
  });

  it('answers the example input_required results through the handlers and retries as the spec says', async () => {
    for (const example of ofType('InputRequiredResult')) {
      let calls = 0;
      const { server, clientTransport } = await createFakeServer({
        era: 'modern',
        handlers: {
          'tools/call': (params) =>
            calls++ === 0 ? example : { content: [{ type: 'text', text: JSON.stringify(params) }] },
        },
      });
      await using client = new McpClient({
        transport: clientTransport,
        handlers: {
          sampling: () =>
            Promise.resolve({
              role: 'assistant',
              content: { type: 'text', text: 'Paris' },
              model: 'm',
            }),
          elicitation: {
            form: () => Promise.resolve({ action: 'accept', content: { name: 'octocat' } }),
          },
          roots: () => [],
        },
      });
      await client.connect();
      const answer = JSON.parse(
        (await client.callTool('t', {})).content[0]!.text as string,
      ) as JsonObject;
      if (typeof example.requestState === 'string')
        expect(answer.requestState).toBe(example.requestState);
      else expect(answer).not.toHaveProperty('requestState');
      if (example.inputRequests !== undefined) {
        expect(Object.keys(answer.inputResponses as object).sort()).toEqual(
          Object.keys(example.inputRequests as object).sort(),
        );
      }
      await server.close();
    }
  });

  it.each([
    'UnsupportedProtocolVersionError',
    'MissingRequiredClientCapabilityError',
    'HeaderMismatchError',
    'InvalidParamsError',
    'MethodNotFoundError',
    'InternalError',
  ])('the %s example surfaces as a JsonRpcError with its code', async (type) => {
    const example = ofType(type)[0]!;
    const wire = (example.error ?? example) as { code: number; message: string; data?: unknown };
    const { server, clientTransport } = await createFakeServer({
      era: 'modern',
      handlers: {
        'tools/call': () => {
          throw new JsonRpcError(wire.code, wire.message, { data: wire.data });
        },
      },
    });
    await using client = new McpClient({
      transport: clientTransport,
      protocolVersion: '2026-07-28',
    });
    await client.connect();
    const error = await client.callTool('t', {}).catch((e: unknown) => e);
    if (type === 'UnsupportedProtocolVersionError') {
      // Retried once with the mutual version; refused again, it names both sides' versions.
      expect(error).toMatchObject({ code: 'PROTOCOL_VERSION_UNSUPPORTED' });
    } else {
      expect(error).toBeInstanceOf(JsonRpcError);
      expect(error).toMatchObject({ code: wire.code });
    }
    // -32022 naming a mutual version is retried once with it, and only once.
    const calls = server.methods().filter((m) => m === 'tools/call').length;
    expect(calls).toBe(type === 'UnsupportedProtocolVersionError' ? 2 : 1);
    await server.close();
  });

  it('a message that breaks the schema is caught by the schema check (the check can fail)', () => {
    const spec = new SpecSchema('2026-07-28');
    expect(
      spec.check({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } }),
    ).not.toEqual([]);
    expect(
      new SpecSchema('2025-11-25').check({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {},
      }),
    ).not.toEqual([]);
  });
});
