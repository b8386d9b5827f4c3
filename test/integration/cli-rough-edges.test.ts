/**
 * Small things a new user trips on, on the built CLI: `MCP_HOST_JSON`, `MCP_HOST_QUIET` and
 * `MCP_HOST_VERBOSE` set to 0/false/no/off mean off; a config error prints its diagnostics once,
 * not under a second `error:`; arguments given both on stdin and with `--args`, or one `--arg`
 * key twice, are refused (exit 1).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, ensureBuiltCli, repoRoot, runCli } from '../helpers/run-built-cli.js';
import { tempDir, type TempDir } from '../helpers/scratch.js';

const fixture = join(repoRoot, 'test', 'fixtures', 'servers', 'typed-args.mjs');

function configDir(): TempDir {
  const dir = tempDir();
  writeFileSync(
    join(dir.path, 'mcp.yaml'),
    `servers:\n  t:\n    command: node\n    args: ['${fixture}']\n`,
    { mode: 0o600 },
  );
  return dir;
}

beforeAll(() => ensureBuiltCli());

describe('MCP_HOST_* switches', () => {
  it('0, false, no and off turn MCP_HOST_JSON off; 1 and true turn it on', async () => {
    using dir = configDir();
    for (const value of ['0', 'false', 'no', 'OFF']) {
      const env = cliEnv({ MCP_HOST_JSON: value });
      const list = await runCli(['servers', 'list'], { cwd: dir.path, env });
      expect(list.stdout).toMatch(/^NAME\s+ENABLED/);
      // A usage error is text too (usage-errors.ts reads the variable the same way).
      const usage = await runCli(['servers', 'list', '--nope'], { cwd: dir.path, env });
      expect(usage.code).toBe(1);
      expect(usage.stderr).toMatch(/^error: unknown option '--nope'/);
    }
    for (const value of ['1', 'true']) {
      const env = cliEnv({ MCP_HOST_JSON: value });
      const list = await runCli(['servers', 'list'], { cwd: dir.path, env });
      expect(JSON.parse(list.stdout)).toHaveProperty('result');
      const usage = await runCli(['servers', 'list', '--nope'], { cwd: dir.path, env });
      expect(JSON.parse(usage.stderr)).toHaveProperty('error.code', 'INVALID_ARGUMENT');
    }
  });

  it('MCP_HOST_QUIET=0 keeps the warnings; MCP_HOST_QUIET=1 drops them', async () => {
    using dir = configDir();
    const show = (value: string) =>
      runCli(['config', 'show', '--show-secrets'], {
        cwd: dir.path,
        env: cliEnv({ MCP_HOST_QUIET: value }),
      });
    expect((await show('0')).stderr).toContain('warning: --show-secrets');
    expect((await show('false')).stderr).toContain('warning: --show-secrets');
    expect((await show('1')).stderr).toBe('');
  });
});

describe('messages with one prefix', () => {
  it('a config syntax error in any command prints each diagnostic once, without error: before it', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'broken.json');
    writeFileSync(file, '{"mcpServers": {"a": {"command": "node" "args": []}}}\n');
    const run = await runCli(['--config', file, 'servers', 'list'], { cwd: dir.path });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`${file}:1:41: error: JSON: ',' was expected, found a string\n`);
  });
});

describe('arguments given twice are refused', () => {
  it("stdin ('-') and --args both: exit 1, in table and JSON mode", async () => {
    using dir = configDir();
    const args = ['call', 't/record', '-', '--args', '{"mode":"fast"}'];
    const table = await runCli(args, { cwd: dir.path, input: '{"mode":"slow"}' });
    expect(table.code).toBe(1);
    expect(table.stderr).toBe(
      "error: arguments from stdin ('-') and --args both: give them one way\n",
    );
    const json = await runCli([...args, '--json'], { cwd: dir.path, input: '{"mode":"slow"}' });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toHaveProperty('error.code', 'INVALID_ARGUMENT');
  });

  it('the same --arg key twice (call, prompt): exit 1 naming it', async () => {
    using dir = configDir();
    const args = ['call', 't/record', '--arg', 'mode=fast', '--arg', 'mode=slow'];
    const table = await runCli(args, { cwd: dir.path });
    expect(table.code).toBe(1);
    expect(table.stderr).toContain('error: --arg mode is given twice: give it once');
    const json = await runCli([...args, '--json'], { cwd: dir.path });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toHaveProperty(
      'error.message',
      '--arg mode is given twice: give it once',
    );
    const prompt = await runCli(['prompt', 't/greet', '--arg', 'who=a', '--arg', 'who=b'], {
      cwd: dir.path,
    });
    expect(prompt.code).toBe(1);
    expect(prompt.stderr).toBe('error: --arg who is given twice: give it once\n');
  });
});
