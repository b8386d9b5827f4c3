/**
 * Config errors on the built binary, as a new user meets them: `config validate` resolves
 * variables as a run does (each unset one an error at file:line:column, named, never a value); a
 * server key too long for 64-character tool names works through the hashed names (`tools` and
 * `call`); and a config error reaches the user in every command, with exit 1, instead of an empty
 * table.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { leakGuard } from '../helpers/leak-guard.js';
import { cliEnv, ensureBuiltCli, runCli, type CliRun } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/mcp/legacy-sdk-server.mjs', import.meta.url));
const CANARY = 'validate-canary-7f3e9a1c';
/** Unset in every run here (cliEnv removes them). */
const UNSET = { MCP_HOST_TEST_UNSET_A: undefined, MCP_HOST_TEST_UNSET_B: undefined };
const PROVIDER_SAFE = /^[a-zA-Z0-9_-]{1,64}$/;

function write(dir: string, name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, [...lines, ''].join('\n'), { mode: 0o600 });
  return file;
}

const fixtureServer = (name: string, extra: string[] = []) => [
  `  ${name}:`,
  `    command: ${JSON.stringify(process.execPath)}`,
  `    args: [${JSON.stringify(FIXTURE)}]`,
  ...extra,
];

/** The one JSON error line of a run in JSON mode (stdout then holds nothing but its result). */
function jsonError(run: CliRun): { code: string; message: string; server: string | null } {
  const lines = run.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return (JSON.parse(lines[0]!) as { error: { code: string; message: string; server: null } })
    .error;
}

beforeAll(() => ensureBuiltCli());

describe('config validate resolves variables as a run does', () => {
  const config = [
    'servers:',
    '  gh:',
    '    command: npx',
    '    args: [-y, gh-server, "--token=${MCP_HOST_TEST_UNSET_A}"]',
    '    env:',
    '      TOKEN: "Bearer ${MCP_HOST_TEST_UNSET_A}"',
    '      OTHER: ${MCP_HOST_TEST_UNSET_B}',
    '      SET: ${MCP_HOST_TEST_SET}',
    '      DEFAULTED: ${MCP_HOST_TEST_UNSET_B:-fallback}',
    '  off:',
    '    enabled: false',
    '    command: npx',
    '    env: { KEY: "${MCP_HOST_TEST_UNSET_B}" }',
    '  fine:',
    '    url: https://mcp.example.com/mcp',
  ];

  it('names each unset variable at file:line:column, exit 1, no value anywhere', async () => {
    using dir = tempDir();
    const file = write(dir.path, 'mcp.yaml', config);
    const env = cliEnv({ ...UNSET, MCP_HOST_TEST_SET: CANARY });
    const run = await runCli(['config', 'validate', file], { cwd: dir.path, env });
    expect(run.code).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toEqual([
      `${file}:4:36: error: servers.gh.args[2]: variable MCP_HOST_TEST_UNSET_A is not set (and has no default)`,
      `${file}:6:22: error: servers.gh.env.TOKEN: variable MCP_HOST_TEST_UNSET_A is not set (and has no default)`,
      `${file}:7:14: error: servers.gh.env.OTHER: variable MCP_HOST_TEST_UNSET_B is not set (and has no default)`,
      `${file}:13:18: warning: servers.off.env.KEY: variable MCP_HOST_TEST_UNSET_B is not set (and has no default) (the server is disabled: it fails once enabled)`,
      '1 file, 3 servers: 3 errors, 1 warning',
    ]);
    expect(run.stdout + run.stderr).not.toContain(CANARY);

    const json = await runCli(['config', 'validate', file, '--json'], { cwd: dir.path, env });
    expect(json.code).toBe(1);
    const { result } = JSON.parse(json.stdout) as {
      result: { valid: boolean; errors: number; diagnostics: Record<string, unknown>[] };
    };
    expect(result).toMatchObject({ valid: false, errors: 3 });
    expect(result.diagnostics[2]).toMatchObject({
      severity: 'error',
      kind: 'unset-variable',
      server: 'gh',
      file,
      line: 7,
      column: 14,
      path: 'servers.gh.env.OTHER',
      message: 'variable MCP_HOST_TEST_UNSET_B is not set (and has no default)',
    });
    expect(json.stdout + json.stderr).not.toContain(CANARY);
  });

  it('is valid once the variables are set (a secret in args is still a warning)', async () => {
    using dir = tempDir();
    const file = write(dir.path, 'mcp.yaml', config);
    const env = cliEnv({
      MCP_HOST_TEST_UNSET_A: CANARY,
      MCP_HOST_TEST_UNSET_B: CANARY,
      MCP_HOST_TEST_SET: CANARY,
    });
    const run = await runCli(['config', 'validate', file], { cwd: dir.path, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      `${file}:2:3: warning: servers.gh.args[2]: server 'gh': args[2] carries \${MCP_HOST_TEST_UNSET_A}; command-line arguments are visible to every local user (ps): pass secrets in env instead\n` +
        '1 file, 3 servers: 0 errors, 1 warning\n',
    );
    expect(run.stdout).not.toContain(CANARY);
  });

  it('agrees with servers status, which names the same variable', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = write(dir.path, 'mcp.yaml', [
      'servers:',
      ...fixtureServer('needs', ['    env:', '      TOKEN: ${MCP_HOST_TEST_UNSET_A}']),
    ]);
    const env = cliEnv(UNSET);
    const validate = await runCli(['config', 'validate', file], { cwd: dir.path, env });
    const status = await runCli(['--config', file, 'servers', 'status'], { cwd: dir.path, env });
    expect(validate.code).toBe(1);
    expect(status.code).toBe(1);
    expect(validate.stdout).toContain('variable MCP_HOST_TEST_UNSET_A is not set');
    expect(status.stdout).toContain('variable MCP_HOST_TEST_UNSET_A is not set');
  });
});

