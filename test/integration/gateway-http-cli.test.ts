/**
 * `mcp-host gateway serve --transport http` (the built CLI): the line it prints once listening,
 * the bearer token file it makes (mode 0600) and reuses on the next start, the v1 SDK client
 * through it to a real backend, and `--no-auth`.
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { codeBlockAfter, repoRoot } from '../helpers/doc-examples.js';
import { startHttpGateway } from '../helpers/gateway-harness.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';
import { cliEnv, closedPort, ensureBuiltCli, runCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

beforeAll(() => ensureBuiltCli());

async function echoThrough(url: string, headers: Record<string, string>): Promise<string> {
  const client = new Client({ name: 'gateway-cli-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  try {
    const result = await client.callTool({
      name: 'mcp__legacy__echo',
      arguments: { message: 'through the CLI' },
    });
    return JSON.stringify(result.content);
  } finally {
    await client.close();
  }
}

describe('mcp-host gateway serve --transport http', () => {
  it('prints where it listens and where the token is; the token file is 0600 and reused', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(
      file,
      `servers:\n  legacy:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(mcpFixtures.legacySdk)}]\n`,
    );
    const stateDir = join(dir.path, 'state');
    const tokenFile = join(stateDir, 'gateway-token');
    let token: string;
    {
      await using gateway = await startHttpGateway(file, { MCP_HOST_STATE_DIR: stateDir });
      expect(gateway.stderr.toString()).toContain(`bearer token made and kept in ${tokenFile}`);
      expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
      token = readFileSync(tokenFile, 'utf8').trim();
      expect(token.length).toBeGreaterThanOrEqual(32);
      expect(gateway.stderr.toString()).not.toContain(token);
      expect(await echoThrough(gateway.url, { authorization: `Bearer ${token}` })).toContain(
        'through the CLI',
      );
      const refused = await fetch(gateway.url, { method: 'POST', body: '{}' });
      expect(refused.status).toBe(401);
      expect(await gateway.stop()).toBe(143);
    }
    {
      await using gateway = await startHttpGateway(file, { MCP_HOST_STATE_DIR: stateDir });
      expect(gateway.stderr.toString()).toContain(`bearer token kept in ${tokenFile}`);
      expect(readFileSync(tokenFile, 'utf8').trim()).toBe(token);
      expect(await echoThrough(gateway.url, { authorization: `Bearer ${token}` })).toContain(
        'through the CLI',
      );
    }
    {
      await using gateway = await startHttpGateway(file, { MCP_HOST_STATE_DIR: stateDir }, [
        '--transport',
        'http',
        '--port',
        '0',
        '--no-auth',
      ]);
      expect(gateway.stderr.toString()).toContain('authentication is off');
      expect(await echoThrough(gateway.url, {})).toContain('through the CLI');
    }
    const misused = await runCli(['--config', file, 'gateway', 'serve', '--port', '0'], {
      env: cliEnv({ MCP_HOST_STATE_DIR: stateDir }),
    });
    expect(misused.code).not.toBe(0);
    expect(misused.stderr).toContain('--transport http');
  });

  it("takes the config's gateway: section: its port, its token file, its allowed origins", async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    const port = await closedPort();
    writeFileSync(
      file,
      [
        'servers:',
        `  legacy:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(mcpFixtures.legacySdk)}]`,
        'gateway:',
        `  port: ${port}`,
        '  tokenFile: secrets/gateway-token',
        '  allowedOrigins: [http://app.example]',
        '',
      ].join('\n'),
    );
    const stateDir = join(dir.path, 'state');
    const tokenFile = join(dir.path, 'secrets', 'gateway-token');
    // No --transport, no --port: the config's port asks for HTTP, there.
    await using gateway = await startHttpGateway(file, { MCP_HOST_STATE_DIR: stateDir }, []);
    expect(gateway.url).toBe(`http://127.0.0.1:${port}/mcp`);
    expect(gateway.stderr.toString()).toContain(`bearer token made and kept in ${tokenFile}`);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(await echoThrough(gateway.url, { authorization: `Bearer ${token}` })).toContain(
      'through the CLI',
    );
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    };
    const allowed = await fetch(gateway.url, {
      method: 'POST',
      body: ping,
      headers: { ...headers, origin: 'http://app.example' },
    });
    expect(allowed.status).toBe(200);
    await allowed.body?.cancel();
    const foreign = await fetch(gateway.url, {
      method: 'POST',
      body: ping,
      headers: { ...headers, origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
    await foreign.body?.cancel();
  });

  it('runs the SDK client example of docs/gateway.md against it (the token from its default place)', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(
      file,
      `servers:\n  legacy:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(mcpFixtures.legacySdk)}]\n`,
    );
    const markdown = readFileSync(join(repoRoot, 'docs/gateway.md'), 'utf8');
    const config = JSON.parse(codeBlockAfter(markdown, '## Over HTTP', 0, 'json')) as {
      mcpServers: Record<string, { type: string; url: string; headers: Record<string, string> }>;
    };
    expect(config.mcpServers['mcp-host']).toMatchObject({ type: 'http' });
    // Linux's default state directory, under a home of the test's own.
    const env = { HOME: dir.path, XDG_STATE_HOME: undefined };
    await using gateway = await startHttpGateway(file, env);
    const port = new URL(gateway.url).port;
    const code = codeBlockAfter(markdown, '## Over HTTP').replaceAll('8808', port);
    const example = join(repoRoot, `test/.docs-example-gateway-http-${process.pid}.mts`);
    writeFileSync(
      example,
      `${code}\nconsole.log(JSON.stringify(tools.map((tool) => tool.name)));\nawait client.close();\n`,
    );
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', example], {
        cwd: repoRoot,
        env: cliEnv(env),
      });
      expect(JSON.parse(stdout)).toContain('mcp__legacy__echo');
    } finally {
      rmSync(example, { force: true });
    }
  });
});
