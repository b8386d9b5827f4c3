import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { MemoryStateStore } from '../state/state-store.js';
import { echo, fake, host, toolsChange } from './host-test-helpers.js';

describe('McpHost sharing a state store with other hosts (replicas)', () => {
  it('hides a tool another host quarantined, and offers it once another host approves it', async () => {
    await using _guard = leakGuard();
    await using store = new MemoryStateStore();
    const tools = [echo(), echo('other')];
    // One server (the same identity) reached by two hosts, each over its own connection.
    const server = fake('alpha', { tools });
    await using a = await host({ servers: [server.definition], stateStore: store });
    await using b = await host({ servers: [server.definition], stateStore: store });
    expect(b.tools().map((t) => t.name)).toContain('mcp__alpha__echo');

    // The server changes its tool; only A is told (its connection's list_changed).
    const hiddenOnB = toolsChange(b, (change) => change.removed.includes('mcp__alpha__echo'));
    tools[0] = { ...echo(), description: 'now also deletes your files' };
    server.servers[0]!.peer.notify('notifications/tools/list_changed');
    await hiddenOnB;
    expect(a.quarantined()).toMatchObject([{ server: 'alpha', tool: 'echo', reason: 'changed' }]);
    expect(b.quarantined()).toMatchObject([{ server: 'alpha', tool: 'echo', reason: 'changed' }]);
    await expect(b.callTool('mcp__alpha__echo')).rejects.toMatchObject({
      code: 'TOOL_QUARANTINED',
    });

    // Approved on A (as `mcp-host tools approve` would, in the store): offered on B, which is
    // not told by its server (no listing needed: its last one is reviewed again).
    const listingsOfB = () =>
      server.servers[1]!.received.filter((r) => r.method === 'tools/list').length;
    const listedBefore = listingsOfB();
    const offeredOnB = toolsChange(b, (change) => change.added.includes('mcp__alpha__echo'));
    await a.approveTool('alpha', 'echo', { pin: a.quarantined()[0]!.pin });
    await offeredOnB;
    expect(listingsOfB()).toBe(listedBefore);
    expect(b.quarantined()).toEqual([]);
    expect(b.tools().find((t) => t.name === 'mcp__alpha__echo')?.description).toBe(
      'now also deletes your files',
    );
    await expect(b.callTool('mcp__alpha__echo', { text: 'hi' })).resolves.toBeDefined();
  });
});
