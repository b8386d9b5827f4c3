/**
 * `mcp-host gateway serve` (the built CLI) with named clients from the config's `gateway:
 * clients:`: each client's token, read from its file, is accepted and bound to its view; a
 * wrong token is refused; no token reaches the output.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { startHttpGateway } from '../helpers/gateway-harness.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';
import { ensureBuiltCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

beforeAll(() => ensureBuiltCli());

async function toolNames(url: string, token: string): Promise<string[]> {
  const client = new Client({ name: 'gateway-clients-cli-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

describe('mcp-host gateway serve with gateway: clients:', () => {
  it("accepts each client's token from its file and serves it its view; refuses a wrong token", async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const server = `    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(mcpFixtures.legacySdk)}]`;
    const aliceToken = 'alice-token-0123456789abcdef';
    const bobToken = 'bob-token-0123456789abcdef';
    writeFileSync(join(dir.path, 'alice.token'), `${aliceToken}\n`, { mode: 0o600 });
    writeFileSync(join(dir.path, 'bob.token'), `${bobToken}\n`, { mode: 0o600 });
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(
      file,
      [
        'servers:',
        `  one:\n${server}`,
        `  two:\n${server}`,
        'views:',
        '  first:\n    servers: [one]',
        '  second:\n    servers: [two]',
        'gateway:',
        '  port: 0',
        '  clients:',
        '    alice:\n      tokenFile: alice.token\n      view: first',
        '    bob:\n      tokenFile: bob.token\n      view: second',
        '',
      ].join('\n'),
    );
    await using gateway = await startHttpGateway(
      file,
      { MCP_HOST_STATE_DIR: join(dir.path, 'state') },
      [],
    );
    const alice = await toolNames(gateway.url, aliceToken);
    expect(alice).toContain('mcp__one__echo');
    expect(alice.some((name) => name.startsWith('mcp__two__'))).toBe(false);
    const bob = await toolNames(gateway.url, bobToken);
    expect(bob).toContain('mcp__two__echo');
    expect(bob.some((name) => name.startsWith('mcp__one__'))).toBe(false);
    const refused = await fetch(gateway.url, {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${aliceToken}x`,
      },
    });
    expect(refused.status).toBe(401);
    await refused.body?.cancel();
    expect(gateway.stderr.toString()).not.toContain(aliceToken);
    expect(gateway.stderr.toString()).not.toContain(bobToken);
  });

  it('with perClient, a shared server its config keeps from starting is reported, and the rest served', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const server = `    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(mcpFixtures.legacySdk)}]`;
    const aliceToken = 'alice-token-0123456789abcdef';
    writeFileSync(join(dir.path, 'alice.token'), `${aliceToken}\n`, { mode: 0o600 });
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(
      file,
      [
        'servers:',
        `  one:\n${server}`,
        `  broken:\n${server}\n    env: { TOKEN: '\${GATEWAY_TEST_UNSET_VARIABLE}' }`,
        '  tracker:\n    url: http://127.0.0.1:1/mcp\n    oauth: {}',
        'gateway:',
        '  port: 0',
        '  clients:',
        '    alice:\n      tokenFile: alice.token',
        '  perClient: [tracker]',
        '',
      ].join('\n'),
    );
    await using gateway = await startHttpGateway(
      file,
      { MCP_HOST_STATE_DIR: join(dir.path, 'state'), GATEWAY_TEST_UNSET_VARIABLE: undefined },
      [],
    );
    expect(gateway.stderr.toString()).toContain('GATEWAY_TEST_UNSET_VARIABLE');
    expect(gateway.stderr.toString()).toContain('broken');
    const alice = await toolNames(gateway.url, aliceToken);
    expect(alice).toContain('mcp__one__echo');
    expect(alice.some((name) => name.startsWith('mcp__broken__'))).toBe(false);
  });
});
