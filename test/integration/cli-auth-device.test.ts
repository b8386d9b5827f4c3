/**
 * `mcp-host auth login <server> --device` on the built CLI against a real authorization server
 * (`oidc-provider` with its device flow) protecting an MCP server built with the official SDK, on
 * 127.0.0.1. The person is played headlessly: the test reads the user code the CLI printed and
 * approves (or denies) it through the provider's model API, as its device pages would. The
 * state file lives in a temp dir (MCP_HOST_STATE_DIR).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { watchLines } from '../helpers/doc-examples.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { startOidcWorld, type OidcWorld } from '../helpers/oidc-world.js';
import { cliEnv, cliPath, ensureBuiltCli, runCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

beforeAll(() => ensureBuiltCli());

interface DeviceLogin extends AsyncDisposable {
  /** The lines printed so far (stdout in table mode, stderr events with --format json). */
  lines: string[];
  /** Resolves with the first line matching `pattern`. */
  line(pattern: RegExp): Promise<string>;
  exit: Promise<{ code: number | null; stdout: string; stderr: string }>;
  pid: number;
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

function startDeviceLogin(dir: string, extra: string[] = []): DeviceLogin {
  const child = spawn(
    process.execPath,
    [cliPath, 'auth', 'login', 'tracker', '--device', '--config', join(dir, 'mcp.yaml'), ...extra],
    { cwd: dir, env: env(dir), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = once(child, 'exit').then(([code]) => ({
    code: code as number | null,
    stdout,
    stderr,
  }));
  return {
    ...watchLines(extra.includes('json') ? child.stderr : child.stdout, exit),
    exit,
    pid: child.pid!,
    // A test that fails before the login ends must not leave the CLI polling.
    async [Symbol.asyncDispose]() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exit;
    },
  };
}

/** The user code: the line after the verification URI (table mode). */
async function userCodeOf(login: DeviceLogin, world: OidcWorld): Promise<string> {
  await login.line(new RegExp(`^${world.issuer}/device$`));
  const at = login.lines.indexOf(`${world.issuer}/device`);
  return login.line(/^[A-Z]{4}-[A-Z]{4}$/).then((code) => {
    expect(login.lines.indexOf(code)).toBe(at + 1);
    return code;
  });
}

describe('mcp-host auth login --device', () => {
  it('shows the URIs and the code on lines of their own, logs in once approved; tools then works', async () => {
    await using _guard = leakGuard();
    await using world = await startOidcWorld();
    using dir = tempDir();
    writeConfig(dir.path, world.mcpUrl);

    await using login = startDeviceLogin(dir.path);
    const userCode = await userCodeOf(login, world);
    const complete = await login.line(/\/device\?user_code=/);
    expect(complete).toBe(`${world.issuer}/device?user_code=${encodeURIComponent(userCode)}`);
    await world.approveDevice(userCode);
    const done = await login.exit;
    expect(done.stderr).not.toContain('error');
    expect(done.code).toBe(0);
    expect(done.stdout).toContain("logged in to 'tracker': ready (1 tools)");
    expect(done.stderr).toContain("To log in to 'tracker', open this URL on any device:");

    // Saved in the state file: another process uses the tokens without logging in again.
    const tools = await runCli(
      ['tools', 'tracker', '--json', '--config', join(dir.path, 'mcp.yaml')],
      {
        cwd: dir.path,
        env: env(dir.path),
      },
    );
    expect(tools.code).toBe(0);
    expect(JSON.parse(tools.stdout)).toMatchObject({ result: [{ originalName: 'whoami' }] });
    expect(world.grants['urn:ietf:params:oauth:grant-type:device_code']).toBe(1);
    expect(world.grants.authorization_code).toBeUndefined();
  }, 60_000);

  it('with DPoP-bound tokens: the key is saved with them, so a later process uses them', async () => {
    await using _guard = leakGuard();
    await using world = await startOidcWorld({ dpop: true });
    using dir = tempDir();
    writeConfig(dir.path, world.mcpUrl);

    await using login = startDeviceLogin(dir.path);
    await world.approveDevice(await userCodeOf(login, world));
    const done = await login.exit;
    expect(done.code).toBe(0);
    expect(done.stdout).toContain("logged in to 'tracker': ready (1 tools)");

    const tools = await runCli(
      ['tools', 'tracker', '--json', '--config', join(dir.path, 'mcp.yaml')],
      { cwd: dir.path, env: env(dir.path) },
    );
    expect(tools.code).toBe(0);
    expect(world.grants['urn:ietf:params:oauth:grant-type:device_code']).toBe(1);
    expect(world.grants.authorization_code).toBeUndefined();
    expect(world.accepted.length).toBeGreaterThan(0);
    expect(new Set(world.accepted)).toEqual(new Set(['DPoP']));
  }, 60_000);

  it('--format json: one JSON object per event, the result on stdout', async () => {
    await using _guard = leakGuard();
    await using world = await startOidcWorld();
    using dir = tempDir();
    writeConfig(dir.path, world.mcpUrl);

    await using login = startDeviceLogin(dir.path, ['--format', 'json']);
    const event = JSON.parse(await login.line(/"device_authorization"/)) as Record<string, string>;
    expect(event).toEqual({
      event: 'device_authorization',
      server: 'tracker',
      verificationUri: `${world.issuer}/device`,
      verificationUriComplete: expect.stringContaining('/device?user_code=') as unknown,
      userCode: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/) as unknown,
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
    });
    await world.approveDevice(event.userCode!);
    const done = await login.exit;
    expect(done.code).toBe(0);
    expect(
      done.stderr
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([event, { event: 'approved', server: 'tracker' }]);
    expect(JSON.parse(done.stdout)).toEqual({
      result: { server: 'tracker', state: 'ready', tools: 1 },
    });
  }, 60_000);

  it('a denied code ends with exit 1 and AUTH_FAILED access_denied naming the server', async () => {
    await using _guard = leakGuard();
    await using world = await startOidcWorld();
    using dir = tempDir();
    writeConfig(dir.path, world.mcpUrl);
    await using login = startDeviceLogin(dir.path, ['--format', 'json']);
    const event = JSON.parse(await login.line(/"device_authorization"/)) as { userCode: string };
    await world.denyDevice(event.userCode);
    const done = await login.exit;
    expect(done.code).toBe(1);
    const error = JSON.parse(done.stderr.trim().split('\n').at(-1)!) as { error: unknown };
    expect(error).toEqual({
      error: {
        code: 'AUTH_FAILED',
        message: expect.stringContaining('access_denied') as unknown,
        server: 'tracker',
      },
    });
  }, 60_000);

  it('an expired code ends with exit 4 (expired_token); so does --wait', async () => {
    await using _guard = leakGuard();
    await using world = await startOidcWorld({ deviceCodeTtlS: 1 });
    using dir = tempDir();
    writeConfig(dir.path, world.mcpUrl);
    const expired = await startDeviceLogin(dir.path).exit;
    expect(expired.code).toBe(4);
    expect(expired.stderr).toMatch(/error: server 'tracker': the device code expired/);

    const waited = await startDeviceLogin(dir.path, ['--wait', '500ms']).exit;
    expect(waited.code).toBe(4);
    expect(waited.stderr).toMatch(/server 'tracker'.*not approved within 500 ms/);
  }, 60_000);

  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal} while waiting ends it with a typed ABORTED error and exit ${code}`, async () => {
      await using _guard = leakGuard();
      await using world = await startOidcWorld();
      using dir = tempDir();
      writeConfig(dir.path, world.mcpUrl);
      await using login = startDeviceLogin(dir.path, ['--format', 'json']);
      await login.line(/"device_authorization"/);
      process.kill(login.pid, signal);
      const done = await login.exit;
      expect(done.code).toBe(code);
      expect(JSON.parse(done.stderr.trim().split('\n').at(-1)!)).toEqual({
        error: {
          code: 'ABORTED',
          message: expect.stringContaining('interrupted') as unknown,
          server: 'tracker',
        },
      });
    }, 60_000);
  }

  it('exits 1 naming the authorization server when it does not offer the device grant', async () => {
    await using _guard = leakGuard();
    await using world = await startOidcWorld({ deviceFlow: false });
    using dir = tempDir();
    writeConfig(dir.path, world.mcpUrl);
    const done = await startDeviceLogin(dir.path).exit;
    expect(done.code).toBe(1);
    expect(done.stderr).toContain(
      `error: server 'tracker': authorization server ${world.issuer} does not offer the device authorization grant`,
    );
  }, 60_000);
});
