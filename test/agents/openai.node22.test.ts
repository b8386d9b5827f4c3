/**
 * mcp-host/openai end to end: the real `openai` client (7, which needs Node 22, hence this file's
 * name) drives a scripted model on 127.0.0.1, through Chat Completions and through the Responses
 * API; the test's loop answers its tool calls through `openaiChatTools` / `openaiResponsesTools`,
 * over an McpHost connected to the official "everything" server over stdio.
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import type { ToolCallEvent } from '../../src/index.js';
import { openaiChatTools, openaiResponsesTools } from '../../src/openai.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model-server.js';
import { everythingHost } from '../helpers/everything-agent-host.js';
import { leakGuard } from '../helpers/leak-guard.js';

const PNG_DATA_URL = /^data:image\/png;base64,iVBORw0KGgo/;

function client(model: FakeModelServer): OpenAI {
  return new OpenAI({ apiKey: 'test-key', baseURL: `${model.url}/v1`, maxRetries: 0 });
}

/** A Chat Completions response whose one choice is `message`. */
function completion(id: string, message: Record<string, unknown>, finishReason: string) {
  return {
    json: {
      id,
      object: 'chat.completion',
      created: 1,
      model: 'fake-gpt',
      choices: [
        { index: 0, finish_reason: finishReason, message: { role: 'assistant', ...message } },
      ],
    },
  };
}

const toolCall = (id: string, name: string, args: object) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

/** The loop a user writes with the plain SDK: ask, answer the tool calls, repeat. */
async function chatRun(
  model: FakeModelServer,
  chat: ReturnType<typeof openaiChatTools>,
): Promise<ChatCompletionMessageParam[]> {
  const openai = client(model);
  const messages: ChatCompletionMessageParam[] = [
    { role: 'user', content: 'echo hi, and show me an image' },
  ];
  for (let turn = 0; turn < 5; turn++) {
    const response = await openai.chat.completions.create({
      model: 'fake-gpt',
      messages,
      tools: chat.tools,
    });
    const message = response.choices[0]!.message;
    messages.push(message);
    if (message.tool_calls === undefined || message.tool_calls.length === 0) return messages;
    messages.push(...(await chat.callAll(message.tool_calls)));
  }
  throw new Error('the model did not finish');
}

/** A Responses API response with these output items. */
function response(id: string, output: unknown[]) {
  return {
    json: {
      id,
      object: 'response',
      created_at: 1,
      status: 'completed',
      model: 'fake-gpt',
      output,
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: [],
      error: null,
      incomplete_details: null,
      instructions: null,
      metadata: {},
      temperature: 1,
      top_p: 1,
    },
  };
}

