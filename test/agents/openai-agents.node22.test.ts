/**
 * mcp-host/openai-agents end to end: an OpenAI Agents JS `Agent` (`@openai/agents`, on openai 7,
 * which needs Node 22) given the host's tools over the official everything server, run by a
 * `Runner` whose OpenAI client points at a fake Responses API server on 127.0.0.1 (the SDK's
 * default API), tracing off so nothing leaves the machine. The model asks for two tools in
 * parallel (text and an image); the SDK runs them through the adapter; its next request carries
 * each result as a `function_call_output`, the image as an `input_image`. A call the host refuses
 * reaches the model as error text.
 */
import { Agent, OpenAIProvider, Runner } from '@openai/agents';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createAgentToolset } from '../../src/agents.js';
import { openaiAgentsTools } from '../../src/openai-agents.js';
import { EVERYTHING, startAgentWorld, type AgentWorld } from '../helpers/everything-agent-host.js';
import type { ModelRequest } from '../helpers/fake-model-server.js';

/** A Responses API response: the assistant's text, or its function calls. */
function response(
  id: string,
  reply: { text: string } | { calls: Array<{ id: string; name: string; arguments: string }> },
) {
  const output =
    'text' in reply
      ? [
          {
            type: 'message',
            id: `msg_${id}`,
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: reply.text, annotations: [] }],
          },
        ]
      : reply.calls.map((call) => ({
          type: 'function_call',
          id: `fc_${call.id}`,
          call_id: call.id,
          name: call.name,
          arguments: call.arguments,
          status: 'completed',
        }));
  return {
    json: {
      id: `resp_${id}`,
      object: 'response',
      created_at: 1,
      status: 'completed',
      model: 'gpt-4o-mini',
      output,
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: [],
      usage: {
        input_tokens: 1,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 1,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 2,
      },
    },
  };
}

async function runAgent(world: AgentWorld, prompt: string): Promise<unknown> {
  const runner = new Runner({
    tracingDisabled: true,
    modelProvider: new OpenAIProvider({
      openAIClient: new OpenAI({
        apiKey: 'test-key',
        baseURL: `${world.model.url}/v1`,
        maxRetries: 0,
      }),
    }),
  });
  const agent = new Agent({
    name: 'assistant',
    instructions: 'Use the tools.',
    model: 'gpt-4o-mini',
    tools: openaiAgentsTools(world.host),
  });
  const result = await runner.run(agent, prompt, { maxTurns: 4 });
  return result.finalOutput;
}

/** The parts of a Responses API request body the tests read. */
interface ResponsesRequestBody {
  tools: Array<{ type: string; name: string; parameters: unknown; strict: boolean }>;
  input: Array<{ type?: string; call_id?: string; output?: unknown }>;
}

const body = (request: ModelRequest | undefined) =>
  request?.body as unknown as ResponsesRequestBody;

describe('mcp-host/openai-agents with an Agent and the Responses API', () => {
  it('runs two tool calls in parallel and gives the model each result, the image as an image', async () => {
    await using world = await startAgentWorld();
    world.model.reply(
      response('1', {
        calls: [
          { id: 'call_echo', name: EVERYTHING.echo, arguments: '{"message":"hello"}' },
          { id: 'call_image', name: EVERYTHING.image, arguments: '{}' },
        ],
      }),
      response('2', { text: 'I echoed hello and saw a tiny image.' }),
    );
    expect(await runAgent(world, 'Echo hello and show me the tiny image.')).toBe(
      'I echoed hello and saw a tiny image.',
    );
    expect(world.model.requests.map((r) => r.path)).toEqual(['/v1/responses', '/v1/responses']);

    // Turn 1: the SDK accepted the tools and sent them under our names, with our schema.
    const offered = body(world.model.requests[0]).tools;
    // Strict or not, as the tool set decided for the default provider (the normaliser's call).
    const core = createAgentToolset(world.host, { provider: 'openai-strict' });
    expect(offered.find((t) => t.name === EVERYTHING.echo)).toMatchObject({
      type: 'function',
      name: EVERYTHING.echo,
      strict: core.get(EVERYTHING.echo)?.strict,
      parameters: {
        type: 'object',
        properties: { message: { type: 'string' } },
        required: ['message'],
      },
    });
    expect(offered.map((t) => t.name)).toContain(EVERYTHING.image);

    // Turn 2: each result as a function_call_output, the image as an input_image.
    const outputs = body(world.model.requests[1]).input.filter(
      (item) => item.type === 'function_call_output',
    );
    expect(outputs).toEqual([
      expect.objectContaining({ call_id: 'call_echo', output: 'Echo: hello' }),
      expect.objectContaining({
        call_id: 'call_image',
        output: expect.arrayContaining([
          expect.objectContaining({
            type: 'input_image',
            image_url: expect.stringMatching(/^data:image\/png;base64,iVBORw0KGgo/),
          }),
        ]),
      }),
    ]);
    expect(
      world.calls
        .filter((e) => e.phase === 'completed')
        .map((e) => e.originalName)
        .sort(),
    ).toEqual(['echo', 'get-tiny-image']);
  });

  it('gives the model a call the host refuses as error text, and asks it again', async () => {
    await using world = await startAgentWorld();
    world.model.reply(
      response('1', { calls: [{ id: 'call_env', name: EVERYTHING.env, arguments: '{}' }] }),
      response('2', { text: 'I may not read the environment.' }),
    );
    expect(await runAgent(world, 'What is in the environment?')).toBe(
      'I may not read the environment.',
    );
    const refused = body(world.model.requests[1]).input.find(
      (item) => item.type === 'function_call_output',
    );
    expect(refused).toMatchObject({ call_id: 'call_env' });
    expect(refused?.output).toMatch(/^Error: .*approval hook/);
    expect(
      world.calls.filter((e) => e.phase !== 'started').map((e) => [e.originalName, e.outcome]),
    ).toEqual([['get-env', 'TOOL_DENIED']]);
  });
});
