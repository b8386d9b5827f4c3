/**
 * `mcp-host agent` on the built binary, with the official filesystem server from a config and a
 * scripted OpenAI-compatible model server on 127.0.0.1 (never a real provider): the seed example
 * (the model asks for the listing, then answers from the tool message it was sent), NDJSON with
 * `--format json`, a missing provider key refused before anything starts, the step limit's exit
 * code, Ctrl-C mid-answer, and no server left behind by any of them.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeModelServer,
  type ModelReply,
  type ModelRequest,
  type SseReply,
} from '../helpers/fake-model-server.js';
import { leakGuard, type LeakGuard } from '../helpers/leak-guard.js';
import { chatCall, chatChunk, chatText, chatToolMessage } from '../helpers/model-wire.js';
import { commandLine, listProcesses, waitUntilGone } from '../helpers/processes.js';
import { codeBlockAfter } from '../helpers/doc-examples.js';
import { cliEnv, cliPath, ensureBuiltCli, repoRoot, runCli } from '../helpers/run-built-cli.js';
import { hasScript, onTerminal } from '../helpers/terminal.js';
import { tempDir } from '../helpers/scratch.js';

const require = createRequire(import.meta.url);
const filesystem = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

const docs = readFileSync(join(repoRoot, 'docs/agents.md'), 'utf8');
const DOCS_HEADING = '### The `agent` command';

/** The words of a one-line shell command (double or single quotes, no escapes). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** An OpenAI key in the environment: a bare base URL must never be sent it. */
const KEY = 'sk-canary-cli-agent-0123456789';

beforeAll(() => ensureBuiltCli());

/** The tool names a request offered. */
function offered(request: ModelRequest): string[] {
  const tools = (request.body?.tools ?? []) as Array<{ function: { name: string } }>;
  return tools.map((tool) => tool.function.name);
}

/** The pids of the servers whose command line names `root` (the filesystem servers on it). */
function serversOn(root: string): number[] {
  return listProcesses()
    .filter((entry) => commandLine(entry.pid)?.includes(root) === true)
    .map((entry) => entry.pid);
}

/**
 * The model's two turns over the filesystem server on `root`: the first asks for
 * `list_directory` (noting the server's pids, for the guard), the second answers from the listing
 * it was sent.
 */
function turns(root: string, guard: LeakGuard) {
  const pids: number[] = [];
  const listTurn: ModelReply = (request) => {
    for (const pid of serversOn(root)) {
      pids.push(pid);
      guard.trackPid(pid);
    }
    const list = offered(request).find((name) => name.endsWith('list_directory'));
    return list === undefined
      ? chatText('no listing tool was offered')
      : chatCall(list, { path: root });
  };
  const answerTurn: ModelReply = (request) => {
    // The server's structured result, `{"content":"[FILE] ..."}`, or the listing as text.
    const sent = chatToolMessage(request);
    let listing = sent;
    try {
      const parsed = JSON.parse(sent) as { content?: unknown };
      if (typeof parsed.content === 'string') listing = parsed.content;
    } catch {
      listing = sent;
    }
    return chatText(`The sandbox holds:\n${listing}`);
  };
  return { pids, listTurn, answerTurn };
}

/** A sandbox with two files, a config running the official filesystem server on it, the turns. */
function world(dir: string, guard: LeakGuard) {
  const root = join(realpathSync(dir), 'sandbox');
  mkdirSync(root);
  writeFileSync(join(root, 'alpha.txt'), 'a');
  writeFileSync(join(root, 'beta.md'), 'b');
  const config = join(dir, 'mcp.yaml');
  writeFileSync(
    config,
    `servers:\n  fs:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(filesystem)}, ${JSON.stringify(root)}]\n`,
    { mode: 0o600 },
  );
  return { root, config, ...turns(root, guard) };
}

