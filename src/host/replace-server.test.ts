/**
 * McpHost.replaceServer and removeServer with a drain: new calls go to the new server at once,
 * calls in flight on the old one finish within `drainTimeoutMs` or fail with a typed error, and
 * the old server's late events never touch its successor's tools or status.
 */
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { deferred } from '../internal/wait.js';
import type { Transport } from '../jsonrpc/transport.js';
import type { CallToolResult } from '../protocol/types.js';
import { FakeMcpServer, type FakeTool } from '../testing/index.js';
import { createLinkedTransports } from '../transport/in-memory.js';
import type { HostServerDefinition } from './server-definition.js';
import { McpHost } from './mcp-host.js';
import type { ServerStatus } from './slot/server-status.js';

/** A tool that answers `label` once `release` is called (and says when it was called). */
function gate(label: string) {
  const started = deferred();
  const release = deferred();
  const tool: FakeTool = {
    name: 'slow',
    inputSchema: { type: 'object' },
    handler: async (): Promise<CallToolResult> => {
      started.resolve();
      await release.promise;
      return { content: [{ type: 'text', text: label }] };
    },
  };
  return { tool, started: started.promise, release: () => release.resolve() };
}

function definition(name: string, label: string, tools: FakeTool[]): HostServerDefinition {
  return {
    name,
    transport: (): Transport => {
      const [client, server] = createLinkedTransports();
      const fakeServer = new FakeMcpServer(server, {
        era: 'legacy',
        serverInfo: { name: label, version: '1.0.0' },
        tools: [
          ...tools,
          {
            name: 'who',
            inputSchema: { type: 'object' },
            handler: () => ({ content: [{ type: 'text', text: label }] }),
          },
        ],
      });
      void fakeServer.start();
      return client;
    },
  };
}

const text = (result: CallToolResult): string =>
  result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

describe('McpHost.replaceServer', () => {
  it('sends new calls to the new server while the old one finishes its call in flight', async () => {
    await using _guard = leakGuard();
    const old = gate('old');
    await using host = new McpHost({ health: { intervalMs: 0 } });
    await host.addServer(definition('s', 'old', [old.tool]));
    const inFlight = host.callTool('mcp__s__slow');
    await old.started;

    const statuses: ServerStatus[] = [];
    host.onServerStatus((status) => statuses.push(status));
    const replaced = host.replaceServer(definition('s', 'new', []), { drainTimeoutMs: 10_000 });
    // The tools stay listed and route to the new server, which is connecting.
    expect(host.tools().map((tool) => tool.name)).toContain('mcp__s__who');
    expect(text(await host.callTool('mcp__s__who'))).toBe('new');
    expect(host.serverStatus('s').inFlight).toBe(0); // the new server's count

    old.release();
    expect(text(await inFlight)).toBe('old');
    const status = await replaced;
    expect(status.state).toBe('ready');
    expect(status.serverInfo?.name).toBe('new');
    // The old server's 'closed' never reached the listeners: the name is the new server's.
    expect(statuses.map((s) => s.state)).not.toContain('closed');
    expect(host.tools().map((tool) => tool.name)).toEqual(['mcp__s__who']); // 'slow' left
  });

  it('closes the old server after drainTimeoutMs: its pending call fails with a typed error', async () => {
    await using _guard = leakGuard();
    const old = gate('old');
    await using host = new McpHost({ health: { intervalMs: 0 } });
    await host.addServer(definition('s', 'old', [old.tool]));
    const inFlight = host.callTool('mcp__s__slow').catch((error: unknown) => error);
    await old.started;

    await host.replaceServer(definition('s', 'new', []), { drainTimeoutMs: 20 });
    const error = await inFlight;
    expect(error).toBeInstanceOf(McpHostError);
    expect(['CONNECTION_CLOSED', 'SERVER_UNAVAILABLE']).toContain((error as McpHostError).code);
    old.release();
  });
});

describe('McpHost.replaceServer, edges', () => {
  it('sends a call looked up before the swap (held by the approval hook) to the new server', async () => {
    await using _guard = leakGuard();
    const asked = deferred();
    const approve = deferred<boolean>();
    await using host = new McpHost({
      health: { intervalMs: 0 },
      approve: () => {
        asked.resolve();
        return approve.promise;
      },
    });
    await host.addServer(definition('s', 'old', []));
    const call = host.callTool('mcp__s__who');
    await asked.promise;
    await host.replaceServer(definition('s', 'new', [])); // the old one is closed by now
    approve.resolve(true);
    expect(text(await call)).toBe('new');
  });

  it('offers no tools of the old server when the tool filter changed, until the new one lists', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost({ health: { intervalMs: 0 } });
    await host.addServer(definition('s', 'old', [gate('old').tool]));
    expect(host.tools().map((tool) => tool.name)).toEqual(['mcp__s__slow', 'mcp__s__who']);
    const replaced = host.replaceServer({
      ...definition('s', 'new', [gate('new').tool]),
      tools: { block: ['slow'] },
    });
    expect(host.tools()).toEqual([]);
    await replaced;
    expect(host.tools().map((tool) => tool.name)).toEqual(['mcp__s__who']);
  });

  it('refuses an unknown name', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost({ health: { intervalMs: 0 } });
    await expect(host.replaceServer(definition('s', 'new', []))).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(host.status()).toEqual([]);
  });
});

describe('McpHost.removeServer with a drain', () => {
  it('takes the tools off the list at once and lets the call in flight finish', async () => {
    await using _guard = leakGuard();
    const old = gate('old');
    await using host = new McpHost({ health: { intervalMs: 0 } });
    await host.addServer(definition('s', 'old', [old.tool]));
    await host.addServer(definition('t', 'other', []));
    const inFlight = host.callTool('mcp__s__slow');
    await old.started;

    const removed = host.removeServer('s', { drainTimeoutMs: 10_000 });
    expect(host.tools().map((tool) => tool.name)).toEqual(['mcp__t__who']);
    await expect(host.callTool('mcp__s__who')).rejects.toMatchObject({ code: 'TOOL_NOT_FOUND' });
    old.release();
    expect(text(await inFlight)).toBe('old');
    await removed;
    expect(host.status().map((s) => s.name)).toEqual(['t']);
  });

  it('closes a draining server when the host closes', async () => {
    await using _guard = leakGuard();
    const old = gate('old');
    const host = new McpHost({ health: { intervalMs: 0 } });
    await host.addServer(definition('s', 'old', [old.tool]));
    const inFlight = host.callTool('mcp__s__slow').catch((error: unknown) => error);
    await old.started;
    const removed = host.removeServer('s', { drainTimeoutMs: 60_000 });
    await host.close();
    await removed;
    expect(await inFlight).toBeInstanceOf(McpHostError);
    old.release();
  });
});