describe('mcp-host/openai with openai 7', () => {
  it('Chat Completions: two parallel calls (text and image); the image follows as image_url', async () => {
    await using _guard = leakGuard();
    await using host = await everythingHost();
    await using model = await startFakeModelServer();
    const events: ToolCallEvent[] = [];
    host.onToolCall((event) => events.push(event));
    const chat = openaiChatTools(host);
    model.reply(
      completion(
        'c1',
        {
          content: null,
          tool_calls: [
            toolCall('call_1', 'mcp__everything__echo', { message: 'hi' }),
            toolCall('call_2', 'mcp__everything__get-tiny-image', {}),
          ],
        },
        'tool_calls',
      ),
      completion('c2', { content: 'Done: hi, and a tiny image.' }, 'stop'),
    );

    const messages = await chatRun(model, chat);

    expect(model.requests.map((r) => r.path)).toEqual([
      '/v1/chat/completions',
      '/v1/chat/completions',
    ]);
    // Turn 1: the SDK sent our function tools, with our schema and strictness.
    const sent = model.requests[0]!.body!.tools as Array<{ function: { name: string } }>;
    expect(sent.map((t) => t.function.name)).toEqual(chat.toolset.tools.map((t) => t.name));
    const echo = chat.toolset.get('mcp__everything__echo')!;
    expect(sent.find((t) => t.function.name === echo.name)).toEqual({
      type: 'function',
      function: {
        name: echo.name,
        description: echo.description,
        parameters: echo.inputSchema,
        strict: echo.strict,
      },
    });

    // Turn 2: a tool message per call, in order, then the image in a user message.
    const turn2 = model.requests[1]!.body!.messages as Array<Record<string, unknown>>;
    expect(turn2.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
    expect(turn2[2]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'Echo: hi' });
    expect(turn2[3]).toEqual({
      role: 'tool',
      tool_call_id: 'call_2',
      content: expect.stringContaining(
        "an attachment follows in the next user message, under this call's id call_2",
      ),
    });
    expect(turn2[4]).toEqual({
      role: 'user',
      content: [
        {
          type: 'text',
          text: 'Attachments of tool call call_2 (mcp__everything__get-tiny-image):',
        },
        { type: 'image_url', image_url: { url: expect.stringMatching(PNG_DATA_URL) } },
      ],
    });
    expect(messages.at(-1)).toMatchObject({
      role: 'assistant',
      content: 'Done: hi, and a tiny image.',
    });
    // In parallel: both calls started before either finished.
    expect(events.map((e) => e.phase).slice(0, 2)).toEqual(['started', 'started']);
    expect(host.metrics().servers.everything?.calls).toBe(2);
  });

  it('Responses: two parallel calls; the image comes back as an input_image part', async () => {
    await using _guard = leakGuard();
    await using host = await everythingHost();
    await using model = await startFakeModelServer();
    const tools = openaiResponsesTools(host);
    model.reply(
      response('resp_1', [
        {
          type: 'function_call',
          id: 'fc_1',
          call_id: 'call_1',
          name: 'mcp__everything__echo',
          arguments: '{"message":"hi"}',
          status: 'completed',
        },
        {
          type: 'function_call',
          id: 'fc_2',
          call_id: 'call_2',
          name: 'mcp__everything__get-tiny-image',
          arguments: '{}',
          status: 'completed',
        },
      ]),
      response('resp_2', [
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Done.', annotations: [] }],
        },
      ]),
    );

    const openai = client(model);
    let result = await openai.responses.create({
      model: 'fake-gpt',
      input: 'echo hi, and show me an image',
      tools: tools.tools,
    });
    for (let turn = 0; turn < 5; turn++) {
      const outputs = await tools.callAll(result.output);
      if (outputs.length === 0) break;
      result = await openai.responses.create({
        model: 'fake-gpt',
        previous_response_id: result.id,
        input: outputs,
        tools: tools.tools,
      });
    }
    expect(result.output_text).toBe('Done.');

    expect(model.requests.map((r) => r.path)).toEqual(['/v1/responses', '/v1/responses']);
    const sent = model.requests[0]!.body!.tools as Array<{ name: string }>;
    const echo = tools.toolset.get('mcp__everything__echo')!;
    expect(sent.map((t) => t.name)).toEqual(tools.toolset.tools.map((t) => t.name));
    expect(sent.find((t) => t.name === echo.name)).toEqual({
      type: 'function',
      name: echo.name,
      description: echo.description,
      parameters: echo.inputSchema,
      strict: echo.strict,
    });
    expect(model.requests[1]!.body).toMatchObject({
      previous_response_id: 'resp_1',
      input: [
        { type: 'function_call_output', call_id: 'call_1', output: 'Echo: hi' },
        {
          type: 'function_call_output',
          call_id: 'call_2',
          output: [
            { type: 'input_text', text: expect.any(String) },
            { type: 'input_image', image_url: expect.stringMatching(PNG_DATA_URL) },
            { type: 'input_text', text: expect.any(String) },
          ],
        },
      ],
    });
    expect(host.metrics().servers.everything?.calls).toBe(2);
  });

  it('a refused call and a tool outside the set reach the model as error tool messages', async () => {
    await using _guard = leakGuard();
    const events: ToolCallEvent[] = [];
    await using host = await everythingHost({
      permissions: { assistant: { block: ['*get-env'] } },
      approve: ({ tool }) => tool.originalName !== 'get-sum',
    });
    host.onToolCall((event) => events.push(event));
    await using model = await startFakeModelServer();
    const chat = openaiChatTools(host, { context: { agent: 'assistant' } });
    expect(chat.toolset.get('mcp__everything__get-env')).toBeUndefined();
    model.reply(
      completion(
        'c1',
        {
          content: null,
          tool_calls: [
            toolCall('call_1', 'mcp__everything__get-sum', { a: 1, b: 2 }),
            toolCall('call_2', 'mcp__everything__get-env', {}),
          ],
        },
        'tool_calls',
      ),
      completion('c2', { content: 'I may not do that.' }, 'stop'),
    );

    await chatRun(model, chat);

    const turn2 = model.requests[1]!.body!.messages as Array<Record<string, unknown>>;
    expect(turn2.slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: expect.stringMatching(/^Error: .*get-sum/) },
      {
        role: 'tool',
        tool_call_id: 'call_2',
        content: expect.stringMatching(/^Error: no tool is named 'mcp__everything__get-env'/),
      },
    ]);
    expect(events.map((e) => [e.phase, e.originalName, e.agent, e.outcome])).toEqual([
      ['started', 'get-sum', 'assistant', undefined],
      ['failed', 'get-sum', 'assistant', 'TOOL_DENIED'],
    ]);
  });
});
