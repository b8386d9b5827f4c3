/**
 * `mcp-host auth login|logout|status` on the built CLI, against the protected fixture (a scripted
 * authorization server and MCP server on 127.0.0.1). The login is driven headlessly: the test
 * reads the authorization URL line, follows it like a consenting browser and delivers the
 * redirect to the CLI's loopback listener (or pastes it on stdin). The state file lives in a temp
 * dir (MCP_HOST_STATE_DIR), so nothing touches the real home.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { beforeAll, describe, expect, it } from 'vitest';
import { leakGuard } from '../helpers/leak-guard.js';
import { consent } from '../helpers/oauth-fixture.js';
import { startProtectedMcpServer } from '../helpers/protected-mcp-server.js';
import { cliEnv, cliPath, ensureBuiltCli, runCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

beforeAll(() => ensureBuiltCli());

interface Login {
  /** The authorization URL the CLI printed (stdout in table mode, a stderr event with --json). */
  url: Promise<URL>;
  /** Writes a line on the CLI's stdin (a pasted redirect URL). */
  paste(line: string): void;
  /** The exit code and the whole output, once it exits. */
  exit: Promise<{ code: number | null; stdout: string; stderr: string }>;
  pid: number;
}

/** Starts `mcp-host auth login <server> --no-browser` with its stdin open. */
function startLogin(dir: string, server: string, extra: string[] = []): Login {
  const child = spawn(
    process.execPath,
    [cliPath, 'auth', 'login', server, '--no-browser', '--config', join(dir, 'mcp.yaml'), ...extra],
    { cwd: dir, env: env(dir), stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const json = extra.includes('--json');
  const url = new Promise<URL>((resolve, reject) => {
    const lines = createInterface({ input: json ? child.stderr : child.stdout });
    lines.on('line', (line) => {
      if (json) {
        const event = JSON.parse(line) as { event?: string; url?: string };
        if (event.event === 'authorization_url' && event.url !== undefined)
          resolve(new URL(event.url));
      } else if (/^https?:\/\//.test(line)) resolve(new URL(line));
    });
    lines.on('close', () => reject(new Error(`no URL line:\n${stdout}\n${stderr}`)));
  });
  url.catch(() => {});
  const exit = once(child, 'exit').then(([code]) => {
    child.stdin.end();
    return { code: code as number | null, stdout, stderr };
  });
  return {
    url,
    paste: (line) => child.stdin.write(`${line}\n`),
    exit,
    pid: child.pid!,
  };
}

function env(dir: string): NodeJS.ProcessEnv {
  return cliEnv({ MCP_HOST_STATE_DIR: join(dir, 'state'), XDG_STATE_HOME: join(dir, 'xdg') });
}

function writeConfig(dir: string, url: string): void {
  writeFileSync(
    join(dir, 'mcp.yaml'),
    ['servers:', '  tracker:', '    type: http', `    url: ${url}`, '    oauth: {}', ''].join('\n'),
  );
}

const cli = (dir: string, args: string[]) =>
  runCli([...args, '--config', join(dir, 'mcp.yaml')], { cwd: dir, env: env(dir) });

describe('mcp-host auth', () => {
  it('logs in on the loopback listener; tools then works in another process; status; logout then exit 3', async () => {
    await using _guard = leakGuard();
    await using world = await startProtectedMcpServer();
    using dir = tempDir();
    writeConfig(dir.path, world.mcp.url);

    // Before a login: exit 3, naming the command to run.
    const before = await cli(dir.path, ['tools', 'tracker']);
    expect(before.code).toBe(3);
    expect(before.stderr).toContain('mcp-host auth login tracker');

    const login = startLogin(dir.path, 'tracker');
    const url = await login.url;
    expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const redirect = await consent({ url });
    // Delivered to the CLI's own listener, as the browser would.
    const page = await fetch(redirect);
    await page.body?.cancel();
    expect(page.status).toBe(200);
    const done = await login.exit;
    expect(done.stderr).not.toContain('error');
    expect(done.code).toBe(0);
    expect(done.stdout).toContain("logged in to 'tracker': ready (1 tools)");

    const tools = await cli(dir.path, ['tools', 'tracker', '--json']);
    expect(tools.code).toBe(0);
    expect(JSON.parse(tools.stdout)).toMatchObject({ result: [{ originalName: 'work' }] });
    expect(world.oauth.tokenRequests).toHaveLength(1);

    const table = await cli(dir.path, ['auth', 'status']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/SERVER\s+LOGGED IN\s+EXPIRES/);
    expect(table.stdout).toMatch(new RegExp(`tracker\\s+yes\\s+.*${world.oauth.issuer}`));
    const status = await cli(dir.path, ['auth', 'status', 'tracker', '--json']);
    expect(JSON.parse(status.stdout)).toEqual({
      result: [
        {
          server: 'tracker',
          loggedIn: true,
          issuer: world.oauth.issuer,
          scopes: expect.any(Array) as unknown,
          expiresAt: expect.any(String) as unknown,
          refreshable: expect.any(Boolean) as unknown,
        },
      ],
    });

    const logout = await cli(dir.path, ['auth', 'logout', 'tracker']);
    expect(logout.code).toBe(0);
    expect(logout.stdout).toContain("logged out of 'tracker'");
    const after = await cli(dir.path, ['tools', 'tracker']);
    expect(after.code).toBe(3);
    expect(after.stderr).toContain('run `mcp-host auth login tracker`');
    const statusAfter = await cli(dir.path, ['auth', 'status', '--json']);
    expect(JSON.parse(statusAfter.stdout)).toMatchObject({
      result: [{ server: 'tracker', loggedIn: false }],
    });

    // No token, code or client secret in any output.
    const everything = [before, done, tools, table, status, logout, after, statusAfter]
      .map((run) => run.stdout + run.stderr)
      .join('\n');
    const token = [...world.accepted][0]!;
    expect(token).toContain('canary');
    expect(everything).not.toContain(token);
    expect(everything).not.toContain('canary');
  });

  it('--json: the URL is a stderr event; a pasted redirect URL completes the login', async () => {
    await using _guard = leakGuard();
    await using world = await startProtectedMcpServer();
    using dir = tempDir();
    writeConfig(dir.path, world.mcp.url);
    const login = startLogin(dir.path, 'tracker', ['--json']);
    const redirect = await consent({ url: await login.url });
    login.paste(redirect);
    const done = await login.exit;
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout)).toEqual({
      result: { server: 'tracker', state: 'ready', tools: 1 },
    });
    expect(done.stdout + done.stderr).not.toContain('canary');
  });

  it('ends with exit 4 when no redirect comes within --wait', async () => {
    await using _guard = leakGuard();
    await using world = await startProtectedMcpServer();
    using dir = tempDir();
    writeConfig(dir.path, world.mcp.url);
    const login = startLogin(dir.path, 'tracker', ['--wait', '300ms']);
    await login.url;
    const done = await login.exit;
    expect(done.code).toBe(4);
    expect(done.stderr).toMatch(/server 'tracker'.*within 300 ms/);
  });

  it('ends with exit 130 on Ctrl-C while waiting', async () => {
    await using _guard = leakGuard();
    await using world = await startProtectedMcpServer();
    using dir = tempDir();
    writeConfig(dir.path, world.mcp.url);
    const login = startLogin(dir.path, 'tracker');
    await login.url;
    process.kill(login.pid, 'SIGINT');
    const done = await login.exit;
    expect(done.code).toBe(130);
  });
});

describe('mcp-host auth login with a configured loopback redirectUri', () => {
  it('any loopback host (isLoopbackHost: here 127.0.0.2) gets the listener, with its path', async () => {
    await using _guard = leakGuard();
    await using world = await startProtectedMcpServer();
    using dir = tempDir();
    writeFileSync(
      join(dir.path, 'mcp.yaml'),
      [
        'servers:',
        '  tracker:',
        '    type: http',
        `    url: ${world.mcp.url}`,
        '    oauth:',
        "      redirectUri: 'http://127.0.0.2/done'",
        '',
      ].join('\n'),
    );
    const login = startLogin(dir.path, 'tracker');
    const url = await login.url;
    expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/done$/);
    const page = await fetch(await consent({ url }));
    await page.body?.cancel();
    expect(page.status).toBe(200);
    const done = await login.exit;
    expect(done.code).toBe(0);
    expect(done.stdout).toContain("logged in to 'tracker': ready (1 tools)");
  });
});
