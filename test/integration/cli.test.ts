/**
 * The `mcp-host` command on the built binary (dist/cli.js, rebuilt once when a source file is
 * newer), as a subprocess against a config in a scratch directory: the SDK fixture server
 * (test/fixtures/mcp/legacy-sdk-server.mjs: echo, add, fail, a resource, a prompt), a server whose
 * variable is unset and one whose command does not exist. Every command in table and JSON mode,
 * the exit codes (0, 1, 4, 5), `--arg` typing (zip=01234 stays a string), stdin input, and no
 * process left behind.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { leakGuard } from '../helpers/leak-guard.js';
import {
  commandLine,
  isOrphanWatchdog,
  runningDescendants,
  waitUntilGone,
} from '../helpers/processes.js';
import { tempDir } from '../helpers/scratch.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = join(root, 'dist', 'cli.js');
const fixture = join(root, 'test', 'fixtures', 'mcp', 'legacy-sdk-server.mjs');
const neverAnswers = join(root, 'test', 'fixtures', 'servers', 'never-answers.mjs');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds dist/ only when it is missing or older than a file under src/ (npm test builds first). */
function ensureFreshBuild(): void {
  let built = 0;
  try {
    built = statSync(cli).mtimeMs;
  } catch {
    // Not built.
  }
  if (built < newestSource(join(root, 'src')))
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'ignore' });
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const scratch = tempDir();
const configFile = join(scratch.path, 'mcp.yaml');

function run(
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
): Promise<Run> {
  const env: NodeJS.ProcessEnv = { XDG_CONFIG_HOME: join(scratch.path, 'xdg') };
  for (const [key, value] of Object.entries(process.env))
    if (
      !key.startsWith('MCP_HOST_') &&
      key !== 'NO_COLOR' &&
      key !== 'FORCE_COLOR' &&
      key !== 'XDG_CONFIG_HOME'
    )
      env[key] = value;
  Object.assign(env, options.env);
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [cli, ...args],
      { cwd: scratch.path, env, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        if (error !== null && code === null) reject(new Error(error.message, { cause: error }));
        else resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(options.input ?? '');
  });
}

/** The `{result}` envelope (its result typed as JSON.parse's). */
const json = (text: string): { result: ReturnType<typeof JSON.parse> } =>
  JSON.parse(text) as { result: ReturnType<typeof JSON.parse> };
/** Runs with --json and checks stdout is exactly one envelope line. */
async function runJson(args: string[], options: { input?: string } = {}) {
  const out = await run([...args, '--json'], options);
  expect(out.stdout.trim().split('\n')).toHaveLength(1);
  return { ...out, body: out.stdout === '' ? undefined : json(out.stdout) };
}

