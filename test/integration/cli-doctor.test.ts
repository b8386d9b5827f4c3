/**
 * `mcp-host doctor` on the built binary: each problem it must name, with the fix, and the exit
 * code of the worst finding. Fixtures: a command not on PATH, an unset variable, a server that
 * crashes on start printing secrets to stderr (masked in the report), one that never answers the
 * handshake, an http URL on a closed 127.0.0.1 port, and the official everything server (fine).
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, closedPort, ensureBuiltCli, repoRoot, runCli } from '../helpers/run-built-cli.js';
import { officialServers } from '../helpers/mcp-servers.js';
import { tempDir } from '../helpers/scratch.js';

const servers = join(repoRoot, 'test', 'fixtures', 'servers');
const everything = officialServers.everything.script;
const CANARY = 'doctor-canary-9f3e1c';
const TOKEN = 'doctor-token-77ab';

function writeConfig(dir: string, port: number): string {
  const file = join(dir, 'mcp.yaml');
  writeFileSync(
    file,
    [
      'servers:',
      '  missing:',
      '    command: mcp-host-test-no-such-command',
      '  unset:',
      '    command: node',
      '    env:',
      '      API_TOKEN: ${MCP_HOST_TEST_UNSET_TOKEN}',
      '  crashes:',
      '    command: node',
      `    args: ['${join(servers, 'crash-before-answer.mjs')}']`,
      '    env:',
      `      FIXTURE_SECRET: ${CANARY}`,
      `      FIXTURE_TOKEN: ${TOKEN}`,
      '  hangs:',
      '    command: node',
      `    args: ['${join(servers, 'never-answers.mjs')}']`,
      '  closed:',
      `    url: http://127.0.0.1:${port}/mcp`,
      '  fine:',
      '    command: node',
      `    args: ['${everything}', stdio]`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return file;
}

interface Finding {
  server: string;
  status: string;
  code?: string;
  problem?: string;
  fix?: string;
  variables?: string[];
  stderrTail?: string;
  exitCode?: number;
  toolCount?: number;
  era?: string;
  auth?: string;
}

beforeAll(() => ensureBuiltCli());

describe('mcp-host doctor', () => {
  it('names each problem and its fix (JSON), exit code 4 for the worst', async () => {
    using dir = tempDir();
    const file = writeConfig(dir.path, await closedPort());
    const run = await runCli(['doctor', '--config', file, '--timeout', '2s', '--format', 'json'], {
      cwd: dir.path,
    });
    expect(run.code).toBe(4);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const { result } = JSON.parse(lines[0]!) as {
      result: { servers: Finding[]; exitCode: number };
    };
    const by = new Map(result.servers.map((f) => [f.server, f]));

    expect(by.get('missing')).toMatchObject({ status: 'command-not-found' });
    expect(by.get('missing')!.problem).toContain(
      "'mcp-host-test-no-such-command' not found on PATH",
    );
    expect(by.get('missing')!.fix).toMatch(/install it/);

    expect(by.get('unset')).toMatchObject({
      status: 'variable-unset',
      variables: ['MCP_HOST_TEST_UNSET_TOKEN'],
    });
    expect(by.get('unset')!.fix).toContain('export MCP_HOST_TEST_UNSET_TOKEN=');

    const crashed = by.get('crashes')!;
    expect(crashed).toMatchObject({ status: 'crashed', exitCode: 3 });
    expect(crashed.stderrTail).toContain('fatal: upstream said 401');
    expect(crashed.stderrTail).toContain('<masked>');

    expect(by.get('hangs')).toMatchObject({ status: 'handshake-timeout' });
    expect(by.get('hangs')!.problem).toContain('no answer to the handshake within 2 s');

    expect(by.get('closed')).toMatchObject({ status: 'unreachable' });
    expect(by.get('closed')!.problem).toContain('ECONNREFUSED');

    expect(by.get('fine')).toMatchObject({ status: 'ok', era: 'legacy', auth: 'n/a' });
    expect(by.get('fine')!.toolCount).toBeGreaterThan(0);

    // No secret anywhere: neither the one the config marks (by value) nor the bearer token.
    expect(run.stdout + run.stderr).not.toContain(CANARY);
    expect(run.stdout + run.stderr).not.toContain(TOKEN);
  });

  it('prints a table for a person, with the stderr tail masked', async () => {
    using dir = tempDir();
    const file = writeConfig(dir.path, await closedPort());
    const run = await runCli(['doctor', 'crashes', 'unset', 'fine', '--config', file], {
      cwd: dir.path,
    });
    expect(run.code).toBe(4);
    expect(run.stdout).toMatch(/✗ crashes +crashed +exited on start with code 3/);
    expect(run.stdout).toContain('| ');
    expect(run.stdout).toMatch(
      /✗ unset +variable-unset +variable MCP_HOST_TEST_UNSET_TOKEN not set/,
    );
    expect(run.stdout).toMatch(/✓ fine +ok +legacy, .*\d+ tools/);
    expect(run.stdout).toContain('2 of 3 servers with a problem');
    expect(run.stdout).not.toContain('\x1b[');
    expect(run.stdout + run.stderr).not.toContain(CANARY);
    expect(run.stdout + run.stderr).not.toContain(TOKEN);
  });

  it('exits 1 for a config problem only (an unset variable), 0 when all is well', async () => {
    using dir = tempDir();
    const file = writeConfig(dir.path, await closedPort());
    const unset = await runCli(['doctor', 'unset', '--config', file], { cwd: dir.path });
    expect(unset.code).toBe(1);
    // A command not on PATH is 4, as `servers status` says (cli-exit-rule.test.ts).
    const missing = await runCli(['doctor', 'unset', 'missing', '--config', file], {
      cwd: dir.path,
    });
    expect(missing.code).toBe(4);
    const fine = await runCli(['doctor', 'fine', '--config', file, '--json'], { cwd: dir.path });
    expect(fine.code).toBe(0);
    const set = await runCli(['doctor', 'unset', '--config', file, '--timeout', '1s'], {
      cwd: dir.path,
      env: cliEnv({ MCP_HOST_TEST_UNSET_TOKEN: 'x' }),
    });
    // With the variable set, `node` with no script reads a script from stdin: no MCP answer.
    expect(set.stdout).not.toContain('variable-unset');
    expect(set.stdout).toMatch(/✗ unset +handshake-timeout/);
    expect(set.code).toBe(4);
  });

  it('a server that refuses the credentials (HTTP 401) is needs-auth, exit 3', async () => {
    using dir = tempDir();
    const server = createServer((_request, response) => {
      response.writeHead(401, { 'www-authenticate': 'Bearer' }).end('unauthorized');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await using _ = {
      [Symbol.asyncDispose]: () => new Promise<void>((r) => server.close(() => r())),
    };
    const port = (server.address() as { port: number }).port;
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(
      file,
      `servers:\n  locked:\n    url: http://127.0.0.1:${port}/mcp\n    headers:\n      Authorization: Bearer ${TOKEN}\n`,
      { mode: 0o600 },
    );
    const run = await runCli(['doctor', '--config', file, '--timeout', '5s'], { cwd: dir.path });
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(
      /! locked +needs-auth +the server refused the credentials \(HTTP 401\)/,
    );
    expect(run.stdout + run.stderr).not.toContain(TOKEN);
    server.closeAllConnections();
  });

  it('a host name that does not resolve is unreachable, with the DNS fix', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(file, 'servers:\n  nowhere:\n    url: http://mcp-host-doctor.invalid/mcp\n');
    const run = await runCli(['doctor', '--config', file, '--timeout', '5s', '--json'], {
      cwd: dir.path,
    });
    expect(run.code).toBe(4);
    const { result } = JSON.parse(run.stdout) as { result: { servers: Finding[] } };
    expect(result.servers[0]).toMatchObject({ status: 'unreachable' });
    expect(result.servers[0]!.problem).toMatch(/does not resolve \((ENOTFOUND|EAI_AGAIN)\)/);
    expect(result.servers[0]!.fix).toContain('host name');
  });

  it('a WebSocket upgrade refused with 404 says so (wrong path?), not "unreachable"', async () => {
    using dir = tempDir();
    const server = createServer((_request, response) => response.writeHead(404).end());
    server.on('upgrade', (_request, socket) => {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await using _ = {
      [Symbol.asyncDispose]: () => new Promise<void>((r) => server.close(() => r())),
    };
    const port = (server.address() as { port: number }).port;
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(file, `servers:\n  sock:\n    url: ws://127.0.0.1:${port}/wrong\n`);
    const table = await runCli(['doctor', '--config', file, '--timeout', '5s'], { cwd: dir.path });
    expect(table.code).toBe(4);
    expect(table.stdout).toMatch(
      /✗ sock +failed +the server answered the WebSocket upgrade with HTTP 404 \(not found\): wrong path\?/,
    );
    expect(table.stdout).toContain('fix: check the path in url');
    expect(table.stdout).not.toContain('unreachable');
    const json = await runCli(['doctor', '--config', file, '--timeout', '5s', '--json'], {
      cwd: dir.path,
    });
    expect(json.code).toBe(4);
    const { result } = JSON.parse(json.stdout) as { result: { servers: Finding[] } };
    expect(result.servers[0]).toMatchObject({ status: 'failed', code: 'CONNECT_FAILED' });
    expect(result.servers[0]!.problem).toContain('HTTP 404');
  });
});
