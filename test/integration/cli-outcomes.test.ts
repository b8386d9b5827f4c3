/**
 * Results the built CLI gets right for a new user (issue 20, "wrong results and misleading
 * messages"): a connect that times out is `failed` with REQUEST_TIMEOUT in every command.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { leakGuard } from '../helpers/leak-guard.js';
import { ensureBuiltCli, repoRoot, runCli } from '../helpers/run-built-cli.js';
import { tempDir, type TempDir } from '../helpers/scratch.js';

const servers = join(repoRoot, 'test', 'fixtures', 'servers');
const ok = join(servers, 'supervised.mjs');
const hang = join(servers, 'never-answers.mjs');

/** A directory with an `mcp.yaml` of the given text. */
function configDir(text: string): TempDir {
  const dir = tempDir();
  writeFileSync(join(dir.path, 'mcp.yaml'), text, { mode: 0o600 });
  return dir;
}

function lastJsonLine(text: string): Record<string, unknown> {
  return JSON.parse(text.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

beforeAll(() => ensureBuiltCli());

describe('a connect that times out', () => {
  const yaml = `servers:\n  ok:\n    command: node\n    args: ['${ok}']\n  hang:\n    command: node\n    args: ['${hang}']\n`;

  it('servers status: failed REQUEST_TIMEOUT naming the duration, exit 4 (table and JSON)', async () => {
    await using _guard = leakGuard();
    using dir = configDir(yaml);
    const table = await runCli(['servers', 'status', '--timeout', '1s'], { cwd: dir.path });
    expect(table.code).toBe(4);
    expect(table.stdout).toMatch(/^hang\s+failed\s.*REQUEST_TIMEOUT/m);
    expect(table.stdout).toContain('hang: connect timed out after 1 s');
    const json = await runCli(['servers', 'status', '--timeout', '1s', '--json'], {
      cwd: dir.path,
    });
    expect(json.code).toBe(4);
    const rows = (JSON.parse(json.stdout) as { result: Record<string, unknown>[] }).result;
    expect(rows.find((r) => r.name === 'ok')).toMatchObject({ state: 'ready' });
    expect(rows.find((r) => r.name === 'hang')).toMatchObject({
      state: 'failed',
      lastError: { code: 'REQUEST_TIMEOUT', message: 'connect timed out after 1 s' },
    });
  });

  it('tools: the same outcome as a failed server (a warning, the others listed)', async () => {
    await using _guard = leakGuard();
    using dir = configDir(yaml);
    for (const json of [false, true]) {
      const run = await runCli(['tools', '--timeout', '1s', ...(json ? ['--json'] : [])], {
        cwd: dir.path,
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('mcp__ok__echo');
      expect(run.stderr).toContain(
        "warning: server 'hang': failed (REQUEST_TIMEOUT: connect timed out after 1 s)",
      );
      expect(run.stderr).not.toContain('still connecting');
    }
  });

  it('tools <server> and servers restart: failed REQUEST_TIMEOUT, exit 4', async () => {
    await using _guard = leakGuard();
    using dir = configDir(yaml);
    const one = await runCli(['tools', 'hang', '--timeout', '1s', '--json'], { cwd: dir.path });
    expect(one.code).toBe(4);
    expect(lastJsonLine(one.stderr)).toMatchObject({
      error: { code: 'REQUEST_TIMEOUT', server: 'hang' },
    });
    expect(one.stderr).toContain('connect timed out after 1 s');
    const restart = await runCli(['servers', 'restart', 'hang', '--timeout', '1s', '--json'], {
      cwd: dir.path,
    });
    expect(restart.code).toBe(4);
    expect(JSON.parse(restart.stdout)).toMatchObject({
      result: { state: 'failed', lastError: { code: 'REQUEST_TIMEOUT' } },
    });
  });
});

describe('invalid server entries are named', () => {
  const entry = (name: string) =>
    `  ${JSON.stringify(name)}:\n    command: node\n    args: ['${ok}']\n`;
  const yaml = `servers:\n${entry('ok')}${entry('a.b')}${entry('a_b')}${entry('bad name!')}${entry('')}`;

  it('a clash, an unusable name and an empty name: every command names each, and why (exit 1)', async () => {
    using dir = configDir(yaml);
    const commands = [['servers', 'list'], ['servers', 'status'], ['tools'], ['call', 'a_b/echo']];
    for (const args of commands) {
      const table = await runCli(args, { cwd: dir.path });
      expect(table.code, args.join(' ')).toBe(1);
      expect(table.stdout).toBe('');
      expect(table.stderr).toContain(
        `mcp.yaml:6:5: error: servers["a.b"]: server keys "a.b", "a_b" all become`,
      );
      expect(table.stderr).toContain(
        `mcp.yaml:9:5: error: servers.a_b: server keys "a.b", "a_b" all become`,
      );
      expect(table.stderr).toContain(
        `error: servers["bad name!"]: server key "bad name!" becomes "bad_name_" in tool names`,
      );
      expect(table.stderr).toContain('error: servers[""]: a server key must be non-empty');
      expect(table.stderr).not.toContain('not in the config');
      const json = await runCli([...args, '--json'], { cwd: dir.path });
      expect(json.code).toBe(1);
      const { error } = lastJsonLine(json.stderr) as { error: { code: string; message: string } };
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toContain('servers.a_b: server keys "a.b", "a_b"');
      expect(error.message).toContain('servers[""]: a server key must be non-empty');
    }
  });

  it("a key with '/' is refused at load, naming the file, the key and a name to use", async () => {
    using dir = configDir(`servers:\n${entry('ok')}${entry('a/b')}`);
    const message = `server key "a/b" contains '/', which the command line reads as the end of a server's name ('call a/b/tool' names the server "a"); rename it, for example to "a-b"`;
    for (const args of [
      ['servers', 'list'],
      ['call', 'a/b/echo'],
      ['config', 'validate'],
    ]) {
      const table = await runCli(args, { cwd: dir.path });
      expect(table.code, args.join(' ')).toBe(1);
      // `config validate` lists its findings on stdout, the other commands on stderr.
      expect(table.stderr + table.stdout).toContain(
        `${join(dir.path, 'mcp.yaml')}:6:5: error: servers["a/b"]: ${message}`,
      );
      const json = await runCli([...args, '--json'], { cwd: dir.path });
      expect(json.code).toBe(1);
      expect(json.stderr + json.stdout).toContain(`server key \\"a/b\\" contains '/'`);
    }
    // Other dialects too: a Claude-style .mcp.json.
    const file = join(dir.path, 'claude.json');
    writeFileSync(file, `{"mcpServers": {"x/y": {"command": "node"}}}\n`);
    const other = await runCli(['--config', file, 'servers', 'list'], { cwd: dir.path });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(`mcpServers["x/y"]: server key "x/y" contains '/'`);
  });
});

describe("relative cwd and envFile: against the config file's directory", () => {
  const where = join(servers, 'where.mjs');

  /** `<dir>/conf/mcp.yaml` with `cwd: sub` and `envFile: where.env`, run from `<dir>`. */
  function layout(withSub: boolean): TempDir {
    const dir = tempDir();
    const conf = join(dir.path, 'conf');
    mkdirSync(withSub ? join(conf, 'sub') : conf, { recursive: true });
    writeFileSync(join(conf, 'where.env'), 'WHERE_VALUE=from-env-file\n');
    writeFileSync(
      join(conf, 'mcp.yaml'),
      `servers:\n  w:\n    command: node\n    args: ['${where}']\n    cwd: sub\n    envFile: where.env\n`,
      { mode: 0o600 },
    );
    return dir;
  }

  it('call, servers status, config validate and doctor all use conf/sub and conf/where.env', async () => {
    await using _guard = leakGuard();
    using dir = layout(true);
    const config = ['--config', join('conf', 'mcp.yaml')];
    const expected = { cwd: join(dir.path, 'conf', 'sub'), value: 'from-env-file' };
    const table = await runCli([...config, 'call', 'w/where'], { cwd: dir.path });
    expect(table.code).toBe(0);
    expect(JSON.parse(table.stdout)).toEqual(expected);
    const json = await runCli([...config, 'call', 'w/where', '--json'], { cwd: dir.path });
    const { result } = JSON.parse(json.stdout) as { result: { content: { text: string }[] } };
    expect(JSON.parse(result.content[0]!.text)).toEqual(expected);
    const status = await runCli([...config, 'servers', 'status', '--json'], { cwd: dir.path });
    expect(status.code).toBe(0);
    const validate = await runCli([...config, 'config', 'validate'], { cwd: dir.path });
    expect(validate.code).toBe(0);
    const doctor = await runCli([...config, 'doctor', '--json'], { cwd: dir.path });
    expect(doctor.code).toBe(0);
    expect(JSON.parse(doctor.stdout)).toMatchObject({ result: { servers: [{ status: 'ok' }] } });
  });

  it('a cwd missing next to the config: servers status and doctor both say so, naming the path', async () => {
    await using _guard = leakGuard();
    using dir = layout(false);
    const config = ['--config', join('conf', 'mcp.yaml')];
    const message = `working directory '${join(dir.path, 'conf', 'sub')}' does not exist`;
    const status = await runCli([...config, 'servers', 'status'], { cwd: dir.path });
    expect(status.code).toBe(4);
    expect(status.stdout).toContain(`w: cannot start the server: ${message}`);
    const doctor = await runCli([...config, 'doctor'], { cwd: dir.path });
    expect(doctor.code).toBe(4);
    expect(doctor.stdout).toContain(message);
    expect(doctor.stdout).toContain("fix: create the directory, or correct 'cwd'");
    const json = await runCli([...config, 'doctor', '--json'], { cwd: dir.path });
    expect(JSON.parse(json.stdout)).toMatchObject({
      result: { servers: [{ status: 'command-not-found', problem: message }], exitCode: 4 },
    });
  });
});

describe('doctor says why a command cannot run, as servers status does', () => {
  it('permission denied for a file without the execute bit, is a directory for a folder', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const script = join(dir.path, 'server.sh');
    writeFileSync(script, '#!/bin/sh\n');
    chmodSync(script, 0o644);
    writeFileSync(
      join(dir.path, 'mcp.yaml'),
      `servers:\n  plain:\n    command: '${script}'\n  folder:\n    command: '${dir.path}'\n`,
      { mode: 0o600 },
    );
    const denied = `permission denied running '${script}'`;
    const folder = `'${dir.path}' is a directory`;
    const status = await runCli(['servers', 'status'], { cwd: dir.path });
    expect(status.code).toBe(4);
    expect(status.stdout).toContain(`plain: cannot start the server: ${denied}`);
    expect(status.stdout).toContain(`folder: cannot start the server: ${folder}`);
    const doctor = await runCli(['doctor'], { cwd: dir.path });
    expect(doctor.code).toBe(4);
    expect(doctor.stdout).toMatch(new RegExp(`plain\\s+command-not-found\\s+${escape(denied)}`));
    expect(doctor.stdout).toMatch(new RegExp(`folder\\s+command-not-found\\s+${escape(folder)}`));
    expect(doctor.stdout).not.toContain('not found on PATH');
    const json = await runCli(['doctor', '--json'], { cwd: dir.path });
    const found = (JSON.parse(json.stdout) as { result: { servers: Record<string, unknown>[] } })
      .result.servers;
    expect(found.find((f) => f.server === 'plain')).toMatchObject({ problem: denied });
    expect(found.find((f) => f.server === 'folder')).toMatchObject({ problem: folder });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('call by exposed name connects only the server it names', () => {
  it('mcp__ok__echo starts ok alone: a hanging server and another are never spawned', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const spawned = join(dir.path, 'other.log');
    writeFileSync(
      join(dir.path, 'mcp.yaml'),
      `servers:\n  ok:\n    command: node\n    args: ['${ok}']\n` +
        `  other:\n    command: node\n    args: ['${ok}', '--spawn-log=${spawned}']\n` +
        `  hang:\n    command: node\n    args: ['${hang}', '--spawn-log=${spawned}']\n`,
      { mode: 0o600 },
    );
    // A connect timeout longer than the run's own bound (30 s): waiting for `hang` would fail it.
    const slow = ['--timeout', '10m'];
    const table = await runCli(['call', 'mcp__ok__echo', '--arg', 'message=hi', ...slow], {
      cwd: dir.path,
    });
    expect(table).toMatchObject({ code: 0, stdout: 'hi\n' });
    const json = await runCli(['call', 'mcp__ok__echo', '--arg', 'message=hi', '--json', ...slow], {
      cwd: dir.path,
    });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      result: { content: [{ type: 'text', text: 'hi' }] },
    });
    expect(existsSync(spawned)).toBe(false);
    // A name no configured server's tools can have: refused at once, nothing started.
    const none = await runCli(['call', 'mcp__nope__echo', '--json', ...slow], { cwd: dir.path });
    expect(none.code).toBe(5);
    expect(lastJsonLine(none.stderr)).toMatchObject({ error: { code: 'TOOL_NOT_FOUND' } });
    expect(existsSync(spawned)).toBe(false);
    // The one server it names is down: its error, exit 4, as for `call hang/x`.
    const down = await runCli(['call', 'mcp__hang__x', '--timeout', '1s', '--json'], {
      cwd: dir.path,
    });
    expect(down.code).toBe(4);
    expect(lastJsonLine(down.stderr)).toMatchObject({
      error: { code: 'REQUEST_TIMEOUT', server: 'hang' },
    });
  });
});
