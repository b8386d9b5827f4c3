/**
 * The agent loop end to end through the OpenAI-compatible (Chat Completions), Anthropic and Gemini
 * model clients, built with the library's builder: a fake model server on
 * 127.0.0.1 streams each provider's real event shapes, the agent lists a sandbox through the
 * official filesystem server, and the second request carries the listing back in the provider's
 * tool-result form, from which the fake model answers.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  agent,
  anthropicModel,
  geminiModel,
  openaiChatModel,
  type AgentEvent,
  type ModelClient,
} from '../../src/agent.js';
import { startFakeModelServer, type SseReply } from '../helpers/fake-model-server.js';
import {
  anthropicText,
  anthropicToolUses,
  chatChunk,
  geminiFunctionCalls,
  geminiText,
} from '../helpers/model-wire.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { tempFiles } from '../helpers/scratch.js';

const require = createRequire(import.meta.url);
const filesystem = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

type Body = Record<string, unknown>;

interface Provider {
  name: string;
  make(url: string): ModelClient;
  /** The exposed name of the listing tool, from the tools the first request offers. */
  listTool(body: Body): string;
  /** Turn 1: one call of `tool` with `args`, under the id `callId`. */
  call(tool: string, args: Record<string, unknown>, callId: string): SseReply;
  /** Turn 2: the text of the tool result the request carries back. */
  resultText(body: Body): string;
  answer(text: string): SseReply;
  /** Asserts the second request's last turn: the call answered in the provider's form. */
  checkResult(body: Body, tool: string, callId: string): void;
}

function listing(names: readonly string[]): string {
  const name = names.find((n) => n.endsWith('list_directory'));
  if (name === undefined) throw new Error(`no listing tool among ${names.join(', ')}`);
  return name;
}

type Blocks = Array<Record<string, unknown>>;

function lastOf<T>(items: unknown): T {
  return (items as T[]).at(-1)!;
}

/** A Chat Completions stream: `deltas`, then the finish and the usage chunk. */
function chatStream(
  deltas: ReadonlyArray<Record<string, unknown>>,
  finish: string,
  usage: { prompt_tokens: number; completion_tokens: number },
): SseReply {
  return {
    sse: [
      ...deltas.map((delta) => chatChunk(delta)),
      chatChunk({}, finish),
      { data: { choices: [], usage } },
      { data: '[DONE]' },
    ],
  };
}

