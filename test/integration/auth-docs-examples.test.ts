/**
 * The flow examples of docs/auth.md run as they are, against a real authorization server
 * (`oidc-provider`) protecting an MCP server built with the official SDK on 127.0.0.1: the test
 * sets only the example variables the document lists (MCP_SERVER_URL, MCP_CLIENT_*, and
 * MCP_HOST_STATE_DIR so nothing touches the real home) and plays the person headlessly (consents
 * to the printed URL, approves the printed device code).
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  codeBlockAfter,
  exampleVariables,
  repoRoot,
  startExample,
  variablesRead,
} from '../helpers/doc-examples.js';
import { clientMetadataDocument } from '../../src/auth.js';
import { startHttpServer } from '../helpers/http-test-server.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { startOidcWorld } from '../helpers/oidc-world.js';
import { tempDir } from '../helpers/scratch.js';

const docs = readFileSync(join(repoRoot, 'docs/auth.md'), 'utf8');
const SECRET = 'reporting-bot-secret-0123456789abcdef';

describe('docs/auth.md: the examples', () => {
  it('read only the example variables the document lists', () => {
    const documented = exampleVariables(docs);
    expect([...documented].sort()).toEqual([
      'MCP_CLIENT_ID',
      'MCP_CLIENT_KEY_FILE',
      'MCP_CLIENT_SECRET',
      'MCP_HOST_STATE_DIR',
      'MCP_SERVER_URL',
    ]);
    const blocks = [...docs.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
    for (const block of blocks)
      for (const name of variablesRead(block)) expect(documented, name).toContain(name);
  });

  it('the authorization-code flow: the loopback listener gets the browser back', async () => {
    await using _guard = leakGuard();
    await using world = await startOidcWorld();
    using dir = tempDir();
    await using example = startExample(codeBlockAfter(docs, '## The authorization-code flow'), {
      MCP_SERVER_URL: world.mcpUrl,
      MCP_HOST_STATE_DIR: dir.path,
    });
    const url = await example.line(/^http:\/\/127\.0\.0\.1:\d+\/auth\?/);
    const page = await fetch(await world.login(url));
    await page.body?.cancel();
    expect(page.status).toBe(200);
    const done = await example.exit;
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(example.lines.at(-1)).toBe('tools: whoami');
    expect(world.grants.authorization_code).toBe(1);
  }, 60_000);

  it('the two-step API on the host: start, paste the redirect, ready', async () => {
    await using _guard = leakGuard();
    await using world = await startOidcWorld();
    using dir = tempDir();
    await using example = startExample(
      codeBlockAfter(docs, '## OAuth in the host and the config'),
      { MCP_SERVER_URL: world.mcpUrl, MCP_HOST_STATE_DIR: dir.path },
    );
    const url = await example.line(/^http:\/\/127\.0\.0\.1:\d+\/auth\?/);
    example.write(await world.login(url));
    const done = await example.exit;
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(example.lines).toContain('tracker needs a login (mcp offline_access)');
    expect(example.lines.at(-1)).toBe('tracker: ready');
  }, 60_000);

  for (const auth of ['client_secret_basic', 'private_key_jwt'] as const) {
    it(`client credentials with ${auth}`, async () => {
      await using _guard = leakGuard();
      using dir = tempDir();
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const keyFile = join(dir.path, 'bot.pem');
      writeFileSync(keyFile, privateKey.export({ format: 'pem', type: 'pkcs8' }));
      await using world = await startOidcWorld({
        clients: [
          {
            client_id: 'reporting-bot',
            grant_types: ['client_credentials'],
            redirect_uris: [],
            response_types: [],
            ...(auth === 'client_secret_basic'
              ? { client_secret: SECRET, token_endpoint_auth_method: 'client_secret_basic' }
              : {
                  token_endpoint_auth_method: 'private_key_jwt',
                  token_endpoint_auth_signing_alg: 'ES256',
                  jwks: {
                    keys: [{ ...publicKey.export({ format: 'jwk' }), alg: 'ES256', use: 'sig' }],
                  },
                }),
          },
        ],
      });
      await using example = startExample(codeBlockAfter(docs, '## Client credentials'), {
        MCP_SERVER_URL: world.mcpUrl,
        MCP_HOST_STATE_DIR: dir.path,
        MCP_CLIENT_ID: 'reporting-bot',
        ...(auth === 'client_secret_basic'
          ? { MCP_CLIENT_SECRET: SECRET }
          : { MCP_CLIENT_KEY_FILE: keyFile }),
      });
      const done = await example.exit;
      expect(done.stderr).toBe('');
      expect(done.code).toBe(0);
      expect(example.lines.at(-1)).toBe('tools: whoami');
      expect(world.grants.client_credentials).toBe(1);
      expect(done.stdout).not.toContain(SECRET);
    }, 60_000);
  }

  it('the device grant: the printed code, approved, logs in', async () => {
    await using _guard = leakGuard();
    await using world = await startOidcWorld();
    using dir = tempDir();
    await using example = startExample(codeBlockAfter(docs, '### The device grant'), {
      MCP_SERVER_URL: world.mcpUrl,
      MCP_HOST_STATE_DIR: dir.path,
    });
    const shown = await example.line(/^Open \S+ and enter \S+$/);
    const [, uri, userCode] = /^Open (\S+) and enter (\S+)$/.exec(shown)!;
    expect(uri).toBe(`${world.issuer}/device`);
    await world.approveDevice(userCode!);
    const done = await example.exit;
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(example.lines.at(-1)).toBe('logged in: the tokens are in the store for the next run');
    expect(world.grants['urn:ietf:params:oauth:grant-type:device_code']).toBe(1);
  }, 60_000);

  it('the Client ID Metadata Document: printed, then a hosted one checked', async () => {
    await using _guard = leakGuard();
    await using host = await startHttpServer();
    const url = `${host.origin}/mcp/client.json`;
    host.handle((request, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(clientMetadataDocument({ clientMetadataUrl: url })));
    });
    await using example = startExample(codeBlockAfter(docs, '### Client ID Metadata Documents'), {
      MCP_CLIENT_ID: url,
    });
    const done = await example.exit;
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    const printed = done.stdout.slice(0, done.stdout.lastIndexOf('}') + 1);
    expect(JSON.parse(printed)).toMatchObject({
      client_id: url,
      token_endpoint_auth_method: 'none',
    });
    expect(example.lines.at(-1)).toBe('the hosted document is fine');
    expect(host.requests.map((request) => request.url)).toEqual(['/mcp/client.json']);
  });

  for (const dpop of [true, false]) {
    it(`DPoP: the token is sent ${dpop ? 'DPoP-bound, with a proof' : 'as Bearer'} as the server offers`, async () => {
      await using _guard = leakGuard();
      using dir = tempDir();
      await using world = await startOidcWorld({
        dpop,
        clients: [
          {
            client_id: 'reporting-bot',
            client_secret: SECRET,
            grant_types: ['client_credentials'],
            redirect_uris: [],
            response_types: [],
          },
        ],
      });
      await using example = startExample(codeBlockAfter(docs, '### DPoP'), {
        MCP_SERVER_URL: world.mcpUrl,
        MCP_HOST_STATE_DIR: dir.path,
        MCP_CLIENT_ID: 'reporting-bot',
        MCP_CLIENT_SECRET: SECRET,
      });
      const done = await example.exit;
      expect(done.stderr).toBe('');
      expect(done.code).toBe(0);
      expect(example.lines.at(-1)).toBe(dpop ? 'DPoP, with a proof' : 'Bearer, without a proof');
      // The MCP server took it as it was bound (a DPoP-bound token only with a valid proof).
      expect(new Set(world.accepted)).toEqual(new Set([dpop ? 'DPoP' : 'Bearer']));
    }, 60_000);
  }

  it('OAuthProvider with its defaults (pasted redirect); the token store example then shows the login', async () => {
    await using _guard = leakGuard();
    await using world = await startOidcWorld();
    using dir = tempDir();
    const env = { MCP_SERVER_URL: world.mcpUrl, MCP_HOST_STATE_DIR: dir.path };
    await using example = startExample(
      codeBlockAfter(docs, '## How OAuthProvider puts the pieces together'),
      env,
    );
    const url = await example.line(/^http:\/\/127\.0\.0\.1:\d+\/auth\?/);
    example.write(await world.login(url));
    const done = await example.exit;
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(example.lines.at(-1)).toBe('tools: whoami');

    await using store = startExample(
      codeBlockAfter(
        docs,
        '## Tokens that survive real life: the token store and single-flight refresh',
      ),
      env,
    );
    const shown = await store.exit;
    expect(shown.stderr).toBe('');
    expect(shown.code).toBe(0);
    expect(store.lines[0]).toMatch(new RegExp(`^issuer ${world.issuer}, client \\S+$`));
    expect(store.lines[1]).toMatch(/^expires \d{4}-\d\d-\d\dT\S+, refreshable true$/);
    expect(shown.stdout).not.toMatch(/token/i);
  }, 60_000);

  it('every ts example type-checks against the built package', async () => {
    const blocks = [...docs.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(13);
    const dir = join(repoRoot, `test/.docs-typecheck-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      blocks.forEach((block, i) => writeFileSync(join(dir, `example-${i}.mts`), block));
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          extends: '../../tsconfig.json',
          compilerOptions: { noEmit: true, rootDir: '.', noUnusedLocals: false },
          include: ['*.mts'],
        }),
      );
      const result = await new Promise<{ code: number | null; out: string }>((resolve) => {
        execFile(
          process.execPath,
          [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')],
          { cwd: repoRoot, timeout: 120_000 },
          (error, stdout, stderr) =>
            resolve({ code: error === null ? 0 : (error.code as number), out: stdout + stderr }),
        );
      });
      expect(result.out).toBe('');
      expect(result.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