describe('mcp-host agent', () => {
  it('lists a sandbox through the filesystem server and prints the answer made from the listing', async () => {
    await using guard = leakGuard();
    using dir = tempDir();
    await using model = await startFakeModelServer();
    const { root, config, pids, listTurn, answerTurn } = world(dir.path, guard);
    model.reply(listTurn, answerTurn);
    const run = await runCli(
      ['--config', config, 'agent', `List the files in ${root}`, '--base-url', `${model.url}/v1`],
      { env: cliEnv({ OPENAI_API_KEY: KEY }) },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('The sandbox holds:\n[FILE] alpha.txt\n[FILE] beta.md\n');
    expect(model.requests).toHaveLength(2);
    const [first, second] = model.requests;
    expect(first!.path).toBe('/v1/chat/completions');
    expect(first!.headers.authorization).toBeUndefined();
    expect(first!.body).toMatchObject({ model: 'default', stream: true });
    expect((first!.body!.messages as unknown[]).at(-1)).toMatchObject({
      role: 'user',
      content: `List the files in ${root}`,
    });
    // The answer came from the listing: the second request carries it.
    expect(chatToolMessage(second!)).toContain('[FILE] alpha.txt');
    expect(chatToolMessage(second!)).toContain('[FILE] beta.md');
    expect(pids.length).toBeGreaterThan(0);
    expect(await waitUntilGone(pids, 5_000)).toEqual([]);
  });

  it('--format json: one event per stdout line, the tool calls among them, then one result line', async () => {
    await using guard = leakGuard();
    using dir = tempDir();
    await using model = await startFakeModelServer();
    const { root, config, pids, listTurn, answerTurn } = world(dir.path, guard);
    model.reply(listTurn, answerTurn);
    const run = await runCli([
      '--config',
      config,
      'agent',
      `List the files in ${root}`,
      '--base-url',
      `${model.url}/v1#tiny`,
      '--format',
      'json',
      '--system',
      'Be brief.',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const started = parsed.find((event) => event.type === 'tool-call-started');
    expect(started).toMatchObject({
      step: 1,
      id: 'call_1',
      name: 'mcp__fs__list_directory',
      server: 'fs',
      tool: 'list_directory',
      args: { path: root },
    });
    const finished = parsed.find((event) => event.type === 'tool-call-finished');
    expect(finished).toMatchObject({
      server: 'fs',
      tool: 'list_directory',
      isError: false,
      error: null,
    });
    expect(finished!.text).toContain('alpha.txt');
    expect(typeof finished!.durationMs).toBe('number');
    expect(parsed.map((event) => event.type)).toEqual([
      'step-start',
      'tool-call-started',
      'tool-call-finished',
      'step-start',
      'text-delta',
      undefined,
    ]);
    expect(parsed.filter((event) => 'result' in event)).toHaveLength(1);
    const { result } = parsed.at(-1) as {
      result: {
        text: string;
        stopReason: string;
        steps: number;
        messages: Array<{ role: string }>;
      };
    };
    expect(result.stopReason).toBe('final');
    expect(result.steps).toBe(2);
    expect(result.text).toContain('[FILE] beta.md');
    expect(result.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(model.requests[0]!.body).toMatchObject({
      model: 'tiny',
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user' }],
    });
    expect(await waitUntilGone(pids, 5_000)).toEqual([]);
  });

  it('a missing provider key is refused naming its variable, before any server or request', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    await using model = await startFakeModelServer();
    const root = realpathSync(dir.path);
    const config = join(root, 'mcp.yaml');
    const started = join(root, 'started');
    // A server that would leave a mark if it were started.
    writeFileSync(
      config,
      `servers:\n  marks:\n    command: ${JSON.stringify(process.execPath)}\n    args: ['-e', ${JSON.stringify(`require('fs').writeFileSync(${JSON.stringify(started)}, '')`)}]\n`,
      { mode: 0o600 },
    );
    const env = cliEnv({ ANTHROPIC_API_KEY: undefined });
    const text = await runCli(
      ['--config', config, 'agent', 'hello', '--model', 'anthropic:claude-x'],
      {
        env,
      },
    );
    expect(text.code).toBe(1);
    expect(text.stdout).toBe('');
    expect(text.stderr).toMatch(/^error: .*ANTHROPIC_API_KEY/);
    expect(text.stderr.trim().split('\n')).toHaveLength(1);
    const json = await runCli(
      ['--config', config, '--json', 'agent', 'hello', '--model', 'anthropic:claude-x'],
      { env },
    );
    expect(json.code).toBe(1);
    expect(json.stdout).toBe('');
    expect(JSON.parse(json.stderr)).toMatchObject({
      error: {
        code: 'CONFIG_VARIABLE_UNSET',
        message: expect.stringContaining('ANTHROPIC_API_KEY'),
      },
    });
    // No model at all is a usage error saying what to give.
    const none = await runCli(['--config', config, 'agent', 'hello'], { env });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/--model <provider:model>.*--base-url/);
    expect(model.requests).toHaveLength(0);
    expect(serversOn(root)).toEqual([]);
    expect(() => realpathSync(started)).toThrow();
  });

  it('stops at --max-steps without a final answer: exit 6, nothing on stdout', async () => {
    await using guard = leakGuard();
    using dir = tempDir();
    await using model = await startFakeModelServer();
    const { root, config, pids, listTurn } = world(dir.path, guard);
    model.reply(listTurn);
    const run = await runCli([
      '--config',
      config,
      'agent',
      `List the files in ${root}`,
      '--base-url',
      `${model.url}/v1`,
      '--max-steps',
      '1',
    ]);
    expect(run.code).toBe(6);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/step limit \(1 model calls\).*--max-steps/);
    expect(model.requests).toHaveLength(1);
    expect(await waitUntilGone(pids, 5_000)).toEqual([]);

    const bad = await runCli([
      '--config',
      config,
      'agent',
      'x',
      '--base-url',
      model.url,
      '--max-steps',
      '0',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("'0' is not a whole number of at least 1");
  });

  it('Ctrl-C while the model answers aborts the run, prints its result and closes the server', async () => {
    await using guard = leakGuard();
    using dir = tempDir();
    await using model = await startFakeModelServer();
    const { root, config, pids, listTurn } = world(dir.path, guard);
    const child = spawn(
      process.execPath,
      [
        cliPath,
        '--config',
        config,
        '--json',
        'agent',
        `List the files in ${root}`,
        '--base-url',
        `${model.url}/v1`,
      ],
      { env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    guard.trackPid(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const exited = once(child, 'exit');
    // The second turn starts answering, then never finishes: the user presses Ctrl-C.
    model.reply(listTurn, () => {
      setImmediate(() => child.kill('SIGINT'));
      return { sse: [chatChunk({ role: 'assistant', content: 'The sandbox' })], open: true };
    });
    const [code] = await exited;
    expect(code).toBe(130);
    expect(stderr).toBe('');
    const last = JSON.parse(stdout.trimEnd().split('\n').at(-1)!) as {
      result: { stopReason: string };
    };
    expect(last.result.stopReason).toBe('aborted');
    expect(model.requests).toHaveLength(2);
    expect(pids.length).toBeGreaterThan(0);
    expect(await waitUntilGone(pids, 5_000)).toEqual([]);
  });

  it('the docs/agents.md command, run as written against a scripted model, prints what the document shows', async () => {
    await using guard = leakGuard();
    using dir = tempDir();
    await using model = await startFakeModelServer();
    const root = join(realpathSync(dir.path), 'sandbox');
    mkdirSync(root);
    writeFileSync(join(root, 'notes.txt'), 'hello');
    writeFileSync(join(root, 'plan.md'), '# plan');
    const config = join(dir.path, 'mcp.yaml');
    writeFileSync(
      config,
      codeBlockAfter(docs, DOCS_HEADING, 0, 'yaml').replaceAll('/tmp/sandbox', root),
      { mode: 0o600 },
    );
    const { listTurn, answerTurn, pids } = turns(root, guard);
    model.reply(listTurn, answerTurn);
    const [program, ...args] = shellWords(
      codeBlockAfter(docs, DOCS_HEADING, 0, 'sh')
        .trim()
        .replaceAll('/tmp/sandbox', root)
        .replaceAll('http://127.0.0.1:8080/v1', `${model.url}/v1`),
    );
    expect(program).toBe('mcp-host');
    // npx, run inside the repository, starts the installed server (no download).
    const run = await runCli(
      args.map((arg) => (arg === 'mcp.yaml' ? config : arg)),
      { cwd: repoRoot },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(codeBlockAfter(docs, DOCS_HEADING, 0, 'text'));
    expect(model.requests).toHaveLength(2);
    expect(await waitUntilGone(pids, 5_000)).toEqual([]);
  });

  it('--base-url with a model name (a tag with a colon too) sends no key; with a provider spec, its key', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    await using model = await startFakeModelServer();
    const config = join(dir.path, 'mcp.yaml');
    writeFileSync(config, 'servers: {}\n', { mode: 0o600 });
    const env = cliEnv({ OPENAI_API_KEY: KEY });
    model.reply(chatText('hi there'), chatText('hello again'));
    const local = await runCli(
      [
        '--config',
        config,
        'agent',
        '-',
        '--model',
        'llama3.2:latest',
        '--base-url',
        `${model.url}/v1`,
      ],
      { env, input: 'Say hi' },
    );
    expect(local.code).toBe(0);
    expect(local.stdout).toBe('hi there\n');
    const gateway = await runCli(
      [
        '--config',
        config,
        'agent',
        'Say hello',
        '-m',
        'openai:gpt-test',
        '--base-url',
        `${model.url}/v1`,
      ],
      { env },
    );
    expect(gateway.code).toBe(0);
    expect(gateway.stdout).toBe('hello again\n');
    const [first, second] = model.requests;
    expect(first!.headers.authorization).toBeUndefined();
    expect(first!.body).toMatchObject({
      model: 'llama3.2:latest',
      messages: [{ role: 'user', content: 'Say hi' }],
    });
    expect(second!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(second!.body).toMatchObject({ model: 'gpt-test' });
    // Nothing printed carries the key.
    expect(`${local.stdout}${local.stderr}${gateway.stdout}${gateway.stderr}`).not.toContain(KEY);
  });

  it.skipIf(!hasScript)(
    'on a terminal, each tool call shows on stderr as it starts and finishes, in colour',
    async () => {
      await using guard = leakGuard();
      using dir = tempDir();
      await using model = await startFakeModelServer();
      const { root, config, pids, listTurn, answerTurn } = world(dir.path, guard);
      model.reply(listTurn, answerTurn);
      const { code, output } = await onTerminal([
        '--config',
        config,
        'agent',
        `List the files in ${root}`,
        '--base-url',
        `${model.url}/v1`,
      ]);
      expect(code).toBe(0);
      const ESC = '\x1b[';
      expect(output).toContain(`${ESC}36m→${ESC}39m fs/list_directory ${ESC}2m{"path":`);
      expect(output).toContain(`${ESC}32m✓${ESC}39m fs/list_directory ${ESC}2m`);
      expect(output).toContain('The sandbox holds:\r\n[FILE] alpha.txt\r\n[FILE] beta.md\r\n');
      expect(output).toMatch(/final after 2 steps, 1 tool call, 0 tokens, \d+/);
      expect(await waitUntilGone(pids, 5_000)).toEqual([]);
    },
  );

  it('--max-tokens: the budget spent before a final answer exits 6, the calls of that reply not run', async () => {
    await using guard = leakGuard();
    using dir = tempDir();
    await using model = await startFakeModelServer();
    const { root, config, pids, listTurn } = world(dir.path, guard);
    model.reply((request) => {
      const reply = listTurn(request) as SseReply;
      const usage = { data: { choices: [], usage: { prompt_tokens: 90, completion_tokens: 20 } } };
      return { sse: [...reply.sse.slice(0, -1), usage, { data: '[DONE]' }] };
    });
    const run = await runCli([
      '--config',
      config,
      '--json',
      'agent',
      `List the files in ${root}`,
      '--base-url',
      `${model.url}/v1`,
      '--max-tokens',
      '100',
    ]);
    expect(run.code).toBe(6);
    expect(run.stderr).toBe('');
    const lines = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.some((event) => event.type === 'tool-call-started')).toBe(false);
    expect(lines.at(-1)).toMatchObject({
      result: { stopReason: 'budget', usage: { inputTokens: 90, outputTokens: 20 } },
    });
    expect(model.requests[0]!.body).toMatchObject({ max_tokens: 100 });
    expect(await waitUntilGone(pids, 5_000)).toEqual([]);
  });

  it('a model that refuses the request fails the command with one line naming the model (exit 3 for 401)', async () => {
    await using guard = leakGuard();
    using dir = tempDir();
    await using model = await startFakeModelServer();
    const { root, config, pids } = world(dir.path, guard);
    model.reply(
      () => {
        for (const pid of serversOn(root)) {
          pids.push(pid);
          guard.trackPid(pid);
        }
        return { json: { error: { message: 'invalid api key' } }, status: 401 };
      },
      { json: { error: { message: 'overloaded' } }, status: 503 },
    );
    const refused = await runCli([
      '--config',
      config,
      'agent',
      'hello',
      '--model',
      'openai:gpt-test',
      '--base-url',
      `${model.url}/v1`,
    ]);
    expect(refused.code).toBe(3);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^error: model 'openai-chat:gpt-test'.*401.*invalid api key\n$/);
    const down = await runCli([
      '--config',
      config,
      '--json',
      'agent',
      'hello',
      '--base-url',
      `${model.url}/v1`,
    ]);
    expect(down.code).toBe(4);
    expect(
      down.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([{ type: 'step-start', step: 1 }]);
    expect(JSON.parse(down.stderr)).toMatchObject({ error: { code: 'HTTP_STATUS' } });
    expect(await waitUntilGone(pids, 5_000)).toEqual([]);
  });

  it('--view: only its servers start and only its tools are offered', async () => {
    await using guard = leakGuard();
    using dir = tempDir();
    await using model = await startFakeModelServer();
    const { root, config, pids, listTurn, answerTurn } = world(dir.path, guard);
    writeFileSync(
      config,
      [
        'servers:',
        '  fs:',
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(filesystem)}, ${JSON.stringify(root)}]`,
        '  other:',
        '    command: mcp-host-test-no-such-command',
        'views:',
        '  reader:',
        '    servers: [fs]',
        "    allow: ['fs/list_*', 'fs/read_*']",
        '',
      ].join('\n'),
    );
    model.reply(listTurn, answerTurn);
    const run = await runCli([
      '--config',
      config,
      'agent',
      `List the files in ${root}`,
      '--base-url',
      `${model.url}/v1`,
      '--view',
      'reader',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('[FILE] alpha.txt');
    const tools = offered(model.requests[0]!);
    expect(tools).toContain('mcp__fs__list_directory');
    expect(tools.every((name) => /^mcp__fs__(list|read)_/.test(name))).toBe(true);
    expect(await waitUntilGone(pids, 5_000)).toEqual([]);

    const unknown = await runCli([
      '--config',
      config,
      'agent',
      'x',
      '--base-url',
      model.url,
      '--view',
      'nope',
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no view is named 'nope' (configured: reader)");
    expect(model.requests).toHaveLength(2);
  });
});