const providers: Provider[] = [
  {
    name: 'openai-compatible',
    make: (url) => openaiChatModel({ model: 'local', baseUrl: `${url}/v1` }),
    listTool: (body) =>
      listing((body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)),
    call: (tool, args, callId) =>
      chatStream(
        [
          {
            role: 'assistant',
            tool_calls: [
              {
                index: 0,
                id: callId,
                type: 'function',
                function: { name: tool, arguments: JSON.stringify(args) },
              },
            ],
          },
        ],
        'tool_calls',
        { prompt_tokens: 5, completion_tokens: 9 },
      ),
    resultText: (body) => String(lastOf<{ content: unknown }>(body.messages).content),
    answer: (text) =>
      chatStream(
        [{ role: 'assistant', content: text.slice(0, 20) }, { content: text.slice(20) }],
        'stop',
        { prompt_tokens: 11, completion_tokens: 2 },
      ),
    checkResult(body, tool, callId) {
      const messages = body.messages as Array<Record<string, unknown>>;
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
      expect(messages[1]!.tool_calls).toEqual([
        { id: callId, type: 'function', function: { name: tool, arguments: expect.any(String) } },
      ]);
      expect(messages[2]).toMatchObject({ role: 'tool', tool_call_id: callId });
    },
  },
  {
    name: 'anthropic',
    make: (url) => anthropicModel({ model: 'claude-test', baseUrl: `${url}/v1`, apiKey: 'test' }),
    listTool: (body) => listing((body.tools as Array<{ name: string }>).map((t) => t.name)),
    call: (tool, args, callId) =>
      anthropicToolUses([{ id: callId, name: tool, json: [JSON.stringify(args)] }]),
    resultText(body) {
      const message = lastOf<{ role: string; content: Blocks }>(body.messages);
      const result = message.content.find((block) => block.type === 'tool_result')!;
      const content = result.content as string | Blocks;
      return typeof content === 'string'
        ? content
        : content.map((block) => String(block.text)).join('');
    },
    answer: (text) => anthropicText([text.slice(0, 20), text.slice(20)]),
    checkResult(body, tool, callId) {
      const messages = body.messages as Array<{ role: string; content: Blocks }>;
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(messages[1]!.content).toEqual([
        { type: 'tool_use', id: callId, name: tool, input: expect.any(Object) as unknown },
      ]);
      expect(messages[2]!.content).toEqual([
        { type: 'tool_result', tool_use_id: callId, content: expect.anything() as unknown },
      ]);
    },
  },
  {
    name: 'gemini',
    make: (url) => geminiModel({ model: 'gemini-test', baseUrl: `${url}/v1beta`, apiKey: 'test' }),
    listTool(body) {
      const [tools] = body.tools as Array<{ functionDeclarations: Array<{ name: string }> }>;
      return listing(tools!.functionDeclarations.map((t) => t.name));
    },
    call: (tool, args, callId) =>
      geminiFunctionCalls([{ name: tool, args, id: callId }], { input: 5, output: 9 }),
    resultText(body) {
      const turn = lastOf<{ parts: Blocks }>(body.contents);
      const reply = turn.parts[0]!.functionResponse as { response: { output: string } };
      return reply.response.output;
    },
    answer: (text) => geminiText([text.slice(0, 20), text.slice(20)]),
    checkResult(body, tool, callId) {
      const contents = body.contents as Array<{ role: string; parts: Blocks }>;
      expect(contents.map((c) => c.role)).toEqual(['user', 'model', 'user']);
      expect(contents[1]!.parts).toEqual([
        { functionCall: { name: tool, id: callId, args: expect.any(Object) as unknown } },
      ]);
      expect(contents[2]!.parts).toEqual([
        {
          functionResponse: {
            name: tool,
            id: callId,
            response: { output: expect.any(String) as unknown },
          },
        },
      ]);
    },
  },
];

describe.each(providers)('the agent loop over the $name wire', (provider) => {
  it('drives one listing call through the official filesystem server and answers from its result', async () => {
    await using _guard = leakGuard();
    using dir = tempFiles({ 'alpha.txt': 'a', 'beta.md': 'b' });
    const root = dir.path;
    await using fake = await startFakeModelServer();
    const callId = `${provider.name}-call-1`;
    let tool = '';
    fake.reply(
      (request) => {
        tool = provider.listTool(request.body!);
        return provider.call(tool, { path: root }, callId);
      },
      (request) => provider.answer(`The sandbox holds:\n${provider.resultText(request.body!)}`),
    );
    await using bot = agent()
      .model(provider.make(fake.url))
      .stdio('fs', process.execPath, [filesystem, root])
      .maxSteps(5)
      .build();
    const events: AgentEvent[] = [];
    for await (const event of bot.stream(`List the files in ${root}`)) events.push(event);

    expect(fake.requests).toHaveLength(2);
    expect(fake.pending).toBe(0);
    const second = fake.requests[1]!.body!;
    provider.checkResult(second, tool, callId);
    const seen = provider.resultText(second);
    expect(seen).toContain('alpha.txt');
    expect(seen).toContain('beta.md');

    const answer = `The sandbox holds:\n${seen}`;
    expect(events).toEqual([
      { type: 'step-start', step: 1 },
      { type: 'tool-call-started', step: 1, id: callId, name: tool, args: { path: root } },
      {
        type: 'tool-call-finished',
        step: 1,
        id: callId,
        name: tool,
        result: expect.objectContaining({ isError: false, text: seen }) as unknown,
        durationMs: expect.any(Number) as unknown,
      },
      { type: 'step-start', step: 2 },
      { type: 'text-delta', step: 2, text: answer.slice(0, 20) },
      { type: 'text-delta', step: 2, text: answer.slice(20) },
      {
        type: 'done',
        result: expect.objectContaining({
          text: answer,
          stopReason: 'final',
          steps: 2,
          usage: { inputTokens: 16, outputTokens: 11 },
        }) as unknown,
      },
    ]);
  });
});
