/**
 * Every adapter example of docs/agents.md run as it is (against the built package, under Node 22
 * as the libraries need), with only the providers' own variables set: their base URLs point at a
 * scripted model server on 127.0.0.1 that asks for one call of the everything server's `echo`, then
 * answers. Each example must finish, print the answer, and have handed the tool's result back to
 * the model in its provider's wire format.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeBlockAfter, repoRoot, startExample } from '../helpers/doc-examples.js';
import {
  startFakeModelServer,
  type ModelReply,
  type ModelRequest,
} from '../helpers/fake-model-server.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { functionCall, message, response } from '../helpers/responses-e2e.js';

const docs = readFileSync(join(repoRoot, 'docs/agents.md'), 'utf8');
const ECHO = 'mcp__everything__echo';
const ANSWER = 'All done: the server said hello.';

/** Has the conversation in `body` come back with a tool result yet? */
function hasToolResult(request: ModelRequest): boolean {
  const text = JSON.stringify(request.body ?? {});
  return (
    text.includes('"role":"tool"') ||
    text.includes('"function_call_output"') ||
    text.includes('"tool_result"')
  );
}

/** One scripted turn in the wire format of the request's path: call `echo` first, then answer. */
const turn: ModelReply = (request) => {
  if (request.body?.stream === true) throw new Error(`${request.path}: a streaming request`);
  const done = hasToolResult(request);
  if (request.path.endsWith('/chat/completions')) {
    const assistant = done
      ? { role: 'assistant', content: ANSWER }
      : {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: ECHO, arguments: '{"message":"hello"}' },
            },
          ],
        };
    return {
      json: {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'fake-model',
        choices: [{ index: 0, finish_reason: done ? 'stop' : 'tool_calls', message: assistant }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      },
    };
  }
  if (request.path.endsWith('/responses'))
    return response('resp_1', [
      done ? message(ANSWER) : functionCall('call_1', ECHO, { message: 'hello' }),
    ]);
  if (request.path.endsWith('/messages'))
    return {
      json: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'fake-claude',
        content: done
          ? [{ type: 'text', text: ANSWER }]
          : [{ type: 'tool_use', id: 'toolu_1', name: ECHO, input: { message: 'hello' } }],
        stop_reason: done ? 'end_turn' : 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 5 },
      },
    };
  throw new Error(`no scripted reply for ${request.path}`);
};

const examples: Array<[string, string, number]> = [
  ['OpenAI Chat Completions', '### Chat Completions', 0],
  ['OpenAI Responses', '### Responses API', 0],
  ['Anthropic', '## Anthropic: `mcp-host/anthropic`', 0],
  ['Vercel AI SDK', '## Vercel AI SDK: `mcp-host/ai-sdk`', 0],
  ['LangChain', '## LangChain: `mcp-host/langchain`', 0],
  ['OpenAI Agents JS', '## OpenAI Agents JS: `mcp-host/openai-agents`', 0],
  ['Mastra', '## Mastra: `mcp-host/mastra`', 0],
];

describe('docs/agents.md: the examples', () => {
  it('the tool set prints what the document says', async () => {
    await using _guard = leakGuard();
    await using example = startExample(codeBlockAfter(docs, '## The tool set: `mcp-host/agents`'));
    const done = await example.exit;
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(done.stdout).toBe(codeBlockAfter(docs, '## The tool set: `mcp-host/agents`', 0, 'text'));
  });

  it.each(examples)(
    '%s: a tool call through the host and back to the model',
    async (_name, heading, index) => {
      await using _guard = leakGuard();
      await using model = await startFakeModelServer();
      model.reply(turn, turn);
      await using example = startExample(codeBlockAfter(docs, heading, index), {
        OPENAI_BASE_URL: `${model.url}/v1`,
        OPENAI_API_KEY: 'sk-test-docs',
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: 'sk-ant-test-docs',
      });
      const done = await example.exit;
      expect(done.stderr, done.stdout).toBe('');
      expect(done.code).toBe(0);
      expect(done.stdout).toContain(ANSWER);
      expect(model.requests).toHaveLength(2);
      // The first request offers the tool, the second carries what the server answered.
      expect(JSON.stringify(model.requests[0]!.body)).toContain(ECHO);
      expect(JSON.stringify(model.requests[1]!.body)).toContain('Echo: hello');
    },
  );
});
