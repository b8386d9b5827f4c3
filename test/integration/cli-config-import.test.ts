/**
 * `config import` and `config print --for` lose nothing silently, on the built binary: a backup
 * is never replaced (`mcp.yaml.bak`, then `mcp.yaml.bak.1`, …), an import that reads no server
 * from a non-empty file is refused naming the dialect it looked for and the one the file looks
 * like, and a server left out is named with its reason and fails the command (exit 1, nothing
 * written) unless `--allow-partial`.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuiltCli, runCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

const HAND_WRITTEN = '# my own servers\nservers:\n  mine:\n    command: node\n';

function write(dir: string, name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

function claudeCode(servers: Record<string, unknown>): string {
  return JSON.stringify({ mcpServers: servers });
}

interface JsonError {
  error: { code: string; message: string };
}

beforeAll(() => ensureBuiltCli());

describe('config import keeps every backup', () => {
  it('a second import keeps the hand-written original as mcp.yaml.bak and adds mcp.yaml.bak.1', async () => {
    using dir = tempDir();
    write(dir.path, 'mcp.yaml', HAND_WRITTEN);
    write(dir.path, '.mcp.json', claudeCode({ api: { type: 'http', url: 'https://x.test/mcp' } }));
    const first = await runCli(['config', 'import', '--from', 'claude-code'], { cwd: dir.path });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`(old file kept as ${join(dir.path, 'mcp.yaml.bak')})`);
    const second = await runCli(['config', 'import', '--from', 'claude-code', '--json'], {
      cwd: dir.path,
    });
    expect(second.code).toBe(0);
    const { result } = JSON.parse(second.stdout) as { result: { backup: string } };
    expect(result.backup).toBe(join(dir.path, 'mcp.yaml.bak.1'));
    expect(readFileSync(join(dir.path, 'mcp.yaml.bak'), 'utf8')).toBe(HAND_WRITTEN);
    expect(readFileSync(join(dir.path, 'mcp.yaml.bak.1'), 'utf8')).toContain('api:');
    expect(readdirSync(dir.path).sort()).toEqual([
      '.mcp.json',
      'mcp.yaml',
      'mcp.yaml.bak',
      'mcp.yaml.bak.1',
    ]);
  });
});

describe('config import refuses to read nothing', () => {
  it('the wrong --from exits 1 naming both dialects, and mcp.yaml is untouched', async () => {
    using dir = tempDir();
    write(dir.path, 'mcp.yaml', HAND_WRITTEN);
    const source = write(dir.path, '.mcp.json', claudeCode({ a: { command: 'node' } }));
    const table = await runCli(['config', 'import', '--from', 'crewai', source], {
      cwd: dir.path,
    });
    expect(table.code).toBe(1);
    expect(table.stderr).toContain(
      `error: read no server from ${source} as crewai; it looks like claude-code: try --from claude-code; nothing written`,
    );
    const json = await runCli(['config', 'import', '--from', 'crewai', source, '--json'], {
      cwd: dir.path,
    });
    expect(json.code).toBe(1);
    expect(json.stdout).toBe('');
    const { error } = JSON.parse(json.stderr) as JsonError;
    expect(error.message).toContain('as crewai; it looks like claude-code');
    expect(readFileSync(join(dir.path, 'mcp.yaml'), 'utf8')).toBe(HAND_WRITTEN);
    expect(existsSync(join(dir.path, 'mcp.yaml.bak'))).toBe(false);
  });

  it('a file of the right dialect with no servers imports as an empty config (exit 0)', async () => {
    using dir = tempDir();
    const source = write(dir.path, '.mcp.json', claudeCode({}));
    const run = await runCli(['config', 'import', '--from', 'claude-code', source], {
      cwd: dir.path,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('imported 0 servers');
  });
});

describe('servers left out fail the command unless --allow-partial', () => {
  const desktop = JSON.stringify({
    mcpServers: { ok: { command: 'node' }, str: 'not an object', noc: { args: [] } },
  });

  it('import names each server left out and why, writes nothing and exits 1', async () => {
    using dir = tempDir();
    write(dir.path, 'mcp.yaml', HAND_WRITTEN);
    const source = write(dir.path, 'claude_desktop_config.json', desktop);
    const table = await runCli(['config', 'import', '--from', 'claude-desktop', source], {
      cwd: dir.path,
    });
    expect(table.code).toBe(1);
    expect(table.stderr).toContain(
      'error: 2 servers left out: str (expected an object, found a string), noc (expected "command" (stdio) or "url" (remote)); nothing written: fix them, or add --allow-partial to import the rest',
    );
    // Each diagnostic once, as formatted: no `warning: …: error:` prefix.
    expect(table.stderr).toMatch(/^\S+claude_desktop_config\.json:1:\d+: error: mcpServers\.str:/m);
    expect(table.stderr).not.toContain('warning: ');
    expect(readFileSync(join(dir.path, 'mcp.yaml'), 'utf8')).toBe(HAND_WRITTEN);
    const json = await runCli(
      ['config', 'import', '--from', 'claude-desktop', source, '--dry-run', '--json'],
      { cwd: dir.path },
    );
    expect(json.code).toBe(1);
    expect((JSON.parse(json.stderr) as JsonError).error.message).toContain(
      '2 servers left out: str',
    );
  });

  it('--allow-partial writes the rest and exits 0, the JSON naming what was left out', async () => {
    using dir = tempDir();
    const source = write(dir.path, 'claude_desktop_config.json', desktop);
    const run = await runCli(
      ['config', 'import', '--from', 'claude-desktop', source, '--allow-partial', '--json'],
      { cwd: dir.path },
    );
    expect(run.code).toBe(0);
    const { result } = JSON.parse(run.stdout) as {
      result: { servers: string[]; dropped: { server: string; reason: string }[] };
    };
    expect(result.servers).toEqual(['ok']);
    expect(result.dropped.map((d) => d.server)).toEqual(['str', 'noc']);
    expect(readFileSync(join(dir.path, 'mcp.yaml'), 'utf8')).toContain('ok:');
  });

  it('print --for claude-desktop: a remote server left out exits 1 unless --allow-partial', async () => {
    using dir = tempDir();
    const file = write(
      dir.path,
      'mcp.yaml',
      'servers:\n  local:\n    command: node\n  remote:\n    url: https://x.test/mcp\n',
    );
    const print = ['--config', file, 'config', 'print', '--for', 'claude-desktop'];
    const table = await runCli(print, { cwd: dir.path });
    expect(table.code).toBe(1);
    expect(Object.keys((JSON.parse(table.stdout) as { mcpServers: object }).mcpServers)).toEqual([
      'local',
    ]);
    expect(table.stderr).toMatch(
      /error: 1 server left out of the claude-desktop config: remote \(.*http.*\); --allow-partial accepts that/,
    );
    const json = await runCli([...print, '--json'], { cwd: dir.path });
    expect(json.code).toBe(1);
    const { result } = JSON.parse(json.stdout) as { result: { dropped: { server: string }[] } };
    expect(result.dropped.map((d) => d.server)).toEqual(['remote']);
    expect((JSON.parse(json.stderr) as JsonError).error.code).toBe('INVALID_ARGUMENT');
    const partial = await runCli([...print, '--allow-partial'], { cwd: dir.path });
    expect(partial.code).toBe(0);
    expect(partial.stderr).not.toContain('--allow-partial accepts that');
  });
});
