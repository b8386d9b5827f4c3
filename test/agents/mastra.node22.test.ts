/**
 * mcp-host/mastra end to end: a real Mastra `Agent` (`@mastra/core` 1) with an `@ai-sdk/openai`
 * model (the Responses API, the provider's default) talking to the fake model server runs the
 * tools of an McpHost over the official everything server (stdio) through `mastraTools`. Turn 1
 * the model calls two tools at once (text and image results); turn 2's request is checked to carry
 * each result as a Responses `function_call_output`, the image as a native `input_image`.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { Agent } from '@mastra/core/agent';
import type { MastraModelConfig } from '@mastra/core/llm';
import { describe, expect, it } from 'vitest';
import { createAgentToolset, type ModelToolResult } from '../../src/agents.js';
import type { ToolCallEvent } from '../../src/index.js';
import { mastraTools } from '../../src/mastra.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model-server.js';
import { leakGuard } from '../helpers/leak-guard.js';
import {
  functionCall,
  functionOutputs,
  message,
  offeredTools,
  response,
  responsesParts,
} from '../helpers/responses-e2e.js';
import { EVERYTHING, everythingHost } from '../helpers/everything-agent-host.js';

const { echo: ECHO, image: IMAGE, env: ENV, longRunning: LONG } = EVERYTHING;

function agentOf(server: FakeModelServer, tools: ReturnType<typeof mastraTools>): Agent {
  return new Agent({
    id: 'tester',
    name: 'tester',
    instructions: 'Use the tools you are given.',
    // Mastra 1 runs AI SDK v4-spec models; its types pin an older @ai-sdk/provider than the
    // installed @ai-sdk/openai's (a `doGenerate` result type differs), hence the cast.
    model: createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test-key' })(
      'fake-model',
    ) as unknown as MastraModelConfig,
    tools,
  });
}

describe('mcp-host/mastra with an Agent', () => {
  it('runs two parallel calls through the host and hands the model text and a native image', async () => {
    await using guard = leakGuard();
    void guard;
    await using host = await everythingHost();
    await using model = await startFakeModelServer();
    const image = await host.callTool(IMAGE, {});
    expect(image.content.some((block) => block.type === 'image')).toBe(true);

    model.reply(
      response('resp_1', [
        functionCall('call_echo', ECHO, { message: 'hello from the model' }),
        functionCall('call_image', IMAGE, {}),
      ]),
      response('resp_2', [message('I saw the echo and the image.')]),
    );
    const result = await agentOf(model, mastraTools(host)).generate(
      'Echo something and show me the tiny image.',
      { maxSteps: 2 },
    );

    expect(result.text).toBe('I saw the echo and the image.');
    expect(model.requests.map((request) => request.path)).toEqual([
      '/v1/responses',
      '/v1/responses',
    ]);
    // Turn 1: Mastra sent our tools. It rewrites schemas for the model's provider itself (for
    // OpenAI: optional properties made required and nullable), so our properties are checked.
    const offered = offeredTools(model.requests[0]?.body);
    const toolset = createAgentToolset(host, { provider: 'openai' });
    expect(offered.map((tool) => tool.name).sort()).toEqual(
      toolset.tools.map((tool) => tool.name).sort(),
    );
    const echo = toolset.get(ECHO)?.inputSchema;
    expect(offered.find((tool) => tool.name === ECHO)).toMatchObject({
      type: 'function',
      description: toolset.get(ECHO)?.description,
      parameters: { type: 'object', properties: echo?.properties, required: echo?.required },
    });
    // Turn 2: each result in the Responses API's form, the image as an input_image part.
    const outputs = functionOutputs(model.requests[1]?.body);
    expect(outputs.get('call_echo')).toBe('Echo: hello from the model');
    expect(outputs.get('call_image')).toEqual(responsesParts(image.content));
    // The caller sees the host's result of each call.
    const results = result.toolResults.map((r) => r.payload);
    expect(
      results
        .map((r) => [r.toolName, (r.result as ModelToolResult).raw?.content] as const)
        .sort(([a], [b]) => a.localeCompare(b)),
    ).toEqual([
      [ECHO, [{ type: 'text', text: 'Echo: hello from the model' }]],
      [IMAGE, image.content],
    ]);
    expect(host.metrics().tools[ECHO]?.calls).toBe(1);
    expect(host.metrics().tools[IMAGE]?.calls).toBe(2);
  });

  it('hands the model a call the host refused as an error result', async () => {
    await using guard = leakGuard();
    void guard;
    await using host = await everythingHost({
      approve: ({ tool }) => tool.originalName !== 'get-env',
    });
    const calls: ToolCallEvent[] = [];
    host.onToolCall((event) => calls.push(event));
    await using model = await startFakeModelServer();
    model.reply(
      response('resp_1', [
        functionCall('call_env', ENV, {}),
        functionCall('call_echo', ECHO, { message: 'still here' }),
      ]),
      response('resp_2', [message('The environment was refused.')]),
    );
    const result = await agentOf(model, mastraTools(host)).generate('Show me the environment.', {
      maxSteps: 2,
    });

    expect(result.text).toBe('The environment was refused.');
    // The provider sends an error output as `{"error": <text>}`.
    const outputs = functionOutputs(model.requests[1]?.body);
    const refused = JSON.parse(String(outputs.get('call_env'))) as { error: string };
    expect(refused.error).toMatch(/^Error: .*get-env.*refused/);
    expect(outputs.get('call_echo')).toBe('Echo: still here');
    const ended = calls.filter((event) => event.phase !== 'started');
    expect(ended.map((event) => [event.tool, event.outcome]).sort()).toEqual([
      [ECHO, 'ok'],
      [ENV, 'TOOL_DENIED'],
    ]);
  });

  it("offers only a view's tools, under the view's result budget; a call outside is an error result", async () => {
    await using guard = leakGuard();
    void guard;
    await using host = await everythingHost();
    await using model = await startFakeModelServer();
    const long = 'x'.repeat(2_000);
    model.reply(
      response('resp_1', [
        functionCall('call_env', ENV, {}),
        functionCall('call_echo', ECHO, { message: long }),
      ]),
      response('resp_2', [message('Only echo is mine, and it was cut.')]),
    );
    const view = host.view({ name: 'echo-only', allow: ['everything/echo'], maxResultBytes: 500 });
    const result = await agentOf(model, mastraTools(view)).generate('Echo a long text.', {
      maxSteps: 2,
    });

    expect(result.text).toBe('Only echo is mine, and it was cut.');
    expect(offeredTools(model.requests[0]?.body).map((tool) => tool.name)).toEqual([ECHO]);
    // Mastra answers a call to a tool outside the set itself; the host never sees it.
    const outputs = functionOutputs(model.requests[1]?.body);
    expect(String(outputs.get('call_env'))).toContain(ENV);
    expect(Object.keys(host.metrics().tools)).toEqual([ECHO]);
    // The model reads the host's marker; the caller sees the cut on the result.
    const echoed = String(outputs.get('call_echo'));
    expect(echoed).toMatch(/^Echo: x+\n…\[truncated: .* shown; mcp-host result budget\]$/);
    expect(echoed.length).toBeLessThan(600);
    const [echo] = result.toolResults.map((r) => r.payload.result as ModelToolResult);
    expect(echo?.truncated).toMatchObject({ maxBytes: 500 });
  });

  it("cancels a running call when the run's abort signal fires", async () => {
    await using guard = leakGuard();
    void guard;
    await using host = await everythingHost();
    await using model = await startFakeModelServer();
    const run = new AbortController();
    const ended = new Promise<ToolCallEvent>((resolve) => {
      host.onToolCall((event) => {
        if (event.phase === 'started') run.abort(new Error('the user stopped the run'));
        else resolve(event);
      });
    });
    model.reply(response('resp_1', [functionCall('call_long', LONG, { duration: 30, steps: 3 })]));
    const outcome = agentOf(model, mastraTools(host))
      .generate('Run the long operation.', { maxSteps: 2, abortSignal: run.signal })
      .then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );

    expect(await ended).toMatchObject({ tool: LONG, phase: 'failed', outcome: 'ABORTED' });
    // Mastra ends an aborted run without an answer (it resolves rather than rejects).
    const settled = await outcome;
    expect('value' in settled ? settled.value.text : '').toBe('');
    expect(model.requests).toHaveLength(1);
  });
});
