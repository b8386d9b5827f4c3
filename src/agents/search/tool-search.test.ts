import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../jsonrpc/message.js';
import { fake, host } from '../../host/host-test-helpers.js';
import type { FakeTool } from '../../testing/index.js';
import { createAgentToolset, type ToolSource } from '../agent-toolset.js';
import type { HostTool } from '../../host/host-tool.js';
import {
  DEFAULT_TOOL_SEARCH_OPTIONS,
  createToolSearch,
  type ToolSearchOptions,
} from './tool-search.js';

const tool = (name: string, description: string, properties: string[] = []): FakeTool => ({
  name,
  description,
  inputSchema: {
    type: 'object',
    properties: Object.fromEntries(properties.map((p) => [p, { type: 'string' }])),
    required: properties.slice(0, 1),
  },
  handler: (args: JsonObject) => ({
    content: [{ type: 'text', text: `${name} ${JSON.stringify(args)}` }],
  }),
});

function servers() {
  const github = fake('github', {
    tools: [
      tool('create_issue', 'Create a new issue in a repository. Needs write access.', [
        'repo',
        'title',
        'body',
      ]),
      tool('list_issues', 'List the issues of a repository.', ['repo', 'state']),
      tool('merge_pull_request', 'Merge a pull request.', ['repo', 'number']),
    ],
  });
  const chat = fake('chat', {
    tools: [
      tool('post_message', 'Post a message to a channel.', ['channel', 'text']),
      tool('whoami', 'Who the bot is.'),
    ],
  });
  return { github, chat };
}

async function setup(options: Parameters<typeof createToolSearch>[1] = {}) {
  const { github, chat } = servers();
  const h = await host({ servers: [github.definition, chat.definition] });
  const toolset = createAgentToolset(h, { provider: 'openai' });
  return { h, github, chat, toolset, search: createToolSearch(toolset, options) };
}

const names = (tools: readonly { name: string }[]) => tools.map((t) => t.name);

