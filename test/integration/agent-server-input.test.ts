/**
 * What servers ask of the agent while its tools run, against the official SDK fixture servers of
 * both eras: sampling answered by the agent's model only after the approval hook allows it, and
 * refused (error -1, said to the model) when the hook refuses or a limit is hit; elicitation
 * answered by the caller's handler; and, with no handler, a modern server's question that pauses
 * the run as a JSON continuation, resumed in this process and in another one.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  agent,
  type AgentElicitation,
  type ModelRequest,
  type SamplingRequest,
} from '../../src/agent.js';
import { startFakeModelServer } from '../helpers/fake-model-server.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';
import { chatCall, chatText, chatToolMessage } from '../helpers/model-wire.js';
import { ensureBuiltCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';
import { ScriptedModel, callTools, lastResults, say } from '../helpers/scripted-model.js';

const eras = [
  { era: 'legacy', script: mcpFixtures.legacySdk },
  { era: 'modern', script: mcpFixtures.modernSdk },
] as const;

/** The exposed name of the fixture's tool `original` in a model request. */
function toolNamed(request: ModelRequest, original: string): string {
  const tool = request.tools.find((t) => t.tool.originalName === original);
  expect(tool, `tool '${original}' offered`).toBeDefined();
  return tool!.name;
}

function fixtureAgent(script: string, model: ScriptedModel) {
  return agent().model(model).stdio('fixture', process.execPath, [script]).maxSteps(4);
}

describe.each(eras)('agent server input ($era era)', ({ script }) => {
  it('sampling reaches the model only after the approval hook allows it', async () => {
    await using _guard = leakGuard();
    const order: string[] = [];
    const asked: SamplingRequest[] = [];
    const model = new ScriptedModel([
      (request) => callTools([[toolNamed(request, 'sample'), { prompt: 'Say hi to Ada.' }]]),
      (request) => {
        order.push('model answers the server');
        expect(request.tools).toHaveLength(0);
        expect(request.maxOutputTokens).toBe(100);
        expect(request.messages).toEqual([
          { role: 'user', parts: [{ type: 'text', text: 'Say hi to Ada.' }] },
        ]);
        return say('Hi, Ada!', { inputTokens: 5, outputTokens: 3 });
      },
      (request) => say(`The server got: ${lastResults(request)[0]!.result.text}`),
    ]);
    await using bot = fixtureAgent(script, model)
      .sampling({
        approve: (request) => {
          order.push('approved');
          asked.push(request);
          return true;
        },
      })
      .build();
    const result = await bot.run('Ask the server to sample.');
    expect(result.text).toBe('The server got: Hi, Ada!');
    expect(order).toEqual(['approved', 'model answers the server']);
    expect(asked[0]!.serverName).toBe('fixture');
    expect(asked[0]!.params.maxTokens).toBe(100);
  });

  it('a refused sampling request never reaches the model; the refusal is a clear error', async () => {
    await using _guard = leakGuard();
    const model = new ScriptedModel([
      (request) => callTools([[toolNamed(request, 'sample'), { prompt: 'Say hi.' }]]),
      (request) => {
        const { result } = lastResults(request)[0]!;
        expect(result.isError).toBe(true);
        expect(result.text).toContain(
          "server 'fixture''s sampling request was refused by the approval hook",
        );
        return say('It was refused.');
      },
    ]);
    await using bot = fixtureAgent(script, model)
      .sampling({ approve: () => false })
      .build();
    const result = await bot.run('Ask the server to sample.');
    expect(result.text).toBe('It was refused.');
    expect(model.requests).toHaveLength(2);
  });

  it('a request over the rate limit is refused without asking the hook', async () => {
    await using _guard = leakGuard();
    let approvals = 0;
    const model = new ScriptedModel([
      (request) => callTools([[toolNamed(request, 'sample'), { prompt: 'One.' }]]),
      say('one'),
      (request) => callTools([[toolNamed(request, 'sample'), { prompt: 'Two.' }]]),
      (request) => {
        const { result } = lastResults(request)[0]!;
        expect(result.isError).toBe(true);
        expect(result.text).toContain(
          'at most 1 sampling requests a minute (maxRequestsPerMinute)',
        );
        return say('The second was refused.');
      },
    ]);
    await using bot = fixtureAgent(script, model)
      .sampling({ approve: () => (approvals++, true), maxRequestsPerMinute: 1, now: () => 0 })
      .build();
    const result = await bot.run('Sample twice.');
    expect(result.text).toBe('The second was refused.');
    expect(approvals).toBe(1);
  });

  it("elicitation is answered by the caller's handler", async () => {
    await using _guard = leakGuard();
    const questions: AgentElicitation[] = [];
    const model = new ScriptedModel([
      (request) => callTools([[toolNamed(request, 'ask'), { question: 'Your name?' }]]),
      (request) => say(lastResults(request)[0]!.result.text),
    ]);
    await using bot = fixtureAgent(script, model)
      .elicitation((request) => {
        questions.push(request);
        return Promise.resolve({ action: 'accept', content: { name: 'Ada' } });
      })
      .build();
    const result = await bot.run('Ask my name.');
    expect(result.stopReason).toBe('final');
    expect(result.text).toContain('Ada');
    expect(questions).toHaveLength(1);
    expect(questions[0]).toMatchObject({
      serverName: 'fixture',
      params: { message: 'Your name?' },
    });
  });
});

