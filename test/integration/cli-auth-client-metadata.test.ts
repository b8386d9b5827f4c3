/**
 * `mcp-host auth client-metadata <server> [--check]` on the built CLI: the document for the
 * server's config, then the check of a good and a bad document hosted on 127.0.0.1.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../helpers/http-test-server.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { cliEnv, ensureBuiltCli, runCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

beforeAll(() => ensureBuiltCli());

function writeConfig(dir: string, clientMetadataUrl: string | undefined): void {
  writeFileSync(
    join(dir, 'mcp.yaml'),
    [
      'servers:',
      '  tracker:',
      '    type: http',
      '    url: https://mcp.tracker.example/mcp',
      '    oauth:',
      ...(clientMetadataUrl === undefined
        ? ['      scopes: [read]']
        : [`      clientMetadataUrl: ${clientMetadataUrl}`]),
      '',
    ].join('\n'),
  );
}

const cli = (dir: string, args: string[]) =>
  runCli([...args, '--config', join(dir, 'mcp.yaml')], {
    cwd: dir,
    env: cliEnv({ MCP_HOST_STATE_DIR: join(dir, 'state') }),
  });

describe('mcp-host auth client-metadata', () => {
  it('prints the document to host at clientMetadataUrl (text and --format json)', async () => {
    using dir = tempDir();
    writeConfig(dir.path, 'https://app.example/mcp/client.json');
    const expected = {
      client_id: 'https://app.example/mcp/client.json',
      client_name: 'mcp-host',
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    };
    const text = await cli(dir.path, ['auth', 'client-metadata', 'tracker']);
    expect(text.code).toBe(0);
    expect(JSON.parse(text.stdout)).toEqual(expected);
    const json = await cli(dir.path, ['auth', 'client-metadata', 'tracker', '--format', 'json']);
    expect(JSON.parse(json.stdout)).toEqual({ result: expected });
  });

  it('exits 1 naming the server without clientMetadataUrl, or with one that is not https', async () => {
    using dir = tempDir();
    writeConfig(dir.path, undefined);
    const missing = await cli(dir.path, ['auth', 'client-metadata', 'tracker']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("server 'tracker': has no `oauth.clientMetadataUrl`");
    writeConfig(dir.path, 'http://app.example/client.json');
    const http = await cli(dir.path, ['auth', 'client-metadata', 'tracker']);
    expect(http.code).toBe(1);
    expect(http.stderr).toContain('must be https');
  });

  it('--check: a good hosted document exits 0; a bad one lists its findings and exits 1', async () => {
    await using _guard = leakGuard();
    await using server = await startHttpServer();
    const good = `${server.origin}/good.json`;
    const bad = `${server.origin}/bad.json`;
    server.handle((request, res) => {
      const body =
        request.url === '/good.json'
          ? {
              client_id: good,
              client_name: 'mcp-host',
              redirect_uris: ['http://127.0.0.1/callback'],
              grant_types: ['authorization_code', 'refresh_token'],
              response_types: ['code'],
              token_endpoint_auth_method: 'none',
            }
          : { client_id: good, redirect_uris: ['http://app.example/cb'] };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    using dir = tempDir();

    writeConfig(dir.path, good);
    const fine = await cli(dir.path, ['auth', 'client-metadata', 'tracker', '--check']);
    expect(fine.code).toBe(0);
    expect(fine.stdout).toContain(`the document at ${good} is fine for 'tracker'`);

    writeConfig(dir.path, bad);
    const table = await cli(dir.path, ['auth', 'client-metadata', 'tracker', '--check']);
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/^FINDING\s+FIELD\s+WHAT/);
    for (const code of [
      'client-id-mismatch',
      'missing-client-name',
      'auth-method',
      'unsafe-redirect-uri',
      'redirect-uri-not-listed',
    ])
      expect(table.stdout).toContain(code);
    const json = await cli(dir.path, ['auth', 'client-metadata', 'tracker', '--check', '--json']);
    expect(json.code).toBe(1);
    const { result } = JSON.parse(json.stdout) as {
      result: { server: string; url: string; findings: Array<{ code: string; field?: string }> };
    };
    expect(result.server).toBe('tracker');
    expect(result.url).toBe(bad);
    expect(result.findings).toContainEqual(
      expect.objectContaining({ code: 'client-id-mismatch', field: 'client_id' }),
    );
    expect(result.findings).toHaveLength(5);
  });
});
