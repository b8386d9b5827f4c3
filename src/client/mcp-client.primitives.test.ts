import { describe, expect, it } from 'vitest';
import type { McpHostError } from '../errors/mcp-host-error.js';
import { createLinkedTransports } from '../transport/in-memory.js';
import { FakeMcpServer } from '../testing/fake-mcp-server.js';
import { McpClient } from './mcp-client.js';
import { connect, echo } from '../../test/helpers/mcp-client-harness.js';

describe('primitives', () => {
  it('paginates, and stops a cursor loop with a typed error', async () => {
    const tools = Array.from({ length: 5 }, (_, i) => ({
      name: `t${i}`,
      inputSchema: { type: 'object' },
    }));
    {
      await using h = await connect({ era: 'legacy', tools, pageSize: 2 });
      await h.client.connect();
      expect((await h.client.listTools()).tools.map((t) => t.name)).toEqual([
        't0',
        't1',
        't2',
        't3',
        't4',
      ]);
    }
    {
      await using h = await connect({
        era: 'legacy',
        handlers: { 'tools/list': () => ({ tools: [], nextCursor: 'again' }) },
      });
      await h.client.connect();
      await expect(h.client.listTools()).rejects.toMatchObject({ code: 'PROTOCOL_VIOLATION' });
    }
  });

  it('exposes modern cache hints and excludes tools with unusable definitions', async () => {
    await using h = await connect({
      era: 'modern',
      handlers: {
        'tools/list': () => ({
          tools: [echo, { name: 'bad', inputSchema: 'nope' }, { inputSchema: {} }],
          ttlMs: 1000,
          cacheScope: 'private',
        }),
      },
    });
    await h.client.connect();
    const listing = await h.client.listTools();
    expect(listing.tools.map((t) => t.name)).toEqual(['echo']);
    expect(listing.excluded.map((e) => e.name)).toEqual(['bad', '<unnamed>']);
    expect(listing).toMatchObject({ ttlMs: 1000, cacheScope: 'private' });
  });

  it('returns isError results as data and turns a missing structuredContent into an error result', async () => {
    await using h = await connect({
      era: 'legacy',
      tools: [
        {
          name: 'fails',
          inputSchema: { type: 'object' },
          handler: () => ({ content: [{ type: 'text', text: 'nope' }], isError: true }),
        },
        {
          name: 'typed',
          inputSchema: { type: 'object' },
          outputSchema: { type: 'object' },
          handler: () => ({ content: [] }),
        },
      ],
    });
    await h.client.connect();
    await h.client.listTools();
    expect(await h.client.callTool('fails')).toMatchObject({ isError: true });
    const typed = await h.client.callTool('typed');
    expect(typed.isError).toBe(true);
    expect(typed.content[0]).toMatchObject({ text: expect.stringContaining('structuredContent') });
  });

  it('excludes a tool whose schema is invalid, keeps the others, and validates structuredContent', async () => {
    await using h = await connect({
      era: 'legacy',
      tools: [
        { name: 'broken', inputSchema: { type: 42 } },
        {
          name: 'weather',
          inputSchema: { type: 'object' },
          outputSchema: {
            type: 'object',
            properties: { temperature: { type: 'number' } },
            required: ['temperature'],
          },
          handler: (args) => ({
            content: [],
            structuredContent: { temperature: args.bad === true ? 'hot' : 21 },
          }),
        },
      ],
    });
    await h.client.connect();
    const listing = await h.client.listTools();
    expect(listing.tools.map((t) => t.name)).toEqual(['weather']);
    expect(listing.excluded).toEqual([
      { name: 'broken', reason: expect.stringContaining('inputSchema is unusable') },
    ]);
    await expect(h.client.callTool('broken', {})).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      tool: 'broken',
    });
    expect(h.fake.methods()).not.toContain('tools/call');
    expect(await h.client.callTool('weather', {})).toMatchObject({
      structuredContent: { temperature: 21 },
    });
    const mismatch = await h.client.callTool('weather', { bad: true });
    expect(mismatch.isError).toBe(true);
    expect(mismatch.content[0]).toMatchObject({
      text: expect.stringMatching(
        /does not match the tool's outputSchema: .*temperature must be number/,
      ),
    });
  });

  it('debounces a list_changed flood into one refetch and one change event', async () => {
    const tools = [echo];
    await using h = await connect({ era: 'legacy', tools });
    await h.client.connect();
    await h.client.listTools();
    const changes: unknown[] = [];
    const changed = new Promise<void>((resolve) =>
      h.client.onToolsChanged((change) => {
        changes.push(change);
        resolve();
      }),
    );
    tools.push({ name: 'added', inputSchema: { type: 'object' } });
    for (let i = 0; i < 1000; i++) h.fake.peer.notify('notifications/tools/list_changed');
    await changed;
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      kind: 'tools',
      added: [{ name: 'added' }],
      removed: [],
      changed: [],
    });
    expect(h.fake.methods().filter((m) => m === 'tools/list').length).toBeLessThanOrEqual(3);
  });

  it('fails calls at once when the server goes away, and reports why', async () => {
    const [clientTransport, serverTransport] = createLinkedTransports();
    const fake = new FakeMcpServer(serverTransport, {
      era: 'legacy',
      tools: [
        { name: 'hang', inputSchema: { type: 'object' }, handler: () => new Promise(() => {}) },
      ],
    });
    await fake.start();
    const client = new McpClient({ transport: clientTransport, serverName: 'gone' });
    await client.connect();
    const closed = new Promise<McpHostError | undefined>((resolve) => client.onClose(resolve));
    const call = client.callTool('hang');
    await fake.close();
    await expect(call).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(await closed).toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(client.state).toBe('closed');
    await client.close();
  });

  it('refuses every primitive with NOT_CONNECTED before connect(), and sends nothing', async () => {
    const [clientTransport, serverTransport] = createLinkedTransports();
    const fake = new FakeMcpServer(serverTransport, { era: 'legacy', tools: [echo] });
    await fake.start();
    const client = new McpClient({ transport: clientTransport, serverName: 'early' });
    const entry = { uri: 'skill://x/SKILL.md', name: 'x', description: 'x' };
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['listTools', () => client.listTools()],
      ['callTool', () => client.callTool('echo', { text: 'hi' })],
      ['listResources', () => client.listResources()],
      ['listResourceTemplates', () => client.listResourceTemplates()],
      ['readResource', () => client.readResource('file:///x')],
      ['subscribeResource', () => client.subscribeResource('file:///x')],
      ['unsubscribeResource', () => client.unsubscribeResource('file:///x')],
      ['listPrompts', () => client.listPrompts()],
      ['getPrompt', () => client.getPrompt('p')],
      [
        'complete',
        () => client.complete({ type: 'ref/prompt', name: 'p' }, { name: 'a', value: '' }),
      ],
      ['listSkills', () => client.listSkills()],
      ['getSkill', () => client.getSkill('skill://x/SKILL.md')],
      ['readSkillDirectory', () => client.readSkillDirectory('skill://x/')],
      ['loadSkill', () => client.loadSkill('skill://x/SKILL.md')],
      ['readSkillFile', () => client.readSkillFile(entry as never, 'skill://x/SKILL.md')],
      ['ping', () => client.ping()],
    ];
    for (const [method, call] of calls)
      await expect(call(), method).rejects.toMatchObject({
        code: 'NOT_CONNECTED',
        serverName: 'early',
      });
    // Setting the level before connect() only records it; roots changes wait for a session.
    await client.setLoggingLevel('debug');
    client.notifyRootsChanged();
    expect(client.supportsSkills).toBe(false);
    expect(client.supportsSkillDirectoryRead).toBe(false);
    // Tasks need a session that declared the extension: none before connect().
    expect(client.tasks.supported).toBe(false);
    for (const [method, call] of [
      ['tasks/get', () => client.tasks.get('t1')],
      ['tasks/update', () => client.tasks.update('t1', {})],
      ['tasks/cancel', () => client.tasks.cancel('t1')],
    ] as const)
      await expect(call(), method).rejects.toMatchObject({
        code: 'CAPABILITY_NOT_SUPPORTED',
        serverName: 'early',
        method,
      });
    expect(client.stats.requestsSent).toBe(0);
    expect(fake.methods()).toEqual([]);
    await client.close();
    await fake.close();
  });
});