describe('agent server input: a question with no handler', () => {
  it('legacy: elicitation is not offered, so the server cannot ask', async () => {
    await using _guard = leakGuard();
    const model = new ScriptedModel([
      (request) => callTools([[toolNamed(request, 'ask'), {}]]),
      (request) => {
        const { result } = lastResults(request)[0]!;
        expect(result.isError).toBe(true);
        expect(result.text.toLowerCase()).toContain('elicitation');
        return say('No way to ask.');
      },
    ]);
    await using bot = fixtureAgent(mcpFixtures.legacySdk, model).build();
    const result = await bot.run('Ask my name.');
    expect(result.stopReason).toBe('final');
  });

  it('modern: the run pauses with a JSON pending; resumed with the answer, the call finishes', async () => {
    await using _guard = leakGuard();
    const model = new ScriptedModel([
      (request) =>
        callTools([
          [toolNamed(request, 'ask'), { question: 'Your name?' }],
          [toolNamed(request, 'echo'), { message: 'meanwhile' }],
        ]),
      (request) => {
        const results = lastResults(request);
        expect(results.map((r) => r.result.text)).toEqual(['hello Ada', 'meanwhile']);
        return say(`Done: ${results[0]!.result.text}`);
      },
    ]);
    await using bot = fixtureAgent(mcpFixtures.modernSdk, model).build();
    const events: string[] = [];
    let paused;
    for await (const event of bot.stream('Ask my name.')) {
      events.push(event.type === 'tool-call-finished' ? `finished ${event.name}` : event.type);
      if (event.type === 'done') paused = event.result;
    }
    if (paused === undefined) throw new Error('the run yielded no done event');
    expect(paused.stopReason).toBe('input-required');
    expect(events).toEqual([
      'step-start',
      'tool-call-started',
      'tool-call-started',
      'finished mcp__fixture__echo',
      'input-required',
      'done',
    ]);
    const saved = JSON.parse(JSON.stringify({ pending: paused.pending }));
    expect(saved.pending).toMatchObject({
      kind: 'elicitation',
      serverName: 'fixture',
      tool: 'mcp__fixture__ask',
      request: { message: 'Your name?', requestedSchema: { type: 'object' } },
      resumeToken: expect.any(String),
    });
    const result = await bot.run({
      resume: saved.pending,
      answer: { action: 'accept', content: { name: 'Ada' } },
    });
    expect(result).toMatchObject({ stopReason: 'final', text: 'Done: hello Ada', steps: 2 });
  });

  it('a resume token that is not one an agent made is INVALID_ARGUMENT, and nothing runs', async () => {
    const model = new ScriptedModel([]);
    await using bot = fixtureAgent(mcpFixtures.modernSdk, model).build();
    const pending = {
      kind: 'elicitation' as const,
      request: {},
      tool: 't',
      resumeToken: Buffer.from('{"v":1}').toString('base64url'),
    };
    await expect(bot.run({ resume: pending, answer: { action: 'decline' } })).rejects.toMatchObject(
      {
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining('resumeToken is not one an agent made'),
      },
    );
    expect(model.requests).toHaveLength(0);
  });
});

const run = promisify(execFile);
const worker = fileURLToPath(new URL('../fixtures/agents/resume-worker.mjs', import.meta.url));

describe('agent continuation across processes', () => {
  it('a modern question mid-loop is persisted as JSON, the process exits, another resumes and finishes the call', async () => {
    await using _guard = leakGuard();
    ensureBuiltCli();
    await using model = await startFakeModelServer();
    using dir = tempDir();
    const state = join(dir.path, 'pending.json');
    const env = { ...process.env, MODEL_URL: model.url };
    model.reply(
      chatCall('mcp__modern__ask', { question: 'Which name shall I greet?' }),
      (request) => chatText(`The server said: ${chatToolMessage(request)}`),
    );

    await run(process.execPath, [worker, 'start', state, 'Greet someone.'], { env });
    const saved = JSON.parse(readFileSync(state, 'utf8'));
    expect(saved).toMatchObject({
      stopReason: 'input-required',
      pending: { kind: 'elicitation', request: { message: 'Which name shall I greet?' } },
    });
    expect(model.requests).toHaveLength(1);

    const answer = JSON.stringify({ action: 'accept', content: { name: 'Grace' } });
    const { stdout } = await run(process.execPath, [worker, 'resume', state, answer], { env });
    expect(JSON.parse(stdout)).toEqual({
      stopReason: 'final',
      text: 'The server said: hello Grace',
      steps: 2,
    });
    expect(model.requests).toHaveLength(2);
    expect(model.pending).toBe(0);
  });
});
