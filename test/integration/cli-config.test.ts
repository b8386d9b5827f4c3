/**
 * `mcp-host config validate|show|import|print` on the built binary: diagnostics with
 * file:line:col and exit 1 on errors, the merged config with secrets masked (a canary), import
 * from another tool's file with a backup or a dry run, and printing for another dialect.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, ensureBuiltCli, runCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

const CANARY = 'cfg-canary-5d2b8e91';
const HEADER_CANARY = 'hdr-canary-c0ffee42';

const valid = [
  'servers:',
  '  files:',
  '    command: npx',
  '    args: [-y, server-filesystem]',
  '    env:',
  `      API_KEY: ${CANARY}`,
  '      GITHUB_TOKEN: ${GITHUB_TOKEN}',
  '  remote:',
  '    url: https://mcp.example.com/mcp',
  '    headers:',
  `      Authorization: Bearer ${HEADER_CANARY}`,
  '',
].join('\n');

const invalid = [
  'servers:',
  '  github:',
  '    command: npx',
  '    timeouts: { connectMs: -5 }',
  '  remote:',
  '    url: https://mcp.example.com/mcp',
  '    enabeld: false',
  '',
].join('\n');

function write(dir: string, name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

beforeAll(() => ensureBuiltCli());

describe('mcp-host config validate', () => {
  it('lists each problem at file:line:col and exits 1 on errors', async () => {
    using dir = tempDir();
    const file = write(dir.path, 'mcp.yaml', invalid);
    const run = await runCli(['config', 'validate', file], { cwd: dir.path });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `${file}:4:28: error: servers.github.timeouts.connectMs: expected a whole number ≥ 0, found -5`,
    );
    expect(run.stdout).toMatch(/mcp\.yaml:7:5: warning: servers\.remote\.enabeld: unknown key/);
    expect(run.stdout).toContain("did you mean 'enabled'?");
    expect(run.stdout).toContain('1 file, 1 server: 1 error, 1 warning');
  });

  it('exits 0 on a valid file; JSON gives one envelope with the diagnostics', async () => {
    using dir = tempDir();
    write(dir.path, 'mcp.yaml', valid);
    // Variables are resolved as a run resolves them: the one the file uses is set.
    const env = cliEnv({ GITHUB_TOKEN: 'set-for-validate' });
    const ok = await runCli(['config', 'validate'], { cwd: dir.path, env });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('1 file, 2 servers: 0 errors');
    const bad = write(dir.path, 'bad.yaml', invalid);
    const json = await runCli(['config', 'validate', bad, '--format', 'json'], { cwd: dir.path });
    expect(json.code).toBe(1);
    const { result } = JSON.parse(json.stdout) as {
      result: { valid: boolean; diagnostics: { severity: string; line: number; column: number }[] };
    };
    expect(result.valid).toBe(false);
    expect(result.diagnostics[0]).toMatchObject({ severity: 'error', line: 4, column: 28 });
  });

  it('fails on a syntax error, naming where', async () => {
    using dir = tempDir();
    const file = write(dir.path, 'mcp.yaml', 'servers:\n  a: [\n');
    const run = await runCli(['config', 'validate', file], { cwd: dir.path });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/mcp\.yaml:\d+:\d+: error:/);
  });
});

describe('mcp-host config show', () => {
  it('masks secrets (literal env values, header values) and keeps references', async () => {
    using dir = tempDir();
    const file = write(dir.path, 'mcp.yaml', valid);
    const run = await runCli(['--config', file, 'config', 'show'], { cwd: dir.path });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('API_KEY: <masked>');
    expect(run.stdout).toContain('GITHUB_TOKEN: ${GITHUB_TOKEN}');
    expect(run.stdout).toMatch(/Authorization: (Bearer )?<masked>/);
    expect(run.stdout + run.stderr).not.toContain(CANARY);
    expect(run.stdout + run.stderr).not.toContain(HEADER_CANARY);

    const json = await runCli(['--config', file, 'config', 'show', '--json'], { cwd: dir.path });
    expect(json.stdout + json.stderr).not.toContain(CANARY);
    expect(json.stdout + json.stderr).not.toContain(HEADER_CANARY);
    const { result } = JSON.parse(json.stdout) as { result: { servers: { name: string }[] } };
    expect(result.servers.map((s) => s.name)).toEqual(['files', 'remote']);
  });

  it('shows them with --show-secrets, with a warning', async () => {
    using dir = tempDir();
    const file = write(dir.path, 'mcp.yaml', valid);
    const run = await runCli(['--config', file, 'config', 'show', '--show-secrets'], {
      cwd: dir.path,
    });
    expect(run.stdout).toContain(CANARY);
    expect(run.stderr).toContain('--show-secrets');
  });
});

describe('mcp-host config import and print', () => {
  const desktop = JSON.stringify(
    {
      mcpServers: {
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
        git: { command: 'uvx', args: ['mcp-server-git'], env: { GIT_TOKEN: CANARY } },
      },
    },
    null,
    2,
  );

  it('--dry-run prints mcp.yaml and writes nothing', async () => {
    using dir = tempDir();
    const source = write(dir.path, 'claude_desktop_config.json', desktop);
    const run = await runCli(
      ['config', 'import', '--from', 'claude-desktop', source, '--dry-run'],
      {
        cwd: dir.path,
      },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^servers:\n {2}memory:\n {4}command: npx/);
    expect(run.stdout).toContain('GIT_TOKEN: <masked>');
    expect(run.stdout + run.stderr).not.toContain(CANARY);
    expect(existsSync(join(dir.path, 'mcp.yaml'))).toBe(false);
  });

  it('writes mcp.yaml, keeping the old one as mcp.yaml.bak', async () => {
    using dir = tempDir();
    const source = write(dir.path, 'claude_desktop_config.json', desktop);
    write(dir.path, 'mcp.yaml', 'servers: {}\n');
    const run = await runCli(['config', 'import', '--from', 'claude-desktop', source], {
      cwd: dir.path,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('imported 2 servers (memory, git)');
    expect(readFileSync(join(dir.path, 'mcp.yaml.bak'), 'utf8')).toBe('servers: {}\n');
    const written = readFileSync(join(dir.path, 'mcp.yaml'), 'utf8');
    expect(written).toContain('mcp-server-git');
    expect(written).toContain(CANARY); // the file to use keeps the value
    expect(run.stdout + run.stderr).not.toContain(CANARY);
    // The imported file loads.
    const check = await runCli(['config', 'validate', 'mcp.yaml'], { cwd: dir.path });
    expect(check.code).toBe(0);
  });

  it('finds the tool file in its default place (claude-code: ./.mcp.json)', async () => {
    using dir = tempDir();
    write(
      dir.path,
      '.mcp.json',
      JSON.stringify({ mcpServers: { api: { type: 'http', url: 'https://x.example/mcp' } } }),
    );
    const run = await runCli(['config', 'import', '--from', 'claude-code', '--dry-run', '--json'], {
      cwd: dir.path,
    });
    expect(run.code).toBe(0);
    const { result } = JSON.parse(run.stdout) as { result: { servers: string[]; text: string } };
    expect(result.servers).toEqual(['api']);
    expect(result.text).toContain('url: https://x.example/mcp');
  });

  it('an unknown --from is a usage error (exit 1)', async () => {
    const run = await runCli(['config', 'import', '--from', 'nope', 'x.json']);
    expect(run.code).toBe(1);
  });

  it('print --for converts the merged config; what it cannot say is a diagnostic', async () => {
    using dir = tempDir();
    const file = write(dir.path, 'mcp.yaml', valid);
    const run = await runCli(['--config', file, 'config', 'print', '--for', 'claude-code'], {
      cwd: dir.path,
    });
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as { mcpServers: Record<string, unknown> };
    expect(Object.keys(printed.mcpServers)).toEqual(['files', 'remote']);
    // Secrets are masked unless asked for (a masked text is for reading, not for use).
    expect(run.stdout).not.toContain(CANARY);
    expect(run.stdout).not.toContain(HEADER_CANARY);
    expect(run.stderr).toContain('--show-secrets');
    const revealed = await runCli(
      ['--config', file, 'config', 'print', '--for', 'claude-code', '--show-secrets'],
      { cwd: dir.path },
    );
    expect(revealed.stdout).toContain(CANARY);
    const desktopRun = await runCli(
      ['--config', file, 'config', 'print', '--for', 'claude-desktop'],
      {
        cwd: dir.path,
      },
    );
    // Claude Desktop holds no remote server: left out, an error unless --allow-partial.
    expect(desktopRun.code).toBe(1);
    expect(desktopRun.stderr).toMatch(/mcp\.yaml:\d+:\d+: error: servers\.remote:/);
  });
});
