import { describe, expect, it } from 'vitest';
import {
  ScriptedModel,
  callTools,
  lastResults,
  say,
} from '../../../test/helpers/scripted-model.js';
import { McpHostError } from '../../errors/mcp-host-error.js';
import type { NativeTool } from '../../host/host-tool.js';
import { McpHost } from '../../host/mcp-host.js';
import { agent } from './agent-builder.js';
import { createAgent } from './agent.js';

function native(name: string, run: NativeTool['run']): NativeTool {
  return { name, description: `The ${name} tool.`, inputSchema: { type: 'object' }, run };
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('Agent', () => {
  it('gives a native tool that throws, or outlives callTimeoutMs, to the model as an error result', async () => {
    const model = new ScriptedModel([
      callTools([
        ['broken', {}],
        ['stuck', {}],
      ]),
      say('ok'),
    ]);
    let stuckSignal: AbortSignal | undefined;
    await using bot = createAgent({
      model,
      callTimeoutMs: 50,
      tools: [
        native('broken', () => {
          throw new Error('disk on fire');
        }),
        native('stuck', (_args, { signal }) => {
          stuckSignal = signal;
          return new Promise<string>(() => undefined);
        }),
      ],
    });
    await bot.run('go');
    const [broken, stuck] = lastResults(model.requests[1]!);
    expect(broken!.result.isError).toBe(true);
    expect(broken!.result.text).toContain('disk on fire');
    expect(stuck!.result.isError).toBe(true);
    expect(stuck!.result.error?.code).toBe('REQUEST_TIMEOUT');
    expect(stuckSignal?.aborted).toBe(true);
  });

  it('runs at most maxToolCallsPerStep calls of a step; the rest are error results', async () => {
    let runs = 0;
    const model = new ScriptedModel([
      callTools([
        ['count', {}],
        ['count', {}],
        ['count', {}],
      ]),
      say('ok'),
    ]);
    await using bot = agent()
      .model(model)
      .tool(native('count', () => `run ${++runs}`))
      .maxToolCallsPerStep(2)
      .build();
    await bot.run('go');
    expect(runs).toBe(2);
    const results = lastResults(model.requests[1]!);
    expect(results.map((r) => r.result.isError)).toEqual([false, false, true]);
    expect(results[2]!.result.text).toContain('at most 2 tool calls');
  });

  it('offers the tools as they are at each step', async () => {
    await using host = new McpHost();
    const model = new ScriptedModel([
      (request) => {
        expect(request.tools.map((t) => t.name)).toEqual(['first']);
        host.registerTool(native('second', () => 'two'));
        return callTools([['first', {}]]);
      },
      (request) => {
        expect(request.tools.map((t) => t.name)).toEqual(['first', 'second']);
        return say('ok');
      },
    ]);
    host.registerTool(native('first', () => 'one'));
    await using bot = createAgent({ model, host });
    expect((await bot.run('go')).stopReason).toBe('final');
  });

  it('goes on with a conversation without repeating the system prompt', async () => {
    const model = new ScriptedModel([say('first answer'), say('second answer')]);
    await using bot = agent().model(model).system('Be brief.').build();
    const first = await bot.run('one');
    const second = await bot.run([
      ...first.messages,
      { role: 'user', parts: [{ type: 'text', text: 'two' }] },
    ]);
    expect(second.text).toBe('second answer');
    expect(second.messages.filter((m) => m.role === 'system')).toHaveLength(1);
    expect(second.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it('an already aborted signal ends the run before the model is asked', async () => {
    const model = new ScriptedModel([]);
    await using bot = agent().model(model).build();
    const result = await bot.run('go', { signal: AbortSignal.abort() });
    expect(result.stopReason).toBe('aborted');
    expect(model.requests).toHaveLength(0);
  });

  it('leaving the stream early cancels the calls in flight', async () => {
    const cancelled = deferred<unknown>();
    const model = new ScriptedModel([callTools([['wait', {}]])]);
    await using bot = createAgent({
      model,
      tools: [
        native(
          'wait',
          (_args, { signal }) =>
            new Promise<string>((_, reject) => {
              signal.addEventListener('abort', () => {
                cancelled.resolve(signal.reason);
                reject(signal.reason as Error);
              });
            }),
        ),
      ],
    });
    for await (const event of bot.stream('go')) if (event.type === 'tool-call-started') break;
    expect(await cancelled.promise).toBeInstanceOf(McpHostError);
  });

  it('closes the host it made, once, and then refuses to run', async () => {
    const bot = agent().model(new ScriptedModel([])).build();
    await bot.close();
    await bot[Symbol.asyncDispose]();
    await expect(bot.run('go')).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
  });
});
