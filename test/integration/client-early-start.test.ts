/**
 * `McpClient.connect()` starts a stdio server's process before it loads and runs the rest of the
 * connect (docs/lifecycle.md, "A stdio server starts first"): the same session, the same errors,
 * and no process left behind whichever way the connect ends.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client.js';
import { StdioTransport } from '../../src/stdio.js';
import { leakGuard } from '../helpers/leak-guard.js';

const server = fileURLToPath(new URL('../fixtures/mcp/legacy-sdk-server.mjs', import.meta.url));
const stdio = { type: 'stdio' as const, command: process.execPath, args: [server] };

describe('McpClient starts a stdio server first', () => {
  it('a connect that fails before the session takes the started server leaves no process', async () => {
    await using guard = leakGuard();
    void guard;
    const client = new McpClient({
      serverName: 'early',
      transport: stdio,
      protocolVersion: '1999-01-01',
    });
    await expect(client.connect()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await client.close();
  });

  it('a connect given up at once by close() leaves no process', async () => {
    await using guard = leakGuard();
    void guard;
    const client = new McpClient({ serverName: 'early', transport: stdio, era: 'legacy' });
    const connecting = client.connect();
    await client.close();
    await expect(connecting).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
  });

  it("runs the session on a factory's stdio transport, made once, and closes it", async () => {
    await using guard = leakGuard();
    const made: StdioTransport[] = [];
    const client = new McpClient({
      serverName: 'early',
      era: 'legacy',
      transport: () => {
        const transport = new StdioTransport({ ...stdio, serverName: 'early' });
        made.push(transport);
        return transport;
      },
    });
    await client.connect();
    guard.trackPid(client.pid);
    expect(made).toHaveLength(1);
    expect(client.pid).toBe(made[0]!.pid);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    await client.close();
    expect(made[0]!.state).toBe('closed');
  });

  it('opens a stdio definition as before: era detected, tools listed', async () => {
    await using guard = leakGuard();
    const client = new McpClient({ serverName: 'early', transport: stdio });
    await client.connect();
    guard.trackPid(client.pid);
    expect(client.era).toBe('legacy');
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });
});
