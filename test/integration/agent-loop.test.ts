/**
 * The agent loop end to end, with a scripted model (never a real provider): the seed example
 * (an agent over the official filesystem server lists a sandbox and answers with the listing),
 * parallel tool calls, the step limit, the token budget, an abort mid-call, a model that fails,
 * a call the host refuses, tool search over a big catalogue, and the order of the events.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { McpHost, McpHostError, type NativeTool } from '../../src/index.js';
import { agent, createAgent, type AgentEvent } from '../../src/agent.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { tempFiles } from '../helpers/scratch.js';
import { ScriptedModel, callTools, lastResults, say } from '../helpers/scripted-model.js';

const require = createRequire(import.meta.url);
const filesystem = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function native(
  name: string,
  run: NativeTool['run'],
  description = `The ${name} tool.`,
): NativeTool {
  return { name, description, inputSchema: { type: 'object', properties: {} }, run };
}

describe('the agent loop', () => {
  it('lists a sandbox through the official filesystem server and answers with the listing (builder)', async () => {
    await using _guard = leakGuard();
    using dir = tempFiles({ 'alpha.txt': 'a', 'beta.md': 'b' });
    const root = dir.path;
    const model = new ScriptedModel([
      (request) => {
        const list = request.tools.find((t) => t.tool.originalName === 'list_directory');
        expect(list).toBeDefined();
        return callTools([[list!.name, { path: root }]]);
      },
      (request) => say(`The sandbox holds:\n${lastResults(request)[0]!.result.text}`),
    ]);
    await using bot = agent()
      .system('You are a helpful assistant.')
      .model(model)
      .stdio('fs', process.execPath, [filesystem, root])
      .maxSteps(5)
      .build();
    const result = await bot.run(`List the files in ${root}`);
    expect(result.stopReason).toBe('final');
    expect(result.steps).toBe(2);
    expect(result.text).toContain('alpha.txt');
    expect(result.text).toContain('beta.md');
    expect(model.requests[0]!.messages[0]).toEqual({
      role: 'system',
      text: 'You are a helpful assistant.',
    });
    expect(result.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
  });

  it('runs the calls of one step concurrently and feeds results back in call order', async () => {
    const bothStarted = deferred();
    const slowMayFinish = deferred();
    let running = 0;
    let maxRunning = 0;
    const track = async <T>(work: () => Promise<T>): Promise<T> => {
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      if (running === 2) bothStarted.resolve();
      try {
        return await work();
      } finally {
        running -= 1;
      }
    };
    // If the calls ran one after another, `slow` would wait for `fast` forever: the per-call
    // timeout turns that into an error result, and the assertions below fail.
    const slow = native('slow', () =>
      track(async () => {
        await bothStarted.promise;
        await slowMayFinish.promise;
        return 'slow done';
      }),
    );
    const fast = native('fast', () =>
      track(async () => {
        await bothStarted.promise;
        return 'fast done';
      }),
    );
    const model = new ScriptedModel([
      callTools([
        ['slow', {}],
        ['fast', {}],
      ]),
      say('both ran'),
    ]);
    await using bot = createAgent({ model, tools: [slow, fast], callTimeoutMs: 10_000 });
    const finished: string[] = [];
    let result;
    for await (const event of bot.stream('go')) {
      if (event.type === 'tool-call-finished') {
        finished.push(event.name);
        if (event.name === 'fast') slowMayFinish.resolve();
      }
      if (event.type === 'done') result = event.result;
    }
    expect(maxRunning).toBe(2);
    expect(finished).toEqual(['fast', 'slow']);
    const results = lastResults(model.requests[1]!);
    expect(results.map((r) => [r.call.name, r.result.text])).toEqual([
      ['slow', 'slow done'],
      ['fast', 'fast done'],
    ]);
    expect(result?.stopReason).toBe('final');
  });

  it('stops at the step limit after running the last step’s calls', async () => {
    let runs = 0;
    const again = native('again', () => `run ${++runs}`);
    const model = new ScriptedModel([
      callTools([['again', {}]]),
      callTools([['again', {}]]),
      callTools([['again', {}]]),
      say('never asked'),
    ]);
    await using bot = agent().model(model).tool(again).maxSteps(3).build();
    const result = await bot.run('loop');
    expect(result.stopReason).toBe('max-steps');
    expect(result.steps).toBe(3);
    expect(model.requests).toHaveLength(3);
    expect(runs).toBe(3);
    expect(result.messages.at(-1)?.role).toBe('tool');
  });

  it('stops when the run’s token budget is spent, leaving the calls it did not run answered', async () => {
    let runs = 0;
    const work = native('work', () => `run ${++runs}`);
    const usage = { inputTokens: 60, outputTokens: 10 };
    const model = new ScriptedModel([
      callTools([['work', {}]], usage),
      callTools([['work', {}]], usage),
      say('never asked'),
    ]);
    await using bot = createAgent({ model, tools: [work], maxTokens: 100 });
    const result = await bot.run('spend');
    expect(result.stopReason).toBe('budget');
    expect(result.steps).toBe(2);
    expect(result.usage).toEqual({ inputTokens: 120, outputTokens: 20 });
    expect(runs).toBe(1);
    expect(model.requests[0]!.maxOutputTokens).toBe(100);
    expect(model.requests[1]!.maxOutputTokens).toBe(30);
    const last = result.messages.at(-1);
    expect(last?.role === 'tool' && last.results[0]!.result.isError).toBe(true);
  });

  it('an abort mid-call ends the run at once as aborted, and nothing is left behind', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost({
      servers: [
        {
          name: 'everything',
          transport: { type: 'stdio', command: process.execPath, args: [everything, 'stdio'] },
        },
      ],
    });
    await host.start();
    const controller = new AbortController();
    const sent = host.onToolCall((event) => {
      if (event.phase === 'started') controller.abort(new Error('user pressed stop'));
    });
    const model = new ScriptedModel([
      callTools([['mcp__everything__trigger-long-running-operation', { duration: 60, steps: 2 }]]),
      say('never asked'),
    ]);
    await using bot = createAgent({ model, host });
    const started = performance.now();
    const result = await bot.run('wait a minute', { signal: controller.signal });
    sent.dispose();
    expect(result.stopReason).toBe('aborted');
    expect(performance.now() - started).toBeLessThan(30_000);
    const last = result.messages.at(-1);
    expect(last?.role).toBe('tool');
    if (last?.role === 'tool') {
      expect(last.results[0]!.result.isError).toBe(true);
      expect(last.results[0]!.result.error?.code).toBe('ABORTED');
    }
    expect(model.requests).toHaveLength(1);
  });

  it('a model that throws ends the run with a typed error naming the model', async () => {
    const model = new ScriptedModel([
      () => {
        throw new Error('socket hang up');
      },
    ]);
    await using bot = agent().model(model).build();
    const failure = await bot.run('hello').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(McpHostError);
    expect((failure as McpHostError).code).toBe('INTERNAL');
    expect((failure as McpHostError).message).toContain("model 'scripted'");
    expect((failure as McpHostError).message).toContain('socket hang up');

    // A typed error of the model client's own goes through as it is.
    const refused = new McpHostError('HTTP_STATUS', 'the provider answered 401');
    await using second = agent()
      .model(
        new ScriptedModel([
          () => {
            throw refused;
          },
        ]),
      )
      .build();
    await expect(second.run('hello')).rejects.toBe(refused);
  });

  it('a call the host refuses reaches the model as an error result', async () => {
    await using host = new McpHost({ approve: ({ tool }) => tool.name !== 'delete_everything' });
    let ran = false;
    host.registerTool(
      native('delete_everything', () => {
        ran = true;
        return 'gone';
      }),
    );
    const model = new ScriptedModel([
      callTools([['delete_everything', {}]]),
      (request) => say(lastResults(request)[0]!.result.text),
    ]);
    await using bot = createAgent({ model, host, context: { agent: 'tester' } });
    const result = await bot.run('clean up');
    expect(ran).toBe(false);
    const seen = lastResults(model.requests[1]!)[0]!.result;
    expect(seen.isError).toBe(true);
    expect(seen.error?.code).toBe('TOOL_DENIED');
    expect(result.text).toContain('delete_everything');
    expect(result.stopReason).toBe('final');
  });

  it('with tool search over a big catalogue, the first request offers only the search tool', async () => {
    const tools: NativeTool[] = [];
    for (let i = 0; i < 300; i += 1)
      tools.push(
        native(`inventory_item_${i}`, () => `item ${i}`, `Looks up stock item number ${i}.`),
      );
    let forecasts = 0;
    tools.push(
      native(
        'weather_forecast',
        () => {
          forecasts += 1;
          return 'sunny, 21°C';
        },
        'Gives the weather forecast for a city.',
      ),
    );
    const model = new ScriptedModel([
      callTools([['search_tools', { query: 'weather forecast' }]]),
      (request) => {
        expect(request.tools.map((t) => t.name)).toContain('weather_forecast');
        return callTools([['weather_forecast', { city: 'Lyon' }]]);
      },
      (request) => say(`Forecast: ${lastResults(request)[0]!.result.text}`),
    ]);
    const builder = agent().model(model).toolSearch();
    for (const tool of tools) builder.tool(tool);
    await using bot = builder.build();
    const result = await bot.run('What is the weather in Lyon?');
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(['search_tools']);
    expect(forecasts).toBe(1);
    expect(result.text).toBe('Forecast: sunny, 21°C');
  });

  it('streams its events in order, and run gives the same result as the stream’s done', async () => {
    const echo = native('echo', () => 'echoed');
    const script = () =>
      new ScriptedModel([
        [{ type: 'text-delta', text: 'Let me check. ' }, ...callTools([['echo', {}]])],
        say('All done.', { inputTokens: 5, outputTokens: 3 }),
      ]);
    await using bot = createAgent({ model: script(), tools: [echo] });
    const events: AgentEvent[] = [];
    for await (const event of bot.stream('hi')) events.push(event);
    expect(events.map((e) => e.type)).toEqual([
      'step-start',
      'text-delta',
      'tool-call-started',
      'tool-call-finished',
      'step-start',
      'text-delta',
      'text-delta',
      'done',
    ]);
    const started = events[2];
    const finished = events[3];
    expect(started).toMatchObject({ type: 'tool-call-started', step: 1, name: 'echo', args: '{}' });
    expect(finished).toMatchObject({ type: 'tool-call-finished', step: 1, name: 'echo' });
    if (started?.type === 'tool-call-started' && finished?.type === 'tool-call-finished') {
      expect(finished.id).toBe(started.id);
      expect(finished.result.text).toBe('echoed');
      expect(finished.durationMs).toBeGreaterThanOrEqual(0);
    }
    const done = events.at(-1);
    await using again = createAgent({ model: script(), tools: [echo] });
    const result = await again.run('hi');
    expect(done?.type === 'done' && done.result.text).toBe('All done.');
    expect(result.text).toBe('All done.');
    expect(result.usage).toEqual({ inputTokens: 5, outputTokens: 3 });
  });

  it('refuses bad settings with INVALID_ARGUMENT', async () => {
    await using host = new McpHost();
    const model = new ScriptedModel([]);
    expect(() => agent().build()).toThrow(/model/);
    expect(() => createAgent({ model, maxSteps: 0 })).toThrow(McpHostError);
    expect(() => createAgent({ model, toolSearch: { maxResults: 0 } })).toThrow(/maxResults/);
    expect(() => createAgent({ model, host, servers: [] })).toThrow(/either host or servers/);
    expect(() => createAgent({ model, tools: [native('bad name', () => '')] })).toThrow(
      /native tool name/,
    );
  });
});
