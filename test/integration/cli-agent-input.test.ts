/**
 * `mcp-host agent` when servers ask for input, on the built binary with the official SDK fixture
 * servers and a scripted OpenAI-compatible model: piped (no terminal), a modern server's question
 * pauses the run with exit 3 and the paused run as JSON, and `--resume <file> --answer <json>`
 * finishes it in a new process; `--allow-sampling` lets a legacy server's sampling request reach
 * the model, and without it (and no terminal to ask on) servers are not offered sampling.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer } from '../helpers/fake-model-server.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';
import { chatCall, chatText, chatToolMessage } from '../helpers/model-wire.js';
import { ensureBuiltCli, runCli } from '../helpers/run-built-cli.js';
import { hasScript, onTerminal } from '../helpers/terminal.js';
import { tempDir } from '../helpers/scratch.js';

beforeAll(() => ensureBuiltCli());

/** A config with one fixture server named `name`. */
function configWith(dir: string, name: string, script: string): string {
  const config = join(dir, 'mcp.yaml');
  writeFileSync(
    config,
    `servers:\n  ${name}:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(script)}]\n`,
  );
  return config;
}

describe('mcp-host agent: input servers ask for', () => {
  it('piped, a modern question pauses the run (exit 3, JSON with the pending); --resume --answer finishes it', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    await using model = await startFakeModelServer();
    const config = configWith(dir.path, 'modern', mcpFixtures.modernSdk);
    model.reply(
      chatCall('mcp__modern__ask', { question: 'Which name shall I greet?' }),
      (request) => chatText(`The server said: ${chatToolMessage(request)}`),
    );
    const base = ['--config', config, 'agent', '--base-url', `${model.url}/v1`];
    const paused = await runCli([
      ...base.slice(0, 3),
      'Greet someone.',
      ...base.slice(3),
      '--format',
      'json',
    ]);
    expect(paused.code).toBe(3);
    const lines = paused.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.at(-2)).toMatchObject({
      type: 'input-required',
      pending: { kind: 'elicitation' },
    });
    const { result } = lines.at(-1) as { result: { pending: { resumeToken: string } } };
    expect(result).toMatchObject({
      stopReason: 'input-required',
      pending: {
        kind: 'elicitation',
        serverName: 'modern',
        tool: 'mcp__modern__ask',
        request: { message: 'Which name shall I greet?' },
      },
    });
    // The token is whole (redaction masks fields named like tokens; this one is kept).
    expect(result.pending.resumeToken).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const file = join(dir.path, 'paused.ndjson');
    writeFileSync(file, paused.stdout);
    expect(model.requests).toHaveLength(1);

    const resumed = await runCli([...base, '--resume', file, '--answer', '{"name":"Grace"}']);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('The server said: hello Grace\n');
    expect(model.pending).toBe(0);
  });

  it('text mode prints the paused run as one JSON line and says how to go on', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    await using model = await startFakeModelServer();
    const config = configWith(dir.path, 'modern', mcpFixtures.modernSdk);
    model.reply(chatCall('mcp__modern__ask', {}));
    const run = await runCli([
      '--config',
      config,
      'agent',
      'Greet.',
      '--base-url',
      `${model.url}/v1`,
    ]);
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({
      pending: { kind: 'elicitation', serverName: 'modern' },
    });
    expect(run.stderr).toContain('paused: modern asks a question');
    expect(run.stderr).toContain('mcp-host agent --resume <file> --answer');
  });

  it('--resume without --answer and no terminal, a file with no paused run, or a prompt too: usage errors', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const config = configWith(dir.path, 'modern', mcpFixtures.modernSdk);
    const paused = join(dir.path, 'paused.json');
    writeFileSync(
      paused,
      JSON.stringify({
        pending: { kind: 'elicitation', request: {}, tool: 't', resumeToken: 'x' },
      }),
    );
    const nothing = join(dir.path, 'nothing.json');
    writeFileSync(nothing, '{"result":{"stopReason":"final"}}\n');
    const base = ['--config', config, 'agent', '--base-url', 'http://127.0.0.1:9/v1'];
    const noAnswer = await runCli([...base, '--resume', paused]);
    expect(noAnswer.code).toBe(1);
    expect(noAnswer.stderr).toContain('--resume needs --answer');
    const noPending = await runCli([...base, '--resume', nothing, '--answer', '{}']);
    expect(noPending.code).toBe(1);
    expect(noPending.stderr).toContain('holds no paused run');
    const both = await runCli([...base, 'a prompt', '--resume', paused, '--answer', '{}']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('a prompt or --resume, not both');
  });

  it('--allow-sampling: a legacy server asks for a completion and gets the model answer; without it, not offered', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    await using model = await startFakeModelServer();
    const config = configWith(dir.path, 'legacy', mcpFixtures.legacySdk);
    model.reply(
      chatCall('mcp__legacy__sample', { prompt: 'Say hi to Ada.' }),
      (request) => {
        // The server's request: its messages, no tools, the output capped at what it asked for.
        expect(request.body).toMatchObject({ max_tokens: 100 });
        expect(request.body!.tools).toBeUndefined();
        return chatText('Hi, Ada!');
      },
      (request) => chatText(`The server got: ${chatToolMessage(request)}`),
    );
    const base = ['--config', config, 'agent', 'Sample.', '--base-url', `${model.url}/v1`];
    const allowed = await runCli([...base, '--allow-sampling']);
    expect(allowed.stderr).toBe('');
    expect(allowed.stdout).toBe('The server got: Hi, Ada!\n');
    expect(allowed.code).toBe(0);

    model.reply(chatCall('mcp__legacy__sample', { prompt: 'x' }), (request) =>
      chatText(`Tool said: ${chatToolMessage(request)}`),
    );
    const refused = await runCli(base);
    expect(refused.code).toBe(0);
    expect(refused.stdout.toLowerCase()).toContain('sampling');
    expect(model.pending).toBe(0);
  });

  it.runIf(hasScript)(
    'on a terminal, the question is asked field by field and the run goes on',
    async () => {
      await using _guard = leakGuard();
      using dir = tempDir();
      await using model = await startFakeModelServer();
      const config = configWith(dir.path, 'modern', mcpFixtures.modernSdk);
      model.reply(chatCall('mcp__modern__ask', { question: 'Your name?' }), (request) =>
        chatText(`The server said: ${chatToolMessage(request)}`),
      );
      const { code, output, asked } = await onTerminal(
        ['--config', config, 'agent', 'Greet me.', '--base-url', `${model.url}/v1`],
        { answer: { prompt: 'asks: Your name?', text: 'Ada' } },
      );
      expect(asked).toBe(1);
      expect(output).toContain("Server 'modern' asks: Your name?");
      expect(output).toContain('The server said: hello Ada');
      expect(code).toBe(0);
    },
  );

  it.runIf(hasScript)(
    'on a terminal, a sampling request is asked yes or no before the model sees it',
    async () => {
      await using _guard = leakGuard();
      using dir = tempDir();
      await using model = await startFakeModelServer();
      const config = configWith(dir.path, 'legacy', mcpFixtures.legacySdk);
      model.reply(
        chatCall('mcp__legacy__sample', { prompt: 'Say hi to Ada.' }),
        chatText('Hi, Ada!'),
        (request) => chatText(`The server got: ${chatToolMessage(request)}`),
      );
      const { code, output, asked } = await onTerminal(
        ['--config', config, 'agent', 'Sample.', '--base-url', `${model.url}/v1`],
        { answer: { prompt: 'Allow [y/n]', text: 'y' } },
      );
      expect(asked).toBe(1);
      expect(output).toContain(
        'Server \'legacy\' asks: wants the model to answer (up to 100 tokens): "Say hi to Ada."',
      );
      expect(output).toContain('The server got: Hi, Ada!');
      expect(code).toBe(0);
      expect(model.requests).toHaveLength(3);
    },
  );
});