beforeAll(() => {
  ensureFreshBuild();
  writeFileSync(
    configFile,
    [
      'servers:',
      '  fixture:',
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: [${JSON.stringify(fixture)}]`,
      '  needsvar:',
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: [${JSON.stringify(fixture)}]`,
      '    env:',
      '      API_TOKEN: ${MCP_HOST_TEST_CLI_UNSET}',
      '  nowhere:',
      '    command: mcp-host-test-no-such-command',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
}, 120_000);

describe('mcp-host servers', () => {
  it('list reads the config only, in table and JSON mode', async () => {
    await using _guard = leakGuard();
    const table = await run(['servers', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^NAME\s+ENABLED\s+TRANSPORT/);
    expect(table.stdout).toMatch(/fixture\s+yes\s+stdio/);
    expect(table.stdout).toMatch(/fixture .*mcp\.yaml:2\n/);
    const { code, body } = await runJson(['servers', 'list']);
    expect(code).toBe(0);
    expect(body?.result.map((s: { name: string }) => s.name)).toEqual([
      'fixture',
      'needsvar',
      'nowhere',
    ]);
    expect(body?.result[0].source).toBe(`${configFile}:2`);
  });

  it('status connects each server: ready, the unset variable named, the rest shown; exit 4, the worst', async () => {
    await using _guard = leakGuard();
    const table = await run(['servers', 'status']);
    expect(table.stdout).toMatch(/fixture\s+ready\s+legacy/);
    expect(table.stdout).toMatch(/needsvar\s+config_error/);
    expect(table.stdout).toMatch(/^needsvar: .*MCP_HOST_TEST_CLI_UNSET/m);
    expect(table.stdout).toMatch(/nowhere\s+failed/);
    // The worst of the servers' codes (as doctor): 4 (nowhere cannot start) over 1 (needsvar).
    expect(table.code).toBe(4);
    const { body } = await runJson(['servers', 'status']);
    const byName = Object.fromEntries(body!.result.map((s: { name: string }) => [s.name, s]));
    expect(byName.fixture).toMatchObject({
      state: 'ready',
      era: 'legacy',
      tools: expect.any(Number),
    });
    expect(byName.fixture.pid).toEqual(expect.any(Number));
    expect(byName.nowhere.lastError.code).toBe('SPAWN_FAILED');
  });

  it('an unreachable server exits 4 with one JSON error line naming it', async () => {
    await using _guard = leakGuard();
    const out = await run(['tools', 'nowhere', '--json']);
    expect(out.code).toBe(4);
    const out2 = await run(['inspect', 'nowhere', '--json']);
    expect(out2.code).toBe(4);
    expect(out2.stdout).toBe('');
    const lines = out2.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      error: {
        code: 'SPAWN_FAILED',
        message: expect.stringContaining('nowhere'),
        server: 'nowhere',
      },
    });
    // Text: the server named once, by the message (no `[nowhere]` tag, no second prefix).
    const text = await run(['inspect', 'nowhere']);
    expect(text.code).toBe(4);
    expect(text.stderr).toMatch(/^error: server 'nowhere': failed \(SPAWN_FAILED: /);
    expect(text.stderr.match(/nowhere/g)).toHaveLength(1);
    // The status table names it in its row; the error under the table does not repeat it.
    const status = await run(['servers', 'status']);
    expect(status.stdout).toMatch(/^nowhere: (?!.*nowhere)/m);
  });

  it('a missing variable exits 1 naming it', async () => {
    await using _guard = leakGuard();
    const out = await run(['call', 'needsvar/echo', '--arg', 'message=x']);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('MCP_HOST_TEST_CLI_UNSET');
    expect(out.stderr).toMatch(/^error: server 'needsvar': not started: /);
    expect(out.stderr.match(/'needsvar'/g)).toHaveLength(1);
    const jsonOut = await run(['call', 'needsvar/echo', '--json']);
    expect(jsonOut.code).toBe(1);
    expect(JSON.parse(jsonOut.stderr.trim()).error).toMatchObject({
      code: 'CONFIG_VARIABLE_UNSET',
    });
  });

  it('restart connects a server, restarts it and shows its row', async () => {
    await using _guard = leakGuard();
    const { code, body } = await runJson(['servers', 'restart', 'fixture']);
    expect(code).toBe(0);
    expect(body?.result).toMatchObject({ name: 'fixture', state: 'ready', restarts: 1 });
    const down = await run(['servers', 'restart', 'nowhere']);
    expect(down.code).toBe(4);
    expect(down.stdout).toMatch(/nowhere\s+failed/);
  });

  it("disable and enable write `enabled` into the server's own file", async () => {
    await using _guard = leakGuard();
    const copy = join(scratch.path, 'toggle.yaml');
    writeFileSync(copy, readFileSync(configFile, 'utf8'));
    expect((await run(['--config', copy, 'servers', 'disable', 'nowhere'])).code).toBe(0);
    expect(readFileSync(copy, 'utf8')).toMatch(/nowhere:\n(.*\n)*\s+enabled: false/);
    const { body } = await runJson(['--config', copy, 'servers', 'list']);
    expect(body?.result[2]).toMatchObject({ name: 'nowhere', enabled: false });
    expect((await run(['--config', copy, 'servers', 'enable', 'nowhere'])).code).toBe(0);
    expect(readFileSync(copy, 'utf8')).toMatch(/enabled: true/);
  });
});

describe('mcp-host tools and inspect', () => {
  it('tools lists exposed and original names', async () => {
    await using _guard = leakGuard();
    const table = await run(['tools', 'fixture']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/fixture\s+echo\s+mcp__fixture__echo/);
    const { body } = await runJson(['tools', 'fixture']);
    expect(body?.result).toContainEqual(
      expect.objectContaining({
        name: 'mcp__fixture__add',
        originalName: 'add',
        server: 'fixture',
      }),
    );
  });

  it('inspect shows a server and one tool with its schema', async () => {
    await using _guard = leakGuard();
    const server = await run(['inspect', 'fixture']);
    expect(server.code).toBe(0);
    expect(server.stdout).toMatch(/fixture: ready/);
    expect(server.stdout).toMatch(/add\s+mcp__fixture__add\s+a:number b:number/);
    const tool = await runJson(['inspect', 'fixture/echo']);
    expect(tool.body?.result).toMatchObject({
      originalName: 'echo',
      inputSchema: { type: 'object' },
    });
    const unknown = await run(['inspect', 'fixture/nope']);
    expect(unknown.code).toBe(5);
  });
});

describe('mcp-host call', () => {
  it('types --arg by the schema: zip=01234 stays a string, numbers are numbers', async () => {
    await using _guard = leakGuard();
    const echo = await run(['call', 'fixture/echo', '--arg', 'message=01234']);
    expect(echo.code).toBe(0);
    expect(echo.stdout).toBe('01234\n');
    const add = await runJson(['call', 'fixture/add', '--arg', 'a=2', '--arg', 'b=3']);
    expect(add.code).toBe(0);
    expect(add.body?.result.structuredContent).toEqual({ sum: 5 });
    const bad = await run(['call', 'fixture/add', '--arg', 'a=two', '--arg', 'b=3']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/a: 'two' is not number/);
  });

  it('takes JSON arguments from --args and from stdin, and calls by exposed name', async () => {
    await using _guard = leakGuard();
    const args = await run(['call', 'mcp__fixture__echo', '--args', '{"message":"from args"}']);
    expect(args.stdout).toBe('from args\n');
    const stdin = await runJson(['call', 'fixture/echo', '-'], {
      input: '{"message":"from stdin"}',
    });
    expect(stdin.body?.result.content).toEqual([{ type: 'text', text: 'from stdin' }]);
    const raw = await run(['call', 'fixture/echo', '--args', '-', '--raw'], {
      input: '{"message":"r"}',
    });
    expect(JSON.parse(raw.stdout)).toMatchObject({ content: [{ type: 'text', text: 'r' }] });
    const notJson = await run(['call', 'fixture/echo', '-'], { input: 'nope' });
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toMatch(/stdin is not JSON/);
  });

  it('a tool error exits 5 with the payload still printed; an unknown tool exits 5', async () => {
    await using _guard = leakGuard();
    const fail = await runJson(['call', 'fixture/fail']);
    expect(fail.code).toBe(5);
    expect(fail.body?.result.isError).toBe(true);
    expect(JSON.parse(fail.stderr.trim()).error).toMatchObject({
      code: 'TOOL_ERROR',
      server: 'fixture',
    });
    const table = await run(['call', 'fixture/fail']);
    expect(table.code).toBe(5);
    expect(table.stdout).not.toBe('');
    expect(table.stderr).toBe("error: server 'fixture': tool 'fail' returned an error\n");
    const unknown = await run(['call', 'fixture/nope']);
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).toMatch(/no tool 'nope'.*echo/);
    const unknownExposed = await run(['call', 'mcp__nothing__here', '--quiet']);
    expect(unknownExposed.code).toBe(5);
  });
});

describe('mcp-host resources and prompts', () => {
  it('resources lists, read reads', async () => {
    await using _guard = leakGuard();
    const table = await run(['resources', 'fixture']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/fixture\s+fixture:\/\/static\/hello/);
    const listed = await runJson(['resources', 'fixture']);
    expect(listed.body?.result).toContainEqual(
      expect.objectContaining({ uri: 'fixture://static/hello' }),
    );
    const read = await run(['read', 'fixture://static/hello', '--server', 'fixture']);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain('hello, world');
    const readJson = await runJson(['read', 'fixture://static/hello', '-s', 'fixture']);
    expect(readJson.body?.result.contents[0]).toMatchObject({ text: 'hello, world' });
  });

  it('prompts lists, prompt gets one with --arg', async () => {
    await using _guard = leakGuard();
    const table = await run(['prompts', 'fixture']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/fixture\s+greet\s+mcp__fixture__greet\s+name style\?/);
    const got = await run(['prompt', 'fixture/greet', '--arg', 'name=alice']);
    expect(got.code).toBe(0);
    expect(got.stdout).toMatch(/user:\n.*alice/);
    const gotJson = await runJson(['prompt', 'fixture/greet', '--arg', 'name=bob']);
    expect(JSON.stringify(gotJson.body?.result.messages)).toContain('bob');
  });
});

describe('usage errors', () => {
  it('exit 1: unknown command, bad --timeout, unknown server, invalid config', async () => {
    await using _guard = leakGuard();
    expect((await run(['frobnicate'])).code).toBe(1);
    const timeout = await run(['servers', 'list', '--timeout', 'soon']);
    expect(timeout.code).toBe(1);
    expect(timeout.stderr).toMatch(/duration/);
    const unknown = await run(['tools', 'ghost']);
    expect(unknown.code).toBe(1);
    // The server named once, by the message (no `[ghost]` tag before it).
    expect(unknown.stderr).toBe(
      "error: server 'ghost': not in the config (configured: fixture, needsvar, nowhere)\n",
    );
    const unknownJson = await run(['tools', 'ghost', '--json']);
    expect(JSON.parse(unknownJson.stderr.trim())).toEqual({
      error: {
        code: 'INVALID_ARGUMENT',
        message: "server 'ghost': not in the config (configured: fixture, needsvar, nowhere)",
        server: 'ghost',
      },
    });
    const broken = join(scratch.path, 'broken.yaml');
    writeFileSync(broken, 'servers: [unclosed\n');
    expect((await run(['--config', broken, 'servers', 'list'])).code).toBe(1);
  });

  it('global options come from MCP_HOST_* variables', async () => {
    await using _guard = leakGuard();
    const out = await run(['servers', 'list'], { env: { MCP_HOST_FORMAT: 'json' } });
    expect(json(out.stdout).result).toHaveLength(3);
  });
});

describe('input, timeouts, signals and pipes', () => {
  function writeExtra(name: string, lines: string[]): string {
    const file = join(scratch.path, name);
    writeFileSync(file, ['servers:', ...lines, ''].join('\n'), { mode: 0o600 });
    return file;
  }

  it('an input nobody can give exits 3 (not a TTY, no MCP_HOST_INPUTS)', async () => {
    await using _guard = leakGuard();
    const file = writeExtra('input.yaml', [
      '  asks:',
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: [${JSON.stringify(fixture)}]`,
      '    env:',
      '      TOKEN: ${input:token}',
    ]);
    const out = await run(['--config', file, 'call', 'asks/echo', '--json']);
    expect(out.code).toBe(3);
    expect(JSON.parse(out.stderr.trim()).error).toMatchObject({ code: 'CONFIG_INPUT_REQUIRED' });
  });

  it('a server that never answers the handshake is unreachable within --timeout (exit 4)', async () => {
    await using _guard = leakGuard();
    const file = writeExtra('hang.yaml', [
      '  hangs:',
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: [${JSON.stringify(neverAnswers)}]`,
    ]);
    const started = performance.now();
    const out = await run(['--config', file, 'call', 'hangs/echo', '--timeout', '500ms']);
    expect(out.code).toBe(4);
    expect(out.stderr).toMatch(/hangs/);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('SIGINT while servers connect closes them all and exits 130, printing no result', async () => {
    await using guard = leakGuard();
    const file = writeExtra('sigint.yaml', [
      '  hangs:',
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: [${JSON.stringify(neverAnswers)}]`,
      '  fixture:',
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: [${JSON.stringify(fixture)}]`,
    ]);
    const child = spawn(process.execPath, [cli, '--config', file, 'servers', 'status'], {
      cwd: scratch.path,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    guard.trackPid(child.pid);
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    // Both servers spawned (the hanging one keeps the command connecting): then interrupt. Known
    // by their scripts: a child forked a moment ago may not have exec'd its command yet.
    const scripts = [neverAnswers, fixture];
    const servers = () =>
      runningDescendants(child.pid!).filter((p) =>
        scripts.some((script) => commandLine(p.pid)?.includes(script) === true),
      );
    const deadline = Date.now() + 10_000;
    while (servers().length < 2 && Date.now() < deadline)
      await new Promise((resolve) => setImmediate(resolve));
    for (const p of servers()) guard.trackPid(p.pid);
    expect(servers().length).toBeGreaterThanOrEqual(2);
    // The CLI's orphan watchdog, holding nothing once the servers are closed, ends with the CLI.
    const watchdogs = runningDescendants(child.pid!).filter((p) => isOrphanWatchdog(p.pid));
    child.kill('SIGINT');
    const interrupted = performance.now();
    const [code] = await once(child, 'exit');
    expect(code).toBe(130);
    // Not the 30 s connect timeout of the server that never answers: its connect is given up.
    expect(performance.now() - interrupted).toBeLessThan(10_000);
    expect(stdout).toBe('');
    expect(
      await waitUntilGone(
        watchdogs.map((p) => p.pid),
        5_000,
      ),
    ).toEqual([]);
  });

  it('a reader that goes away (| head) is not a crash, and the servers are closed', async () => {
    await using _guard = leakGuard();
    const child = spawn(process.execPath, [cli, '--config', configFile, 'tools', 'fixture'], {
      cwd: scratch.path,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.destroy();
    const [code] = await once(child, 'exit');
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(0);
  });

  it('--concurrency 1 still connects every server', async () => {
    await using _guard = leakGuard();
    const { body } = await runJson(['servers', 'status', '--concurrency', '1']);
    expect(body?.result.find((s: { name: string }) => s.name === 'fixture').state).toBe('ready');
    expect((await run(['servers', 'list', '--concurrency', '0'])).code).toBe(1);
  });
});