describe('a server key longer than 64-character tool names allow', () => {
  const key = `very_long_server_key_${'k'.repeat(49)}`;

  it('gets valid, unique, callable tool names (tools, call by key and by exposed name)', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    expect(key).toHaveLength(70);
    const file = write(dir.path, 'mcp.yaml', ['servers:', ...fixtureServer(key)]);
    const validate = await runCli(['config', 'validate', file], { cwd: dir.path });
    expect(validate.code).toBe(0);

    const listed = await runCli(['--config', file, 'tools', '--json'], { cwd: dir.path });
    expect(listed.code).toBe(0);
    expect(listed.stderr).toBe('');
    const tools = (JSON.parse(listed.stdout) as { result: { name: string; server: string }[] })
      .result;
    expect(tools.length).toBeGreaterThan(3);
    for (const tool of tools) {
      expect(tool.server).toBe(key);
      expect(tool.name).toMatch(PROVIDER_SAFE);
    }
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
    const echo = tools.find((t) => t.name.endsWith('__echo'))!.name;
    expect(echo).toMatch(/^mcp__very_long_serve_[0-9a-f]{8}__echo$/);

    const table = await runCli(['--config', file, 'tools'], { cwd: dir.path });
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(echo);

    const byKey = await runCli(['--config', file, 'call', `${key}/echo`, '--arg', 'message=hi'], {
      cwd: dir.path,
    });
    expect(byKey).toMatchObject({ code: 0, stdout: 'hi\n' });
    const byName = await runCli(['--config', file, 'call', echo, '--arg', 'message=ho'], {
      cwd: dir.path,
    });
    expect(byName).toMatchObject({ code: 0, stdout: 'ho\n' });
  });
});

describe('a config error reaches the user in every command, exit 1', () => {
  // Every server refused by the reader: a key with the separator, and an invalid value.
  const refused = [
    'servers:',
    ...fixtureServer('my__server'),
    ...fixtureServer('other', ['    timeouts: { connectMs: -5 }']),
  ];

  it.each([
    [['tools']],
    [['servers', 'status']],
    [['servers', 'list']],
    [['call', 'other/echo']],
    [['resources']],
    [['config', 'show']],
  ])('%j names each refused server and why (table and JSON)', async (args) => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = write(dir.path, 'mcp.yaml', refused);
    const text = await runCli(['--config', file, ...args], { cwd: dir.path });
    expect(text.code).toBe(1);
    expect(text.stdout).toBe('');
    // Each diagnostic once as formatted, with no second `error:` before it.
    expect(
      text.stderr.startsWith(
        `${file}:3:5: error: servers.my__server: server key "my__server" contains the tool-name separator`,
      ),
    ).toBe(true);
    expect(text.stderr).not.toContain(`error: ${file}`);
    expect(text.stderr).toContain(`${file}:8:28: error: servers.other.timeouts.connectMs:`);

    const json = await runCli(['--config', file, ...args, '--json'], { cwd: dir.path });
    expect(json.code).toBe(1);
    expect(json.stdout).toBe('');
    const error = jsonError(json);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('servers.my__server');
    expect(error.message).toContain('servers.other.timeouts.connectMs');
  });

  it('shell completion (hidden __complete) offers what loaded and prints no error', async () => {
    using dir = tempDir();
    const file = write(dir.path, 'mcp.yaml', [...refused, ...fixtureServer('fine')]);
    const run = await runCli(['--config', file, '__complete', 'servers'], { cwd: dir.path });
    expect(run).toMatchObject({ code: 0, stdout: 'fine\n', stderr: '' });
  });

  it('doctor reports each refused server as a finding (exit 1)', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = write(dir.path, 'mcp.yaml', refused);
    const run = await runCli(['--config', file, 'doctor'], { cwd: dir.path });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/my__server\s+config-invalid/);
    expect(run.stdout).toMatch(/other\s+config-invalid/);
  });

  it('a server whose variable is unset is named by tools; the others are listed (exit 1)', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = write(dir.path, 'mcp.yaml', [
      'servers:',
      ...fixtureServer('ok'),
      ...fixtureServer('needs', ['    env:', '      TOKEN: ${MCP_HOST_TEST_UNSET_A}']),
    ]);
    const env = cliEnv(UNSET);
    const text = await runCli(['--config', file, 'tools'], { cwd: dir.path, env });
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/ok\s+echo\s+mcp__ok__echo/);
    expect(text.stderr).toMatch(
      /^error: server 'needs': not started: .*variable MCP_HOST_TEST_UNSET_A is not set/m,
    );
    const json = await runCli(['--config', file, 'tools', '--json'], { cwd: dir.path, env });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).result.length).toBeGreaterThan(0);
    expect(jsonError(json)).toMatchObject({ code: 'CONFIG_VARIABLE_UNSET', server: 'needs' });
  });
});
