/**
 * mcp-host/anthropic end to end: the real `@anthropic-ai/sdk` client drives a scripted model on
 * 127.0.0.1 (Messages wire format), the test's loop answers its `tool_use` blocks through
 * `anthropicTools`, over an McpHost connected to the official "everything" server over stdio.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { anthropicTools, type AnthropicTools } from '../../src/anthropic.js';
import type { ToolCallEvent } from '../../src/index.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model-server.js';
import { everythingHost } from '../helpers/everything-agent-host.js';
import { leakGuard } from '../helpers/leak-guard.js';

const PNG_SIGNATURE = '89504e470d0a1a0a';

/** A Messages API response (non-streaming) with these content blocks. */
function message(id: string, content: unknown[], stopReason: 'tool_use' | 'end_turn') {
  return {
    json: {
      id,
      type: 'message',
      role: 'assistant',
      model: 'fake-claude',
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 10 },
    },
  };
}

const toolUse = (id: string, name: string, input: object) => ({
  type: 'tool_use',
  id,
  name,
  input,
});

/** The agent loop a user writes with the plain SDK: ask, run the tool uses, repeat. */
async function run(model: FakeModelServer, tools: AnthropicTools): Promise<MessageParam[]> {
  const client = new Anthropic({ baseURL: model.url, apiKey: 'test-key', maxRetries: 0 });
  const messages: MessageParam[] = [{ role: 'user', content: 'echo hi, and show me an image' }];
  for (let turn = 0; turn < 5; turn++) {
    const response = await client.messages.create({
      model: 'fake-claude',
      max_tokens: 256,
      messages,
      tools: tools.tools,
    });
    messages.push({ role: 'assistant', content: response.content });
    if (response.stop_reason !== 'tool_use') return messages;
    messages.push({ role: 'user', content: await tools.callAll(response.content) });
  }
  throw new Error('the model did not finish');
}

describe('mcp-host/anthropic with @anthropic-ai/sdk', () => {
  it('runs two parallel tool uses (text and image) through the host; results reach the model natively', async () => {
    await using _guard = leakGuard();
    await using host = await everythingHost();
    await using model = await startFakeModelServer();
    const events: ToolCallEvent[] = [];
    host.onToolCall((event) => events.push(event));
    const tools = anthropicTools(host);
    model.reply(
      message(
        'msg_1',
        [
          { type: 'text', text: 'Calling both.' },
          toolUse('toolu_1', 'mcp__everything__echo', { message: 'hi' }),
          toolUse('toolu_2', 'mcp__everything__get-tiny-image', {}),
        ],
        'tool_use',
      ),
      message('msg_2', [{ type: 'text', text: 'Done: hi, and a tiny image.' }], 'end_turn'),
    );

    const messages = await run(model, tools);

    expect(model.requests.map((r) => r.path)).toEqual(['/v1/messages', '/v1/messages']);
    // Turn 1: the SDK sent our tools, each with our schema.
    const sent = model.requests[0]!.body!.tools as Array<Record<string, unknown>>;
    expect(sent.map((t) => t.name)).toEqual(tools.toolset.tools.map((t) => t.name));
    const echo = sent.find((t) => t.name === 'mcp__everything__echo');
    expect(echo).toEqual({
      name: 'mcp__everything__echo',
      description: tools.toolset.get('mcp__everything__echo')!.description,
      input_schema: tools.toolset.get('mcp__everything__echo')!.inputSchema,
    });
    expect(echo?.input_schema).toMatchObject({ properties: { message: { type: 'string' } } });

    // Turn 2: one user message with both results, in order, the image as an image block.
    const turn2 = model.requests[1]!.body!.messages as Array<{ role: string; content: unknown }>;
    expect(turn2).toHaveLength(3);
    expect(turn2[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'Echo: hi' },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_2',
          content: [
            { type: 'text', text: expect.any(String) },
            {
              type: 'image',
              source: { type: 'base64', media_type: 'image/png', data: expect.any(String) },
            },
            { type: 'text', text: expect.any(String) },
          ],
        },
      ],
    });
    const [, imageResult] = turn2[2]!.content as Array<{
      content: Array<{ source?: { data: string } }>;
    }>;
    const image = imageResult!.content[1]!.source!.data;
    expect(Buffer.from(image, 'base64').subarray(0, 8).toString('hex')).toBe(PNG_SIGNATURE);

    expect(messages.at(-1)).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: 'Done: hi, and a tiny image.' }],
    });
    // In parallel: both calls started before either finished.
    expect(events.map((e) => e.phase).slice(0, 2)).toEqual(['started', 'started']);
    expect(host.metrics().servers.everything?.calls).toBe(2);
    expect(model.pending).toBe(0);
  });

  it('a refused call and a tool outside the set reach the model as is_error results', async () => {
    await using _guard = leakGuard();
    const events: ToolCallEvent[] = [];
    await using host = await everythingHost({
      permissions: { assistant: { block: ['*get-env'] } },
      approve: ({ tool }) => tool.originalName !== 'get-sum',
    });
    host.onToolCall((event) => events.push(event));
    await using model = await startFakeModelServer();
    const tools = anthropicTools(host, { context: { agent: 'assistant' } });
    expect(tools.toolset.get('mcp__everything__get-env')).toBeUndefined();
    model.reply(
      message(
        'msg_1',
        [
          toolUse('toolu_1', 'mcp__everything__get-sum', { a: 1, b: 2 }),
          toolUse('toolu_2', 'mcp__everything__get-env', {}),
        ],
        'tool_use',
      ),
      message('msg_2', [{ type: 'text', text: 'I may not do that.' }], 'end_turn'),
    );

    await run(model, tools);

    const turn2 = model.requests[1]!.body!.messages as Array<{ role: string; content: unknown }>;
    expect(turn2[2]).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: expect.stringMatching(/^Error: .*get-sum/),
          is_error: true,
        },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_2',
          content: expect.stringMatching(/^Error: no tool is named 'mcp__everything__get-env'/),
          is_error: true,
        },
      ],
    });
    // The host saw (and refused) the call it was asked to make; the other never reached it.
    expect(events.map((e) => [e.phase, e.originalName, e.agent, e.outcome])).toEqual([
      ['started', 'get-sum', 'assistant', undefined],
      ['failed', 'get-sum', 'assistant', 'TOOL_DENIED'],
    ]);
  });
});
