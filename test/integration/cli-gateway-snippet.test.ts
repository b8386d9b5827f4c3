/**
 * `mcp-host config print --for <client> --gateway` (the built CLI): each client's entry for the
 * gateway, in that client's format. The stdio entry is run as the client would run it (the
 * official v1 SDK client spawning its command and arguments) and serves the config's server; the
 * HTTP entry carries the URL and an `Authorization` header that reads the token through the
 * client's own mechanism, never the token, unless `--show-secrets` asks for it.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { leakGuard } from '../helpers/leak-guard.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';
import { cliEnv, cliPath, ensureBuiltCli, runCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

beforeAll(() => ensureBuiltCli());

const TOKEN = 'gw-canary-7f3a9c1e5b';

/** mcp.yaml in `dir`: the legacy SDK fixture as `legacy`, a view, and `gateway` lines. */
function config(dir: string, gateway: string[] = []): string {
  const file = join(dir, 'mcp.yaml');
  const lines = [
    'servers:',
    '  legacy:',
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [${JSON.stringify(mcpFixtures.legacySdk)}]`,
    'views:',
    '  only-echo:',
    "    allow: ['legacy/echo']",
    ...(gateway.length === 0 ? [] : ['gateway:', ...gateway.map((line) => `  ${line}`)]),
  ];
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

interface Entry {
  type?: string;
  command?: string;
  args?: string[];
  url?: string;
  headers?: Record<string, string>;
}

/** The printed config's `mcp-host` entry, wherever the client keeps its servers. */
function entryOf(stdout: string): Entry {
  const printed = JSON.parse(stdout) as {
    mcpServers?: Record<string, Entry>;
    servers?: Record<string, Entry>;
  };
  const entry = (printed.mcpServers ?? printed.servers)?.['mcp-host'];
  expect(entry).toBeDefined();
  return entry!;
}

async function print(args: string[], cwd: string) {
  return runCli(['--config', 'mcp.yaml', 'config', 'print', '--gateway', ...args], { cwd });
}

describe('config print --gateway over stdio', () => {
  it("prints each client's entry, which starts the gateway over the config as the client runs it", async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = config(dir.path);
    const entries: Record<string, Entry> = {};
    for (const client of ['claude-desktop', 'claude-code', 'vscode', 'cursor']) {
      const run = await print(['--for', client, '--view', 'only-echo'], dir.path);
      expect(run.code, run.stderr).toBe(0);
      entries[client] = entryOf(run.stdout);
    }
    const expected = {
      command: process.execPath,
      args: [cliPath, '--config', file, 'gateway', 'serve', '--view', 'only-echo'],
    };
    expect(entries['claude-desktop']).toEqual(expected);
    expect(entries.cursor).toEqual(expected);
    expect(entries['claude-code']).toEqual({ type: 'stdio', ...expected });
    expect(entries.vscode).toEqual({ type: 'stdio', ...expected });

    // The client starts it from elsewhere (its own working directory), as a desktop app does.
    const { command, args } = entries['claude-code']!;
    const client = new Client({ name: 'snippet-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: command!,
        args: args!,
        cwd: join(dir.path, '..'),
        env: cliEnv() as Record<string, string>,
        stderr: 'ignore',
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(['mcp__legacy__echo']);
    } finally {
      await client.close();
    }
  });

  it('refuses what it cannot print: no config file, a foreign format, flags without --gateway', async () => {
    using dir = tempDir();
    config(dir.path);
    const discovered = await runCli(['config', 'print', '--for', 'cursor', '--gateway'], {
      cwd: dir.path,
      env: cliEnv({ XDG_CONFIG_HOME: dir.path, HOME: dir.path }),
    });
    // mcp.yaml in the working directory is found, so this one prints; an empty folder does not.
    expect(discovered.code, discovered.stderr).toBe(0);
    using empty = tempDir();
    const embedded = await runCli(['config', 'print', '--for', 'cursor', '--gateway'], {
      cwd: empty.path,
      env: cliEnv({ XDG_CONFIG_HOME: empty.path, HOME: empty.path }),
    });
    expect(embedded.code).toBe(1);
    expect(embedded.stderr).toContain(
      'no config file found: the gateway serves the servers of one',
    );
    const crewai = await print(['--for', 'crewai'], dir.path);
    expect(crewai.code).toBe(1);
    expect(crewai.stderr).toContain(
      'with --gateway, --for must be one of claude-desktop, claude-code, vscode, cursor',
    );
    const stray = await runCli(
      ['--config', 'mcp.yaml', 'config', 'print', '--for', 'cursor', '--port', '1'],
      { cwd: dir.path },
    );
    expect(stray.code).toBe(1);
    expect(stray.stderr).toContain('--transport, --port, --host and --view go with --gateway');
    const view = await print(['--for', 'cursor', '--view', 'nope'], dir.path);
    expect(view.code).toBe(1);
    expect(view.stderr).toContain("no view is named 'nope'");
  });
});

describe('config print --gateway over HTTP', () => {
  it('gives the URL and a header that reads the token at use, never the token itself', async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, 'token'), `${TOKEN}\n`, { mode: 0o600 });
    config(dir.path, ['port: 8808', 'tokenFile: token', 'views: [only-echo]']);
    const runs = {
      'claude-code': await print(['--for', 'claude-code'], dir.path),
      cursor: await print(['--for', 'cursor'], dir.path),
      vscode: await print(['--for', 'vscode', '--view', 'only-echo'], dir.path),
    };
    for (const run of Object.values(runs)) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout + run.stderr).not.toContain(TOKEN);
      expect(run.stderr).toContain(join(dir.path, 'token'));
    }
    expect(entryOf(runs['claude-code'].stdout)).toEqual({
      type: 'http',
      url: 'http://127.0.0.1:8808/mcp',
      headers: { Authorization: 'Bearer ${MCP_HOST_GATEWAY_TOKEN}' },
    });
    expect(runs['claude-code'].stderr).toContain('claude mcp add-json mcp-host');
    expect(runs['claude-code'].stderr).toContain(
      `export MCP_HOST_GATEWAY_TOKEN="$(cat '${join(dir.path, 'token')}')"`,
    );
    expect(entryOf(runs.cursor.stdout)).toEqual({
      url: 'http://127.0.0.1:8808/mcp',
      headers: { Authorization: 'Bearer ${env:MCP_HOST_GATEWAY_TOKEN}' },
    });
    const vscode = JSON.parse(runs.vscode.stdout) as { inputs: unknown[] };
    expect(vscode.inputs).toEqual([
      expect.objectContaining({
        id: 'mcp-host-gateway-token',
        type: 'promptString',
        password: true,
      }),
    ]);
    expect(entryOf(runs.vscode.stdout)).toEqual({
      type: 'http',
      url: 'http://127.0.0.1:8808/mcp/only-echo',
      headers: { Authorization: 'Bearer ${input:mcp-host-gateway-token}' },
    });

    // Asked for: the token in the header, and a warning that the output holds it.
    const shown = await print(['--for', 'cursor', '--show-secrets'], dir.path);
    expect(shown.code, shown.stderr).toBe(0);
    expect(entryOf(shown.stdout).headers).toEqual({ Authorization: `Bearer ${TOKEN}` });
    expect(shown.stderr).toContain('the output holds the gateway token');
    expect(shown.stderr).not.toContain(TOKEN);
  });

  it('takes --transport http and --port over the config; without auth, no header', async () => {
    using dir = tempDir();
    config(dir.path, ['auth: false']);
    const run = await print(['--for', 'claude-code', '--port', '9001', '--host', '::1'], dir.path);
    expect(run.code, run.stderr).toBe(0);
    expect(entryOf(run.stdout)).toEqual({ type: 'http', url: 'http://[::1]:9001/mcp' });
    expect(run.stderr).toContain('gateway serve --transport http --port 9001 --host ::1');
  });

  it('refuses Claude Desktop over HTTP, a port not fixed, a missing token file, a view not offered', async () => {
    using dir = tempDir();
    config(dir.path, ['port: 8808', 'tokenFile: missing', 'views: []']);
    const desktop = await print(['--for', 'claude-desktop'], dir.path);
    expect(desktop.code).toBe(1);
    expect(desktop.stderr).toContain("Claude Desktop's config file holds stdio servers only");
    const free = await print(['--for', 'cursor', '--port', '0'], dir.path);
    expect(free.code).toBe(1);
    expect(free.stderr).toContain('without a fixed port');
    const missing = await print(['--for', 'cursor', '--show-secrets'], dir.path);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`no token yet at ${join(dir.path, 'missing')}`);
    const view = await print(['--for', 'cursor', '--view', 'only-echo'], dir.path);
    expect(view.code).toBe(1);
    expect(view.stderr).toContain("the gateway does not offer the view 'only-echo' over HTTP");
  });

  it('the entry printed with --show-secrets reaches the running HTTP gateway', async () => {
    await using guard = leakGuard();
    using dir = tempDir();
    config(dir.path);
    const env = cliEnv({ MCP_HOST_STATE_DIR: join(dir.path, 'state') });
    const gateway = spawn(
      process.execPath,
      [cliPath, '--config', 'mcp.yaml', 'gateway', 'serve', '--transport', 'http', '--port', '0'],
      { cwd: dir.path, env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    guard.trackPid(gateway.pid);
    const exited = new Promise((resolve) => gateway.once('exit', resolve));
    await using _stop = {
      async [Symbol.asyncDispose]() {
        if (gateway.exitCode === null && gateway.signalCode === null) gateway.kill('SIGTERM');
        await exited;
      },
    };
    const port = await new Promise<string>((resolve, reject) => {
      let stderr = '';
      gateway.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const found = /gateway listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp$/m.exec(stderr);
        if (found !== null) resolve(found[1]!);
      });
      void exited.then(() => reject(new Error(`the gateway exited: ${stderr}`)));
    });
    const run = await runCli(
      [
        '--config',
        'mcp.yaml',
        'config',
        'print',
        '--for',
        'claude-code',
        '--gateway',
        '--port',
        port,
        '--show-secrets',
      ],
      { cwd: dir.path, env },
    );
    expect(run.code, run.stderr).toBe(0);
    const entry = entryOf(run.stdout);
    expect(entry.url).toBe(`http://127.0.0.1:${port}/mcp`);
    const client = new Client({ name: 'snippet-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(entry.url!), {
        requestInit: { headers: entry.headers! },
      }),
    );
    try {
      const result = await client.callTool({
        name: 'mcp__legacy__echo',
        arguments: { message: 'pasted' },
      });
      expect(JSON.stringify(result.content)).toContain('pasted');
    } finally {
      await client.close();
    }
  });
});
