/**
 * Permanent start failures are reported at once, typed, with the command as resolved, and never
 * retried; the child's environment is an allow-list unless the caller opts into inheriting it all.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpHostError } from '../../src/index.js';
import { DEFAULT_STDIO_OPTIONS, StdioTransport } from '../../src/stdio.js';
import { TREE_MARKER_ENV } from '../../src/transport/stdio/server-tree.js';
import { fixturePath, startFixture } from '../helpers/fixture-server.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { patchEnv, tempDir } from '../helpers/scratch.js';
import { reportTiming, timed } from '../helpers/timing.js';

/** Starts a transport that must fail; returns the error and checks it is final. */
async function failedStart(transport: StdioTransport, label: string): Promise<McpHostError> {
  const { ms, ...outcome } = await timed(transport.start());
  reportTiming(`spawn failure reported (${label})`, ms);
  expect(outcome.ok).toBe(false);
  const error = (outcome as { error: unknown }).error;
  expect(error).toBeInstanceOf(McpHostError);
  expect(error).toMatchObject({ code: 'SPAWN_FAILED', permanent: true });
  expect(ms).toBeLessThan(2000); // at once, not after some retry or timeout
  expect(transport.state).toBe('closed');
  expect(transport.pid).toBeUndefined();
  // Never retried: asking again gives the same failure without another attempt.
  await expect(transport.start()).rejects.toBe(error);
  await transport.close();
  return error as McpHostError;
}

describe('a server that cannot be started', () => {
  it('command not found (ENOENT)', async () => {
    await using _guard = leakGuard();
    const command = 'mcp-host-no-such-server';
    const error = await failedStart(
      new StdioTransport({ command, serverName: 'missing' }),
      'ENOENT',
    );
    expect(error.message).toContain(`command '${command}' not found on PATH`);
    expect(error.serverName).toBe('missing');
    expect(error.details).toMatchObject({ command, resolvedCommand: null, errno: 'ENOENT' });
  });

  it('command not executable (EACCES), by path and through PATH', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const script = join(dir.path, 'server.mjs');
    writeFileSync(script, '#!/usr/bin/env node\n');
    chmodSync(script, 0o644);

    const byPath = await failedStart(new StdioTransport({ command: script }), 'EACCES, by path');
    expect(byPath.message).toContain('permission denied');
    expect(byPath.details).toMatchObject({
      command: script,
      resolvedCommand: script,
      errno: 'EACCES',
    });

    const onPath = new StdioTransport({ command: 'server.mjs', env: { PATH: dir.path } });
    const viaPath = await failedStart(onPath, 'EACCES, through PATH');
    expect(viaPath.details).toMatchObject({
      command: 'server.mjs',
      resolvedCommand: script,
      errno: 'EACCES',
    });
  });

  it('interpreter of the script not found (ENOENT although the file exists)', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const script = join(dir.path, 'server.sh');
    writeFileSync(script, '#!/nonexistent/interpreter\n');
    chmodSync(script, 0o755);
    const error = await failedStart(new StdioTransport({ command: script }), 'missing interpreter');
    expect(error.details).toMatchObject({
      command: script,
      resolvedCommand: script,
      errno: 'ENOENT',
    });
    expect(error.message).not.toContain('not found on PATH');
    expect(error.message).toContain('interpreter');
  });

  it('working directory missing', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const cwd = join(dir.path, 'gone');
    const transport = new StdioTransport({
      command: process.execPath,
      args: [fixturePath('echo')],
      cwd,
    });
    const error = await failedStart(transport, 'missing cwd');
    expect(error.message).toContain(`working directory '${cwd}' does not exist`);
    expect(error.details).toMatchObject({ cwd, errno: 'ENOENT' });
  });
});

describe('the server environment', () => {
  const canary = { MCP_HOST_TEST_CANARY: 'only-the-parent-has-this' };

  it('is the allow-list, the explicit env and the tree marker; exported functions are skipped', async () => {
    using _env = patchEnv({ ...canary, TERM: '() { :; }; echo exported shell function' });
    await using server = await startFixture('env', { env: { EXPLICIT_SETTING: 'on' } });

    const { env } = await server.peer.request<{ env: Record<string, string> }>('env');

    const inherited = DEFAULT_STDIO_OPTIONS.inheritedEnv.posix.filter((key) => {
      const value = process.env[key];
      return value !== undefined && !value.startsWith('()');
    });
    expect(Object.keys(env).sort()).toEqual(
      [...inherited, 'EXPLICIT_SETTING', TREE_MARKER_ENV].sort(),
    );
    for (const key of inherited) expect(env[key]).toBe(process.env[key]);
    expect(env.EXPLICIT_SETTING).toBe('on');
    expect(env[TREE_MARKER_ENV]).toMatch(/^[0-9a-f-]{36}$/);
    expect(env[TREE_MARKER_ENV]).toBe(server.marker);
    expect(env).not.toHaveProperty('MCP_HOST_TEST_CANARY');
    expect(env).not.toHaveProperty('TERM');
  });

  it('lets explicit env override or remove an inherited variable', async () => {
    using _env = patchEnv({ HOME: '/home/parent', USER: 'parent' });
    await using server = await startFixture('env', {
      env: { HOME: '/srv/server-home', USER: undefined },
    });
    const { env } = await server.peer.request<{ env: Record<string, string> }>('env');
    expect(env.HOME).toBe('/srv/server-home');
    expect(env).not.toHaveProperty('USER');
  });

  it('is the whole parent environment with inheritEnv: true', async () => {
    using _env = patchEnv(canary);
    await using server = await startFixture('env', {
      inheritEnv: true,
      env: { EXPLICIT_SETTING: 'on' },
    });
    const { env } = await server.peer.request<{ env: Record<string, string> }>('env');
    const expected = { ...process.env, EXPLICIT_SETTING: 'on', [TREE_MARKER_ENV]: server.marker };
    expect(env).toEqual(expected);
  });

  it('runs in the given working directory', async () => {
    using dir = tempDir();
    await using server = await startFixture('env', { cwd: dir.path });
    const { cwd } = await server.peer.request<{ cwd: string }>('env');
    expect(cwd).toBe(dir.path);
  });
});
