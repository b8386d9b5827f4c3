/**
 * The model clients of `mcp-host/agent` against a scripted model server on 127.0.0.1, one wire
 * format each: streamed text, parallel tool calls in pieces, tool results with images in the
 * provider's form, usage, HTTP errors, malformed and cut streams, abort, bounds, and keys that
 * never show.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  anthropicModel,
  createModel,
  geminiModel,
  openaiChatModel,
  openaiResponsesModel,
  type ModelClient,
  type ModelClientOptions,
  type ModelEvent,
  type ModelMessage,
  type ModelToolCall,
} from '../../src/agent.js';
import { createAgentToolset } from '../../src/agents/agent-toolset.js';
import { toModelResult } from '../../src/agents/model-result.js';
import type { SchemaProvider } from '../../src/agents/schemas/normalise-tool-schema.js';
import { McpHostError } from '../../src/errors/mcp-host-error.js';
import {
  startFakeModelServer,
  type FakeModelServer,
  type SseReply,
} from '../helpers/fake-model-server.js';
import { leakGuard } from '../helpers/leak-guard.js';
import {
  anthropicText,
  anthropicToolUses,
  geminiFunctionCalls,
  geminiText,
} from '../helpers/model-wire.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUg==';

function tools(provider: SchemaProvider) {
  return createAgentToolset(
    {
      tools: () => [
        {
          name: 'get_weather',
          originalName: 'get_weather',
          description: 'The weather in a city',
          inputSchema: {
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
          },
        },
      ],
      callTool: () => Promise.reject(new Error('not called in these tests')),
    },
    { provider },
  ).tools;
}

async function collect(stream: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

async function failure(stream: AsyncIterable<ModelEvent>): Promise<McpHostError> {
  try {
    await collect(stream);
  } catch (error) {
    expect(error).toBeInstanceOf(McpHostError);
    return error as McpHostError;
  }
  throw new Error('the stream did not fail');
}

const calls: ModelToolCall[] = [
  { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
  { id: 'call_b', name: 'get_weather', arguments: { city: 'Oslo' } },
];

/** A conversation with every kind of message: an image from the user, two calls, an image result. */
const conversation: ModelMessage[] = [
  { role: 'system', text: 'Be brief.' },
  {
    role: 'user',
    parts: [
      { type: 'text', text: 'Weather in Paris and Oslo? Also, this:' },
      { type: 'image', mimeType: 'image/png', data: PNG },
    ],
  },
  { role: 'assistant', text: '', toolCalls: calls },
  {
    role: 'tool',
    results: [
      {
        call: calls[0]!,
        result: toModelResult({
          content: [
            { type: 'text', text: 'sunny' },
            { type: 'image', mimeType: 'image/png', data: PNG },
          ],
        }),
      },
      {
        call: calls[1]!,
        result: toModelResult({ content: [{ type: 'text', text: 'no such city' }], isError: true }),
      },
    ],
  },
];

interface Wire {
  name: string;
  make(options: ModelClientOptions): ModelClient;
  provider: SchemaProvider;
  path: RegExp;
  text: SseReply;
  toolCalls: SseReply;
  /** Asserts the request body of the `conversation` turn. */
  checkConversation(body: Record<string, unknown>): void;
  /** The first event of a text reply (for the abort test: the stream stays open after it). */
  first: { event?: string; data: unknown };
}

