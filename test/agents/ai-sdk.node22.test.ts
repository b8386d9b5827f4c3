/**
 * mcp-host/ai-sdk end to end: the real `ai` 7 `generateText` loop, with an `@ai-sdk/openai` model
 * (the Responses API, the provider's default) talking to the fake model server, runs the tools of
 * an McpHost over the official everything server (stdio) through `aiSdkTools`. Turn 1 the model
 * calls two tools at once (text and image results); turn 2's request is checked to carry each
 * result as a Responses `function_call_output`, the image as a native `input_image`.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs } from 'ai';
import { describe, expect, it } from 'vitest';
import { aiSdkTools } from '../../src/ai-sdk.js';
import { createAgentToolset, type ModelToolResult } from '../../src/agents.js';
import type { ToolCallEvent } from '../../src/index.js';
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

function modelOf(server: FakeModelServer) {
  return createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test-key' })('fake-model');
}

describe('mcp-host/ai-sdk with generateText', () => {
  it('runs two parallel calls through the host and hands the model text and a native image', async () => {
    await using guard = leakGuard();
    void guard;
    await using host = await everythingHost();
    await using model = await startFakeModelServer();
    const tools = aiSdkTools(host);
    // What the image tool returns (text around a PNG), as the Responses API's input parts.
    const image = await host.callTool(IMAGE, {});
    expect(image.content.some((block) => block.type === 'image')).toBe(true);

    model.reply(
      response('resp_1', [
        functionCall('call_echo', ECHO, { message: 'hello from the model' }),
        functionCall('call_image', IMAGE, {}),
      ]),
      response('resp_2', [message('I saw the echo and the image.')]),
    );
    const result = await generateText({
      model: modelOf(model),
      tools,
      stopWhen: stepCountIs(2),
      prompt: 'Echo something and show me the tiny image.',
    });

    expect(result.text).toBe('I saw the echo and the image.');
    expect(model.requests.map((request) => request.path)).toEqual([
      '/v1/responses',
      '/v1/responses',
    ]);
    // Turn 1: the SDK sent our tools, each with the tool set's schema.
    const offered = offeredTools(model.requests[0]?.body);
    const toolset = createAgentToolset(host, { provider: 'openai' });
    expect(offered.map((tool) => tool.name)).toEqual(toolset.tools.map((tool) => tool.name));
    for (const tool of toolset.tools) {
      expect(offered.find((o) => o.name === tool.name)).toMatchObject({
        type: 'function',
        parameters: tool.inputSchema,
        ...(tool.description === '' ? {} : { description: tool.description }),
      });
    }
    // Turn 2: each result in the Responses API's form, the image as an input_image part.
    const outputs = functionOutputs(model.requests[1]?.body);
    expect(outputs.get('call_echo')).toBe('Echo: hello from the model');
    expect(outputs.get('call_image')).toEqual(responsesParts(image.content));
    // The caller sees the host's result of each call.
    const results = result.steps[0]?.toolResults ?? [];
    expect(results.map((r) => [r.toolName, (r.output as ModelToolResult).raw?.content])).toEqual([
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
    const result = await generateText({
      model: modelOf(model),
      tools: aiSdkTools(host),
      stopWhen: stepCountIs(2),
      prompt: 'Show me the environment.',
    });

    expect(result.text).toBe('The environment was refused.');
    // The provider sends an error output as `{"error": <text>}`.
    const outputs = functionOutputs(model.requests[1]?.body);
    const refused = JSON.parse(String(outputs.get('call_env'))) as { error: string };
    expect(refused.error).toMatch(/^Error: .*get-env/);
    expect(outputs.get('call_echo')).toBe('Echo: still here');
    const ended = calls.filter((event) => event.phase !== 'started');
    expect(ended.map((event) => [event.tool, event.outcome]).sort()).toEqual([
      [ECHO, 'ok'],
      [ENV, 'TOOL_DENIED'],
    ]);
  });

  it("offers only the tools the agent's permissions allow; a call outside them is an error result", async () => {
    await using guard = leakGuard();
    void guard;
    await using host = await everythingHost({
      permissions: { reader: { allow: ['everything/echo'] } },
    });
    await using model = await startFakeModelServer();
    model.reply(
      response('resp_1', [
        functionCall('call_env', ENV, {}),
        functionCall('call_echo', ECHO, { message: 'allowed' }),
      ]),
      response('resp_2', [message('Only echo is mine.')]),
    );
    const result = await generateText({
      model: modelOf(model),
      tools: aiSdkTools(host, { context: { agent: 'reader' } }),
      stopWhen: stepCountIs(2),
      prompt: 'Show me the environment.',
    });

    expect(result.text).toBe('Only echo is mine.');
    expect(offeredTools(model.requests[0]?.body).map((tool) => tool.name)).toEqual([ECHO]);
    // The SDK answers a call to a tool outside the set itself; the host never sees it.
    const outputs = functionOutputs(model.requests[1]?.body);
    expect(String(outputs.get('call_env'))).toContain(ENV);
    expect(outputs.get('call_echo')).toBe('Echo: allowed');
    expect(Object.keys(host.metrics().tools)).toEqual([ECHO]);
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
    const outcome = generateText({
      model: modelOf(model),
      tools: aiSdkTools(host),
      stopWhen: stepCountIs(2),
      prompt: 'Run the long operation.',
      abortSignal: run.signal,
    });

    await expect(outcome).rejects.toThrow();
    expect(await ended).toMatchObject({ tool: LONG, phase: 'failed', outcome: 'ABORTED' });
    expect(model.requests).toHaveLength(1);
  });
});
