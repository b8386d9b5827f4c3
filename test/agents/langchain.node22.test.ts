/**
 * mcp-host/langchain end to end: LangChain's ChatOpenAI (`@langchain/openai`, whose openai client
 * needs Node 22) bound to the host's tools over the official everything server, against a fake
 * Chat Completions server on 127.0.0.1. The model asks for two tools in parallel (text and an
 * image); a minimal agent loop runs them through the adapter and feeds the ToolMessages back;
 * the next request carries each result in Chat Completions form, the image as an `image_url`
 * part. A call the host refuses reaches the model as an error result.
 */
import { HumanMessage, type AIMessage, type BaseMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { describe, expect, it } from 'vitest';
import { langchainTools } from '../../src/langchain.js';
import { EVERYTHING, startAgentWorld, type AgentWorld } from '../helpers/everything-agent-host.js';
import type { ModelRequest } from '../helpers/fake-model-server.js';

/** A Chat Completions response: the assistant's text, or its tool calls. */
function completion(
  id: string,
  reply: { text: string } | { calls: Array<{ id: string; name: string; arguments: string }> },
) {
  const message =
    'text' in reply
      ? { role: 'assistant', content: reply.text }
      : {
          role: 'assistant',
          content: null,
          tool_calls: reply.calls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.arguments },
          })),
        };
  return {
    json: {
      id,
      object: 'chat.completion',
      created: 1,
      model: 'gpt-4o-mini',
      choices: [
        {
          index: 0,
          message,
          finish_reason: 'text' in reply ? 'stop' : 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    },
  };
}

/** The minimal agent loop: ask, run every tool call through the tools, ask again, until text. */
async function runAgent(world: AgentWorld, prompt: string): Promise<AIMessage> {
  const tools = langchainTools(world.host);
  const model = new ChatOpenAI({
    model: 'gpt-4o-mini',
    apiKey: 'test-key',
    maxRetries: 0,
    configuration: { baseURL: `${world.model.url}/v1` },
  }).bindTools(tools);
  const messages: BaseMessage[] = [new HumanMessage(prompt)];
  for (let turn = 0; turn < 4; turn++) {
    const reply = await model.invoke(messages);
    messages.push(reply);
    if (reply.tool_calls === undefined || reply.tool_calls.length === 0) return reply;
    const results = await Promise.all(
      reply.tool_calls.map((call) => {
        const tool = tools.find((t) => t.name === call.name);
        if (tool === undefined) throw new Error(`the model called an unknown tool ${call.name}`);
        return tool.invoke({ ...call, type: 'tool_call' as const });
      }),
    );
    messages.push(...results);
  }
  throw new Error('the agent did not finish in 4 turns');
}

/** The parts of a Chat Completions request body the tests read. */
interface ChatRequestBody {
  tools: Array<{ type: string; function: { name: string; parameters: unknown } }>;
  messages: Array<{ role: string; tool_call_id?: string; content?: unknown }>;
}

const body = (request: ModelRequest | undefined) => request?.body as unknown as ChatRequestBody;

describe('mcp-host/langchain with ChatOpenAI', () => {
  it('runs two tool calls in parallel and gives the model each result, the image as an image', async () => {
    await using world = await startAgentWorld();
    world.model.reply(
      completion('c1', {
        calls: [
          { id: 'call_echo', name: EVERYTHING.echo, arguments: '{"message":"hello"}' },
          { id: 'call_image', name: EVERYTHING.image, arguments: '{}' },
        ],
      }),
      completion('c2', { text: 'I echoed hello and saw a tiny image.' }),
    );
    const answer = await runAgent(world, 'Echo hello and show me the tiny image.');
    expect(answer.content).toBe('I echoed hello and saw a tiny image.');
    expect(world.model.requests.map((r) => r.path)).toEqual([
      '/v1/chat/completions',
      '/v1/chat/completions',
    ]);

    // Turn 1: ChatOpenAI accepted the tools and sent them with our schema.
    const offered = body(world.model.requests[0]).tools;
    const echo = offered.find((t) => t.function.name === EVERYTHING.echo);
    expect(echo).toMatchObject({
      type: 'function',
      function: {
        name: EVERYTHING.echo,
        parameters: {
          type: 'object',
          properties: { message: { type: 'string' } },
          required: ['message'],
        },
      },
    });
    expect(offered.map((t) => t.function.name)).toContain(EVERYTHING.image);

    // Turn 2: each result as a tool message, the image as a native image part.
    const messages = body(world.model.requests[1]).messages;
    expect(messages[1]).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'call_echo' }, { id: 'call_image' }],
    });
    const toolMessages = messages.filter((m) => m.role === 'tool');
    expect(toolMessages).toMatchObject([
      {
        role: 'tool',
        tool_call_id: 'call_echo',
        name: EVERYTHING.echo,
        content: 'Echo: hello',
      },
      {
        role: 'tool',
        tool_call_id: 'call_image',
        content: expect.arrayContaining([
          {
            type: 'image_url',
            image_url: { url: expect.stringMatching(/^data:image\/png;base64,iVBORw0KGgo/) },
          },
        ]),
      },
    ]);
    expect(JSON.stringify(toolMessages[1]?.content)).not.toMatch(/"text":"[^"]*iVBORw0KGgo/);

    // The host ran both calls.
    expect(
      world.calls
        .filter((e) => e.phase === 'completed')
        .map((e) => e.originalName)
        .sort(),
    ).toEqual(['echo', 'get-tiny-image']);
  });

  it('gives the model a call the host refuses as an error result, and asks it again', async () => {
    await using world = await startAgentWorld();
    world.model.reply(
      completion('c1', {
        calls: [{ id: 'call_env', name: EVERYTHING.env, arguments: '{}' }],
      }),
      completion('c2', { text: 'I may not read the environment.' }),
    );
    const answer = await runAgent(world, 'What is in the environment?');
    expect(answer.content).toBe('I may not read the environment.');
    const messages = body(world.model.requests[1]).messages;
    const refused = messages.find((m) => m.role === 'tool');
    expect(refused?.tool_call_id).toBe('call_env');
    expect(refused?.content).toMatch(/^Error: .*approval hook/);
    expect(
      world.calls.filter((e) => e.phase !== 'started').map((e) => [e.originalName, e.outcome]),
    ).toEqual([['get-env', 'TOOL_DENIED']]);
  });
});