const wires: Wire[] = [
  {
    name: 'openai chat completions',
    make: openaiChatModel,
    provider: 'openai-strict',
    path: /^\/v1\/chat\/completions$/,
    first: { data: { choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' } }] } },
    text: {
      sse: [
        { data: { choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' } }] } },
        { data: { choices: [{ index: 0, delta: { content: 'lo' } }] } },
        { data: { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] } },
        { data: { choices: [], usage: { prompt_tokens: 11, completion_tokens: 2 } } },
        { data: '[DONE]' },
      ],
    },
    toolCalls: {
      sse: [
        {
          data: {
            choices: [
              {
                index: 0,
                delta: {
                  tool_calls: [
                    {
                      index: 0,
                      id: 'call_a',
                      type: 'function',
                      function: { name: 'get_weather', arguments: '' },
                    },
                  ],
                },
              },
            ],
          },
        },
        {
          data: {
            choices: [
              {
                index: 0,
                delta: {
                  tool_calls: [
                    {
                      index: 1,
                      id: 'call_b',
                      type: 'function',
                      function: { name: 'get_weather', arguments: '{"ci' },
                    },
                  ],
                },
              },
            ],
          },
        },
        {
          data: {
            choices: [
              {
                index: 0,
                delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] },
              },
            ],
          },
        },
        {
          data: {
            choices: [
              {
                index: 0,
                delta: { tool_calls: [{ index: 1, function: { arguments: 'ty":"Oslo"}' } }] },
              },
            ],
          },
        },
        { data: { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] } },
        { data: '[DONE]' },
      ],
    },
    checkConversation(body) {
      expect(body.stream).toBe(true);
      expect(body.messages).toEqual([
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather in Paris and Oslo? Also, this:' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_a',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
            {
              id: 'call_b',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
            },
          ],
        },
        {
          role: 'tool',
          tool_call_id: 'call_a',
          content: expect.stringContaining('sunny') as unknown,
        },
        { role: 'tool', tool_call_id: 'call_b', content: 'Error: no such city' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Attachments of tool call call_a (get_weather):' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          ],
        },
      ]);
      expect(body.tools).toEqual([
        {
          type: 'function',
          function: expect.objectContaining({ name: 'get_weather', strict: true }) as unknown,
        },
      ]);
    },
  },
  {
    name: 'openai responses',
    make: openaiResponsesModel,
    provider: 'openai-strict',
    path: /^\/v1\/responses$/,
    first: {
      event: 'response.output_text.delta',
      data: { type: 'response.output_text.delta', delta: 'Hel' },
    },
    text: {
      sse: [
        {
          event: 'response.created',
          data: { type: 'response.created', response: { status: 'in_progress' } },
        },
        {
          event: 'response.output_text.delta',
          data: { type: 'response.output_text.delta', delta: 'Hel' },
        },
        {
          event: 'response.output_text.delta',
          data: { type: 'response.output_text.delta', delta: 'lo' },
        },
        {
          event: 'response.completed',
          data: {
            type: 'response.completed',
            response: { status: 'completed', usage: { input_tokens: 11, output_tokens: 2 } },
          },
        },
      ],
    },
    toolCalls: {
      sse: [
        {
          event: 'response.output_item.added',
          data: {
            type: 'response.output_item.added',
            output_index: 0,
            item: {
              type: 'function_call',
              id: 'fc_1',
              call_id: 'call_a',
              name: 'get_weather',
              arguments: '',
            },
          },
        },
        {
          event: 'response.function_call_arguments.delta',
          data: {
            type: 'response.function_call_arguments.delta',
            item_id: 'fc_1',
            delta: '{"city":',
          },
        },
        {
          event: 'response.output_item.added',
          data: {
            type: 'response.output_item.added',
            output_index: 1,
            item: {
              type: 'function_call',
              id: 'fc_2',
              call_id: 'call_b',
              name: 'get_weather',
              arguments: '',
            },
          },
        },
        {
          event: 'response.output_item.done',
          data: {
            type: 'response.output_item.done',
            item: {
              type: 'function_call',
              id: 'fc_1',
              call_id: 'call_a',
              name: 'get_weather',
              arguments: '{"city":"Paris"}',
            },
          },
        },
        {
          event: 'response.output_item.done',
          data: {
            type: 'response.output_item.done',
            item: {
              type: 'function_call',
              id: 'fc_2',
              call_id: 'call_b',
              name: 'get_weather',
              arguments: '{"city":"Oslo"}',
            },
          },
        },
        {
          event: 'response.completed',
          data: { type: 'response.completed', response: { status: 'completed' } },
        },
      ],
    },
    checkConversation(body) {
      expect(body.stream).toBe(true);
      expect(body.store).toBe(false);
      expect(body.input).toEqual([
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Weather in Paris and Oslo? Also, this:' },
            { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
          ],
        },
        {
          type: 'function_call',
          call_id: 'call_a',
          name: 'get_weather',
          arguments: '{"city":"Paris"}',
        },
        {
          type: 'function_call',
          call_id: 'call_b',
          name: 'get_weather',
          arguments: '{"city":"Oslo"}',
        },
        {
          type: 'function_call_output',
          call_id: 'call_a',
          output: [
            { type: 'input_text', text: 'sunny' },
            { type: 'input_image', image_url: `data:image/png;base64,${PNG}` },
          ],
        },
        { type: 'function_call_output', call_id: 'call_b', output: 'Error: no such city' },
      ]);
      expect(body.tools).toEqual([
        expect.objectContaining({ type: 'function', name: 'get_weather', strict: true }),
      ]);
    },
  },
  {
    name: 'anthropic messages',
    make: anthropicModel,
    provider: 'anthropic',
    path: /^\/v1\/messages$/,
    first: {
      event: 'content_block_delta',
      data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } },
    },
    text: anthropicText(['Hel', 'lo']),
    toolCalls: anthropicToolUses([
      { id: 'call_a', name: 'get_weather', json: ['{"city":', '"Paris"}'] },
      { id: 'call_b', name: 'get_weather', json: ['{"ci', 'ty":"Oslo"}'] },
    ]),
    checkConversation(body) {
      expect(body.stream).toBe(true);
      expect(body.system).toBe('Be brief.');
      expect(body.max_tokens).toBe(4096);
      expect(body.messages).toEqual([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather in Paris and Oslo? Also, this:' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'call_b', name: 'get_weather', input: { city: 'Oslo' } },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'call_a',
              content: [
                { type: 'text', text: 'sunny' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
              ],
            },
            { type: 'tool_result', tool_use_id: 'call_b', content: 'no such city', is_error: true },
          ],
        },
      ]);
      expect(body.tools).toEqual([
        expect.objectContaining({
          name: 'get_weather',
          input_schema: expect.any(Object) as unknown,
        }),
      ]);
    },
  },
  {
    name: 'gemini',
    make: geminiModel,
    provider: 'gemini',
    path: /^\/v1beta\/models\/gemini-test:streamGenerateContent\?alt=sse$/,
    first: { data: { candidates: [{ content: { role: 'model', parts: [{ text: 'Hel' }] } }] } },
    text: geminiText(['Hel', 'lo']),
    toolCalls: geminiFunctionCalls([
      { name: 'get_weather', args: { city: 'Paris' }, thoughtSignature: 'sig-1' },
      { name: 'get_weather', args: { city: 'Oslo' } },
    ]),
    checkConversation(body) {
      expect(body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
      expect(body.contents).toEqual([
        {
          role: 'user',
          parts: [
            { text: 'Weather in Paris and Oslo? Also, this:' },
            { inlineData: { mimeType: 'image/png', data: PNG } },
          ],
        },
        {
          role: 'model',
          parts: [
            { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
            { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            {
              functionResponse: {
                name: 'get_weather',
                response: { output: 'sunny' },
                parts: [{ inlineData: { mimeType: 'image/png', data: PNG } }],
              },
            },
            { functionResponse: { name: 'get_weather', response: { error: 'no such city' } } },
          ],
        },
      ]);
      expect(body.tools).toEqual([
        { functionDeclarations: [expect.objectContaining({ name: 'get_weather' })] },
      ]);
    },
  },
];

function baseUrl(wire: Wire, model: FakeModelServer): string {
  return wire.name === 'gemini' ? `${model.url}/v1beta` : `${model.url}/v1`;
}

function client(wire: Wire, model: FakeModelServer, extra: Partial<ModelClientOptions> = {}) {
  return wire.make({
    model: wire.name === 'gemini' ? 'gemini-test' : 'test-model',
    baseUrl: baseUrl(wire, model),
    ...extra,
  });
}

const hello: ModelMessage[] = [{ role: 'user', parts: [{ type: 'text', text: 'Say hello' }] }];

describe.each(wires)('model client: $name', (wire) => {
  it('streams a text answer in deltas, then done with the usage', async () => {
    await using _guard = leakGuard();
    await using model = await startFakeModelServer();
    model.reply(wire.text);
    const llm = client(wire, model);
    expect(llm.provider).toBe(wire.provider);
    const events = await collect(llm.stream({ messages: hello, tools: [] }));
    expect(events).toEqual([
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo' },
      { type: 'done', stopReason: 'stop', usage: { inputTokens: 11, outputTokens: 2 } },
    ]);
    expect(model.requests[0]!.path).toMatch(wire.path);
    expect(model.requests[0]!.method).toBe('POST');
  });

  it('assembles two parallel tool calls streamed in pieces', async () => {
    await using _guard = leakGuard();
    await using model = await startFakeModelServer();
    model.reply(wire.toolCalls);
    const events = await collect(
      client(wire, model).stream({ messages: hello, tools: tools(wire.provider) }),
    );
    const toolCalls = events.flatMap((event) => (event.type === 'tool-call' ? [event.call] : []));
    expect(toolCalls.map((call) => [call.name, call.arguments])).toEqual([
      ['get_weather', { city: 'Paris' }],
      ['get_weather', { city: 'Oslo' }],
    ]);
    expect(new Set(toolCalls.map((call) => call.id)).size).toBe(2);
    if (wire.name !== 'gemini')
      expect(toolCalls.map((call) => call.id)).toEqual(['call_a', 'call_b']);
    else expect(toolCalls[0]!.metadata).toEqual({ thoughtSignature: 'sig-1' });
    expect(events.at(-1)).toMatchObject({ type: 'done', stopReason: 'tool-calls' });
  });

  it('sends the conversation in its wire form: user image, tool calls, a tool result with an image', async () => {
    await using _guard = leakGuard();
    await using model = await startFakeModelServer();
    model.reply(wire.text);
    await collect(
      client(wire, model).stream({ messages: conversation, tools: tools(wire.provider) }),
    );
    wire.checkConversation(model.requests[0]!.body!);
  });

  it.each([401, 429, 500])(
    'HTTP %i: a typed error with the status and the provider message',
    async (status) => {
      await using _guard = leakGuard();
      await using model = await startFakeModelServer();
      model.reply({ json: { error: { message: `nope ${status}` } }, status });
      const error = await failure(client(wire, model).stream({ messages: hello, tools: [] }));
      expect(error.code).toBe('HTTP_STATUS');
      expect(error.details).toMatchObject({ status, model: expect.any(String) as unknown });
      expect(error.message).toContain(`HTTP ${status}: nope ${status}`);
      expect(error.message).toMatch(/^model '[a-z-]+:[\w-]+'/);
    },
  );

  it('a malformed stream is INVALID_MESSAGE, a cut one STREAM_INTERRUPTED', async () => {
    await using _guard = leakGuard();
    await using model = await startFakeModelServer();
    model.reply({ sse: [wire.first, { data: 'this is not json' }] }, { sse: [wire.first] });
    const llm = client(wire, model);
    expect((await failure(llm.stream({ messages: hello, tools: [] }))).code).toBe(
      'INVALID_MESSAGE',
    );
    const cut = await failure(llm.stream({ messages: hello, tools: [] }));
    expect(cut.code).toBe('STREAM_INTERRUPTED');
    expect(cut.message).toContain('ended before the reply was complete');
  });

  it('abort mid-stream: ABORTED with the caller reason as its cause', async () => {
    await using _guard = leakGuard();
    await using model = await startFakeModelServer();
    model.reply({ sse: [wire.first], open: true });
    const controller = new AbortController();
    const reason = new Error('user pressed stop');
    const events: ModelEvent[] = [];
    let caught: unknown;
    try {
      for await (const event of client(wire, model).stream({
        messages: hello,
        tools: [],
        signal: controller.signal,
      })) {
        events.push(event);
        controller.abort(reason);
      }
    } catch (error) {
      caught = error;
    }
    expect(events).toEqual([{ type: 'text-delta', text: 'Hel' }]);
    expect(caught).toBeInstanceOf(McpHostError);
    expect((caught as McpHostError).code).toBe('ABORTED');
    expect((caught as McpHostError).cause).toBe(reason);
  });

  it('a model that streams forever is stopped by the event and stream bounds', async () => {
    await using _guard = leakGuard();
    await using model = await startFakeModelServer();
    model.reply(
      { sse: [wire.first], raw: `data: ${'x'.repeat(5000)}`, open: true },
      { sse: Array.from({ length: 200 }, () => wire.first), open: true },
    );
    const event = await failure(
      client(wire, model, { maxEventBytes: 1000 }).stream({ messages: hello, tools: [] }),
    );
    expect(event.code).toBe('MESSAGE_TOO_LARGE');
    expect(event.message).toContain('maxEventBytes');
    const total = await failure(
      client(wire, model, { maxStreamBytes: 4000 }).stream({ messages: hello, tools: [] }),
    );
    expect(total.code).toBe('MESSAGE_TOO_LARGE');
    expect(total.message).toContain('maxStreamBytes');
  });
});

describe('model clients: API keys', () => {
  const CANARY = 'canary-Key-Quokka-Marmalade';

  it.each(wires)('$name: the key is sent, yet never in errors or inspect output', async (wire) => {
    await using _guard = leakGuard();
    await using model = await startFakeModelServer();
    // A provider that echoes the key back in its error message.
    model.reply({
      json: { error: { message: `Incorrect API key provided: ${CANARY}` } },
      status: 401,
    });
    const llm = client(wire, model, { apiKey: CANARY });
    const error = await failure(llm.stream({ messages: hello, tools: [] }));
    const headers = model.requests[0]!.headers;
    const sent = [headers.authorization, headers['x-api-key'], headers['x-goog-api-key']];
    expect(sent.some((value) => typeof value === 'string' && value.includes(CANARY))).toBe(true);
    for (const text of [
      error.message,
      inspect(error, { depth: 10 }),
      JSON.stringify(error),
      inspect(llm, { depth: 10, showHidden: true }),
      String(error.stack),
    ]) {
      expect(text).not.toContain(CANARY);
    }
  });
});

describe('createModel', () => {
  it('openai:, anthropic:, gemini: pick the client and read the key from the environment', async () => {
    await using _guard = leakGuard();
    await using model = await startFakeModelServer();
    const env = {
      OPENAI_API_KEY: 'sk-openai-test-1',
      ANTHROPIC_API_KEY: 'sk-ant-test-1',
      GEMINI_API_KEY: 'gm-test-1',
    };
    const cases: Array<[string, string, SseReply, string, string]> = [
      ['openai:gpt-test', '/v1', wires[0]!.text, 'authorization', 'Bearer sk-openai-test-1'],
      [
        'openai-responses:gpt-test',
        '/v1',
        wires[1]!.text,
        'authorization',
        'Bearer sk-openai-test-1',
      ],
      ['anthropic:claude-test', '/v1', wires[2]!.text, 'x-api-key', 'sk-ant-test-1'],
      ['gemini:gemini-test', '/v1beta', wires[3]!.text, 'x-goog-api-key', 'gm-test-1'],
    ];
    for (const [spec, prefix, reply, header, value] of cases) {
      model.reply(reply);
      const llm = createModel(spec, { env, baseUrl: `${model.url}${prefix}` });
      expect(llm.model).toBe(spec.slice(spec.indexOf(':') + 1));
      const events = await collect(llm.stream({ messages: hello, tools: [] }));
      expect(events.at(-1)).toMatchObject({ type: 'done', stopReason: 'stop' });
      expect(model.requests.at(-1)!.headers[header]).toBe(value);
    }
    expect(model.requests.map((request) => request.path)).toEqual([
      '/v1/chat/completions',
      '/v1/responses',
      '/v1/messages',
      '/v1beta/models/gemini-test:streamGenerateContent?alt=sse',
    ]);
  });

  it('a bare URL is a keyless OpenAI-compatible server; its fragment names the model', async () => {
    await using _guard = leakGuard();
    await using model = await startFakeModelServer();
    model.reply(wires[0]!.text);
    const llm = createModel(`${model.url}/v1#llama3.2`, {
      env: { OPENAI_API_KEY: 'sk-not-sent-1' },
    });
    expect(llm.model).toBe('llama3.2');
    await collect(llm.stream({ messages: hello, tools: [], maxOutputTokens: 64 }));
    const request = model.requests[0]!;
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBeUndefined();
    expect(request.body).toMatchObject({ model: 'llama3.2', max_tokens: 64, stream: true });
  });

  it('a missing key is CONFIG_VARIABLE_UNSET naming the variable, and nothing is sent', async () => {
    await using _guard = leakGuard();
    await using model = await startFakeModelServer();
    for (const [spec, variable] of [
      ['openai:gpt-test', 'OPENAI_API_KEY'],
      ['anthropic:claude-test', 'ANTHROPIC_API_KEY'],
      ['gemini:gemini-test', 'GEMINI_API_KEY'],
    ] as const) {
      let caught: unknown;
      try {
        createModel(spec, { env: {} });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(McpHostError);
      expect((caught as McpHostError).code).toBe('CONFIG_VARIABLE_UNSET');
      expect((caught as McpHostError).message).toContain(variable);
    }
    expect(() => createModel('mistral-large', { env: {} })).toThrow(/not a model spec/);
    expect(model.requests).toHaveLength(0);
  });
});