describe('ToolSearch', () => {
  it('offers only the search tool and the pinned tools before any search', async () => {
    const { h, search } = await setup({ pinned: ['mcp__chat__*', 'mcp__github__list_issues'] });
    await using _h = h;
    expect(names(search.tools())).toEqual([
      'search_tools',
      'mcp__github__list_issues',
      'mcp__chat__post_message',
      'mcp__chat__whoami',
    ]);
    expect(search.pinned).toEqual(names(search.tools()).slice(1));
    expect(search.loaded).toEqual([]);
    const [searchTool] = search.tools();
    expect(searchTool!.inputSchema).toMatchObject({ required: ['query'] });
    expect(searchTool!.description).toContain('5 tools are available');
  });

  it('answers a search with ranked one-line matches and loads them for the next turn', async () => {
    const { h, search, github } = await setup();
    await using _h = h;
    const result = await search.call('search_tools', '{"query":"open a new github issue"}');
    expect(result.isError).toBe(false);
    const lines = result.text.split('\n');
    expect(lines[0]).toMatch(/^\d+ tools? match "open a new github issue", best first/);
    expect(lines[1]).toBe(
      '- mcp__github__create_issue(repo, title?, body?): Create a new issue in a repository.',
    );
    expect(search.loaded[0]).toBe('mcp__github__create_issue');
    const offered = search.tools().find((t) => t.name === 'mcp__github__create_issue');
    expect(offered?.inputSchema).toMatchObject({ properties: { repo: { type: 'string' } } });
    // The search itself never reaches a server.
    expect(github.servers[0]!.received.filter((r) => r.method === 'tools/call')).toEqual([]);

    const called = await search.call('mcp__github__create_issue', { repo: 'octo/x', title: 't' });
    expect(called).toMatchObject({ isError: false });
    expect(github.servers[0]!.received.at(-1)).toMatchObject({
      method: 'tools/call',
      params: { name: 'create_issue', arguments: { repo: 'octo/x', title: 't' } },
    });
  });

  it('refuses a tool that is not loaded, loads it, and lets the next call through', async () => {
    const { h, search, github } = await setup();
    await using _h = h;
    const refused = await search.call('mcp__github__merge_pull_request', { repo: 'a' });
    expect(refused).toMatchObject({
      isError: true,
      error: {
        code: 'TOOL_NOT_LOADED',
        tool: 'mcp__github__merge_pull_request',
        serverName: 'github',
      },
    });
    expect(refused.text).toContain('call it again');
    expect(github.servers[0]!.received.some((r) => r.method === 'tools/call')).toBe(false);
    expect(names(search.tools())).toContain('mcp__github__merge_pull_request');
    const merged = await search.call('mcp__github__merge_pull_request', { repo: 'a', number: '1' });
    expect(merged.isError).toBe(false);
  });

  it('turns unknown tools, bad queries and empty results into results the model can read', async () => {
    const { h, search } = await setup();
    await using _h = h;
    const unknown = await search.call('mcp__nowhere__x', {});
    expect(unknown).toMatchObject({ isError: true, error: { code: 'TOOL_NOT_FOUND' } });
    expect(unknown.text).toContain('call search_tools');
    for (const args of [{}, { query: '' }, { query: 42 }, 'not json', '[1]', null]) {
      const bad = await search.call('search_tools', args);
      expect(bad, JSON.stringify(args)).toMatchObject({
        isError: true,
        error: { code: 'INVALID_ARGUMENT' },
      });
    }
    const none = await search.call('search_tools', { query: 'xylophone tuning' });
    expect(none.isError).toBe(false);
    expect(none.text).toMatch(/^No tool matches "xylophone tuning"/);
    const huge = await search.call('search_tools', { query: `${'zz '.repeat(500_000)}message` });
    expect(huge.isError).toBe(false);
    expect(huge.text.length).toBeLessThan(2_000);
    expect(search.loaded).toEqual([]);
  });

  it('keeps at most maxLoaded tools loaded, unloading the least recently used', async () => {
    const { h, search } = await setup({ maxResults: 1, maxLoaded: 2 });
    await using _h = h;
    await search.call('search_tools', { query: 'create issue' });
    await search.call('search_tools', { query: 'post message channel' });
    expect(search.loaded).toEqual(['mcp__github__create_issue', 'mcp__chat__post_message']);
    // Calling create_issue makes it the most recently used; the next load unloads post_message.
    await search.call('mcp__github__create_issue', { repo: 'r' });
    await search.call('search_tools', { query: 'merge pull request' });
    expect(search.loaded).toEqual(['mcp__github__create_issue', 'mcp__github__merge_pull_request']);
    expect(names(search.tools())).toEqual([
      'search_tools',
      'mcp__github__create_issue',
      'mcp__github__merge_pull_request',
    ]);
  });

  it('carries loaded tools over to a new tool set, dropping names no longer there', async () => {
    const { h, toolset } = await setup();
    await using _h = h;
    const next = createToolSearch(toolset, {
      loaded: ['mcp__chat__whoami', 'mcp__gone__x', 'mcp__github__list_issues'],
    });
    expect(next.loaded).toEqual(['mcp__chat__whoami', 'mcp__github__list_issues']);
  });

  it('searches only what the tool set offers (so per view)', async () => {
    const { github, chat } = servers();
    await using h = await host({ servers: [github.definition, chat.definition] });
    const view = createAgentToolset(h, {
      provider: 'anthropic',
      filter: (t) => t.server === 'chat',
    });
    const search = createToolSearch(view);
    expect(search.search('create issue')).toEqual([]);
    expect(search.search('message').map((m) => m.name)).toEqual(['mcp__chat__post_message']);
    const refused = await search.call('mcp__github__create_issue', { repo: 'r' });
    expect(refused.error?.code).toBe('TOOL_NOT_FOUND');
  });

  it('rejects bad options with INVALID_ARGUMENT', async () => {
    const { h, toolset } = await setup();
    await using _h = h;
    for (const options of [
      { maxResults: 0 },
      { maxResults: 51 },
      { maxResults: 1.5 },
      { maxResults: 10, maxLoaded: 5 },
      { searchToolName: 'has space' },
      { searchToolName: 'mcp__chat__whoami' },
      { loaded: 'mcp__chat__whoami' },
      { pinned: 'mcp__chat__*' },
      { pinned: [42] },
    ] as unknown as ToolSearchOptions[]) {
      expect(() => createToolSearch(toolset, options), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
    }
    expect(DEFAULT_TOOL_SEARCH_OPTIONS.maxResults).toBeLessThanOrEqual(
      DEFAULT_TOOL_SEARCH_OPTIONS.maxLoaded,
    );
    const renamed = createToolSearch(toolset, { searchToolName: 'find_tools' });
    expect((await renamed.call('find_tools', { query: 'whoami' })).text).toBe(
      '1 tool matches "whoami". It is loaded: call it directly.\n- mcp__chat__whoami(): Who the bot is.',
    );
  });

  it('throws when the signal has aborted, like the tool set', async () => {
    const { h, search } = await setup();
    await using _h = h;
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(
      search.call('search_tools', { query: 'issue' }, { signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('reads a bounded part of what servers describe, and answers in bounded lines', async () => {
    const huge: HostTool = {
      name: 'mcp__big__tool',
      originalName: 'tool',
      server: 'big',
      description: `Huge ${'padding words '.repeat(50_000)} needle. Second sentence.`,
      inputSchema: {
        type: 'object',
        properties: Object.fromEntries(
          Array.from({ length: 1_000 }, (_, i) => [
            `p${i}_${'x'.repeat(i === 0 ? 10_000 : 1)}`,
            {},
          ]),
        ),
      },
    };
    const source: ToolSource = {
      tools: () => [huge],
      callTool: () => Promise.reject(new Error('not called')),
    };
    const search = createToolSearch(createAgentToolset(source, { provider: 'gemini' }));
    expect(search.search('needle')).toEqual([]);
    const [match] = search.search('padding');
    expect(match!.description.length).toBeLessThanOrEqual(160);
    expect(match!.parameters).toHaveLength(64);
    expect(match!.parameters[0]!.name).toHaveLength(64);
    expect(search.search('p999')).toEqual([]);
    const answer = await search.call('search_tools', { query: 'padding' });
    expect(answer.text.length).toBeLessThan(6_000);
  });
});
