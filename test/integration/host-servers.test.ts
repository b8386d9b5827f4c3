/**
 * McpHost with several real servers at once, over stdio: the official everything, filesystem
 * (confined to a scratch directory) and memory (its graph in a scratch file) servers, and the
 * SDK-built fixtures (legacy v1, modern v2), which expose the same tool names (`echo`, `add`, …) as
 * each other and as server-everything. Namespacing, routing, resources and prompts across servers,
 * static and dynamic filters, per-agent permissions, the approval hook and native tools beside MCP
 * tools; then, against `mutable-sdk-server.mjs` (whose definitions change on command), tool pinning
 * and quarantine for each kind of definition change, pins kept across hosts in a FileStateStore,
 * list caching with and without list_changed, and the retry policy of a call whose server crashes.
 */
import { mkdirSync, realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  McpHost,
  McpHostError,
  MemoryStateStore,
  type ApprovalRequest,
  type CallToolResult,
  type Disposable,
  type HostServerDefinition,
  type McpHostOptions,
  type PinEvent,
  type ServerStatus,
} from '../../src/index.js';
import { FileStateStore } from '../../src/node.js';
import { leakGuard, type LeakGuard } from '../helpers/leak-guard.js';
import {
  fixtureTransport,
  mcpFixtures,
  within,
  type FixtureProcess,
} from '../helpers/mcp-fixtures.js';
import { tempDir, type TempDir } from '../helpers/scratch.js';

const require = createRequire(import.meta.url);
const entry = (name: string): string =>
  require.resolve(`@modelcontextprotocol/${name}/dist/index.js`);

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const EVENT_MS = 10_000;

/** A server definition over stdio whose every process is kept (what was sent to it, its records). */
interface Spawned {
  definition: HostServerDefinition;
  processes: readonly FixtureProcess[];
}

function spawned(
  name: string,
  script: string,
  args: readonly string[] = [],
  options: Partial<HostServerDefinition> & { env?: Record<string, string> } = {},
): Spawned {
  const { env, ...definition } = options;
  const { transport, processes } = fixtureTransport(name, script, args, { env });
  return { definition: { name, transport, ...definition }, processes };
}

/** Requests of `method` the host sent to this server, over all its processes. */
function sent(server: Spawned, method: string, tool?: string): number {
  let count = 0;
  for (const p of server.processes) {
    for (const message of p.transport.sent) {
      const m = message as { method?: string; id?: unknown; params?: { name?: string } };
      if (
        m.method === method &&
        m.id !== undefined &&
        (tool === undefined || m.params?.name === tool)
      )
        count++;
    }
  }
  return count;
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

/** The first event that matches, bounded (a hang becomes a failure, never a sleep). */
function next<T>(
  subscribe: (listener: (value: T) => void) => Disposable,
  matches: (value: T) => boolean,
  what: string,
): Promise<T> {
  let subscription: Disposable | undefined;
  const event = new Promise<T>((resolve) => {
    subscription = subscribe((value) => {
      if (!matches(value)) return;
      subscription?.dispose();
      resolve(value);
    });
  });
  return within(event, EVENT_MS, what).finally(() => subscription?.dispose());
}

function stateOf(host: McpHost, server: string, state: ServerStatus['state']): Promise<unknown> {
  if (host.serverStatus(server).state === state) return Promise.resolve();
  return next(
    host.onServerStatus,
    (status) => status.name === server && status.state === state,
    `'${server}' ${state}`,
  );
}

/** Lets the event loop turn (never a timer) until `check` holds; fails after 100 turns. */
async function turnsUntil(check: () => boolean, what: string): Promise<void> {
  for (let turn = 0; turn < 100; turn++) {
    if (check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`${what}: not after 100 event-loop turns`);
}

async function failure(promise: Promise<unknown>): Promise<McpHostError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpHostError);
  return error as McpHostError;
}

/** Starts a host and registers its server processes with the guard for the leak check. */
async function startHost(
  guard: LeakGuard,
  servers: readonly Spawned[],
  options: McpHostOptions = {},
): Promise<McpHost> {
  const host = new McpHost({
    health: { intervalMs: 0 },
    ...options,
    servers: servers.map((s) => s.definition),
  });
  // Every process the host starts belongs to the guard (restarts too), so other guards opened
  // meanwhile do not count it as a stray child.
  const track = (): void => {
    for (const server of servers) for (const p of server.processes) guard.trackPid(p.pid);
  };
  host.onServerStatus(track);
  await host.start();
  track();
  return host;
}

// ---- one host over five real servers ------------------------------------------------------------

let dir: TempDir;
let files: string;
let memoryFile: string;
let guard: LeakGuard;
let host: McpHost;
let servers: Record<'everything' | 'filesystem' | 'memory' | 'legacy' | 'modern', Spawned>;
const approvals: ApprovalRequest[] = [];

beforeAll(async () => {
  guard = leakGuard();
  dir = tempDir();
  const root = realpathSync(dir.path);
  files = join(root, 'files');
  mkdirSync(files);
  memoryFile = join(root, 'memory.jsonl');
  servers = {
    everything: spawned('everything', entry('server-everything'), ['stdio']),
    filesystem: spawned('filesystem', entry('server-filesystem'), [files], {
      tools: {
        allow: ['read_*', 'list_*', 'write_file', 'get_file_info'],
        block: ['read_media_file'],
      },
    }),
    memory: spawned('memory', entry('server-memory'), [], {
      env: { MEMORY_FILE_PATH: memoryFile },
      tools: { block: ['delete_*'] },
    }),
    legacy: spawned('legacy', mcpFixtures.legacySdk),
    modern: spawned('modern', mcpFixtures.modernSdk),
  };
  host = await startHost(guard, Object.values(servers), {
    // Callers in a read-only run see (and may call) only tools annotated read-only; a run named
    // 'broken-filter' makes the filter throw.
    filter: (tool, context) => {
      if (context?.run === 'broken-filter') throw new Error('a bug in the filter');
      return context?.run !== 'read-only' || tool.annotations?.readOnlyHint === true;
    },
    permissions: {
      researcher: { allow: ['everything/*', 'memory/read_graph', 'memory/search_nodes'] },
      intern: { block: ['mcp__filesystem__*'] },
    },
    approve: (request) => {
      approvals.push(request);
      if (request.context?.run === 'approver-down')
        return Promise.reject(new Error('the approval service is down'));
      return request.tool.annotations?.destructiveHint !== true || request.context?.run === 'ok';
    },
  });
});

afterAll(async () => {
  await host?.close();
  await guard?.[Symbol.asyncDispose]();
  dir?.[Symbol.dispose]();
});

describe('McpHost over everything, filesystem, memory and two SDK-built servers', () => {
  it('connects all five, each in its era, and namespaces the tools they share', () => {
    expect(host.status().map((s) => [s.name, s.state, s.era])).toEqual([
      ['everything', 'ready', 'legacy'],
      ['filesystem', 'ready', 'legacy'],
      ['memory', 'ready', 'legacy'],
      ['legacy', 'ready', 'legacy'],
      ['modern', 'ready', 'modern'],
    ]);
    const tools = host.tools();
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(NAME);
    for (const status of host.status())
      expect(tools.filter((t) => t.server === status.name)).toHaveLength(status.toolCount);
    // `echo` on three servers, `add` on two: one exposed name each, mapping back to its server.
    for (const server of ['everything', 'legacy', 'modern'])
      expect(tools.find((t) => t.name === `mcp__${server}__echo`)).toMatchObject({
        server,
        originalName: 'echo',
      });
    expect(names.filter((n) => n.endsWith('__add')).sort()).toEqual([
      'mcp__legacy__add',
      'mcp__modern__add',
    ]);
  });

  it('routes each call to the server that owns the tool', async () => {
    const before = Object.fromEntries(
      Object.entries(servers).map(([name, s]) => [name, sent(s, 'tools/call')]),
    );
    const echoes = await Promise.all(
      ['everything', 'legacy', 'modern'].map((server) =>
        host.callTool(`mcp__${server}__echo`, { message: `to ${server}` }),
      ),
    );
    expect(echoes.map(textOf)).toEqual(['Echo: to everything', 'to legacy', 'to modern']);
    expect((await host.callTool('mcp__everything__get-sum', { a: 2, b: 3 })).content).toEqual([
      { type: 'text', text: 'The sum of 2 and 3 is 5.' },
    ]);
    expect((await host.callTool('mcp__modern__add', { a: 4, b: 5 })).structuredContent).toEqual({
      sum: 9,
    });
    const path = join(files, 'note.txt');
    const written = await host.callTool(
      'mcp__filesystem__write_file',
      { path, content: 'hello from the host' },
      { context: { run: 'ok' } }, // write_file is destructive: the approval hook wants this
    );
    expect(written.isError).not.toBe(true);
    expect(await readFile(path, 'utf8')).toBe('hello from the host');
    expect(textOf(await host.callTool('mcp__filesystem__read_text_file', { path }))).toBe(
      'hello from the host',
    );
    const created = await host.callTool('mcp__memory__create_entities', {
      entities: [{ name: 'host', entityType: 'program', observations: ['routes calls'] }],
    });
    expect(created.isError).not.toBe(true);
    const graph = await host.callTool('mcp__memory__read_graph', {});
    expect(graph.structuredContent).toMatchObject({ entities: [{ name: 'host' }] });
    // Each server got exactly its own calls.
    const after = Object.fromEntries(
      Object.entries(servers).map(([name, s]) => [name, sent(s, 'tools/call') - before[name]!]),
    );
    expect(after).toEqual({ everything: 2, filesystem: 2, memory: 2, legacy: 1, modern: 2 });
  });

  it('offers native tools beside MCP tools, under names that must stay free', async () => {
    const calls = (): number =>
      Object.values(servers).reduce((sum, s) => sum + sent(s, 'tools/call'), 0);
    const added = next(host.onToolsChanged, (e) => e.server === undefined, 'native tool added');
    host.registerTool({
      name: 'shout',
      description: 'Upper-cases its text.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      annotations: { readOnlyHint: true },
      run: (args, { context }) =>
        `${String(args.text).toUpperCase()} (for ${context?.agent ?? '?'})`,
    });
    try {
      expect(await added).toEqual({
        server: undefined,
        added: ['shout'],
        removed: [],
        changed: [],
      });
      const names = host.tools().map((t) => t.name);
      expect(names).toContain('shout');
      expect(names).toContain('mcp__everything__echo');
      const shout = host.tools().find((t) => t.name === 'shout');
      expect(shout?.originalName).toBe('shout');
      expect(shout?.server).toBeUndefined();
      const before = calls();
      const result = await host.callTool('shout', { text: 'hi' }, { context: { agent: 'intern' } });
      expect(textOf(result)).toBe('HI (for intern)');
      expect(calls()).toBe(before);
      // Arguments are checked against the native tool's schema, as for MCP tools.
      const invalid = await host.callTool('shout', {});
      expect(invalid.isError).toBe(true);
      expect(textOf(invalid)).toContain("Invalid arguments for tool 'shout'");
      // A name an MCP tool already has is refused.
      expect(() =>
        host.registerTool({
          name: 'mcp__legacy__echo',
          inputSchema: { type: 'object' },
          run: () => '',
        }),
      ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }) as Error);
    } finally {
      expect(host.unregisterTool('shout')).toBe(true);
    }
    expect(host.tools().map((t) => t.name)).not.toContain('shout');
  });

  it('lists resources across servers, each with its server, and routes reads by URI', async () => {
    const resources = await host.resources();
    const owners = (uri: string): string[] =>
      resources.filter((r) => r.uri === uri).map((r) => r.server);
    expect(owners('demo://resource/static/document/architecture.md')).toEqual(['everything']);
    expect(owners('memory://knowledge-graph')).toEqual(['memory']);
    // Both SDK fixtures list the same URI: each listing is kept, with its server.
    expect(owners('fixture://static/hello')).toEqual(['legacy', 'modern']);
    expect(resources.some((r) => r.server === 'filesystem')).toBe(false); // no resources capability

    const reads = (): Record<string, number> =>
      Object.fromEntries(Object.entries(servers).map(([n, s]) => [n, sent(s, 'resources/read')]));
    const before = reads();
    const graph = await host.readResource('memory://knowledge-graph');
    const graphText = graph.contents[0] as { text?: string };
    expect(JSON.parse(graphText.text ?? '{}')).toMatchObject({ entities: [{ name: 'host' }] });
    const doc = await host.readResource('demo://resource/static/document/architecture.md');
    expect(doc.contents[0]?.uri).toBe('demo://resource/static/document/architecture.md');
    const hello = await host.readResource('fixture://static/hello', { server: 'modern' });
    expect(hello.contents).toMatchObject([{ text: 'hello, world' }]);
    const after = reads();
    expect(
      Object.fromEntries(Object.keys(after).map((name) => [name, after[name]! - before[name]!])),
    ).toEqual({ everything: 1, filesystem: 0, memory: 1, legacy: 0, modern: 1 });

    const unknown = await failure(host.readResource('fixture://nowhere'));
    expect(unknown.code).toBe('INVALID_ARGUMENT');
  });

  it('lists prompts across servers under namespaced names and gets each from its server', async () => {
    // By name, before anything listed the prompts: the host lists them to resolve the name.
    const legacy = await host.getPrompt('mcp__legacy__greet', { name: 'alice', style: 'formal' });
    expect(legacy.messages).toMatchObject([
      { role: 'user', content: { text: 'Greet alice in a formal way.' } },
    ]);
    const prompts = await host.prompts();
    const greet = prompts.filter((p) => p.originalName === 'greet');
    expect(greet.map((p) => [p.name, p.server])).toEqual([
      ['mcp__legacy__greet', 'legacy'],
      ['mcp__modern__greet', 'modern'],
    ]);
    expect(prompts.find((p) => p.name === 'mcp__everything__simple-prompt')).toMatchObject({
      server: 'everything',
      originalName: 'simple-prompt',
    });
    for (const prompt of prompts) expect(prompt.name).toMatch(NAME);

    const before = sent(servers.legacy, 'prompts/get');
    expect(before).toBe(1);
    const modern = await host.getPrompt('mcp__modern__greet', { name: 'bob' });
    expect(modern.messages).toMatchObject([{ role: 'user', content: { text: 'Greet bob.' } }]);
    const simple = await host.getPrompt('mcp__everything__simple-prompt');
    expect(simple.messages.length).toBeGreaterThan(0);
    expect(sent(servers.legacy, 'prompts/get')).toBe(before);
    expect(sent(servers.modern, 'prompts/get')).toBe(1);

    const missing = await failure(host.getPrompt('mcp__legacy__nope'));
    expect(missing.code).toBe('INVALID_ARGUMENT');
  });

  it('applies static allow/block lists: a filtered tool does not exist for anyone', async () => {
    const of = (server: string): string[] =>
      host
        .tools()
        .filter((t) => t.server === server)
        .map((t) => t.originalName)
        .sort();
    expect(of('filesystem')).toEqual([
      'get_file_info',
      'list_allowed_directories',
      'list_directory',
      'list_directory_with_sizes',
      'read_file',
      'read_multiple_files',
      'read_text_file',
      'write_file',
    ]); // `read_media_file` matches `read_*` but is blocked: block wins
    expect(of('memory').some((name) => name.startsWith('delete_'))).toBe(false);
    expect(of('memory')).toContain('create_entities');

    const before = sent(servers.filesystem, 'tools/call') + sent(servers.memory, 'tools/call');
    for (const name of [
      'mcp__filesystem__move_file',
      'mcp__filesystem__read_media_file',
      'mcp__memory__delete_entities',
    ]) {
      const error = await failure(host.callTool(name, {}));
      expect(error.code).toBe('TOOL_NOT_FOUND');
    }
    expect(sent(servers.filesystem, 'tools/call') + sent(servers.memory, 'tools/call')).toBe(
      before,
    );
  });

  it('applies the dynamic filter when listing and when calling', async () => {
    const visible = host.tools({ run: 'read-only' });
    for (const tool of visible) expect(tool.annotations?.readOnlyHint).toBe(true);
    const names = visible.map((t) => t.name);
    expect(names).toContain('mcp__everything__echo');
    expect(names).toContain('mcp__filesystem__read_text_file');
    expect(names).toContain('mcp__memory__read_graph');
    expect(names).not.toContain('mcp__filesystem__write_file');
    expect(names).not.toContain('mcp__memory__create_entities');
    expect(names).not.toContain('mcp__legacy__echo'); // the SDK fixtures annotate nothing
    expect(host.tools().map((t) => t.name)).toContain('mcp__legacy__echo');

    const asked = approvals.length;
    const before = sent(servers.filesystem, 'tools/call') + sent(servers.legacy, 'tools/call');
    for (const name of ['mcp__filesystem__write_file', 'mcp__legacy__echo']) {
      const error = await failure(
        host.callTool(
          name,
          { path: join(files, 'x'), content: 'x', message: 'x' },
          {
            context: { run: 'read-only' },
          },
        ),
      );
      expect(error.code).toBe('TOOL_DENIED');
      expect(error.message).toContain('host filter');
    }
    expect(approvals.length).toBe(asked); // refused before the approval hook
    expect(sent(servers.filesystem, 'tools/call') + sent(servers.legacy, 'tools/call')).toBe(
      before,
    );
    // A filter that throws hides the tool: from the list, and from a call (a rejection).
    expect(host.tools({ run: 'broken-filter' })).toEqual([]);
    const broken = host.callTool(
      'mcp__everything__echo',
      { message: 'x' },
      {
        context: { run: 'broken-filter' },
      },
    );
    expect(broken).toBeInstanceOf(Promise);
    expect((await failure(broken)).code).toBe('TOOL_DENIED');
    expect(approvals.length).toBe(asked);

    const allowed = await host.callTool(
      'mcp__everything__echo',
      { message: 'ro' },
      {
        context: { run: 'read-only' },
      },
    );
    expect(textOf(allowed)).toBe('Echo: ro');
  });

  it('applies per-agent permissions when listing and when calling', async () => {
    const researcher = host.tools({ agent: 'researcher' });
    expect(new Set(researcher.map((t) => t.server))).toEqual(new Set(['everything', 'memory']));
    expect(
      researcher
        .filter((t) => t.server === 'memory')
        .map((t) => t.originalName)
        .sort(),
    ).toEqual(['read_graph', 'search_nodes']);
    expect(researcher.filter((t) => t.server === 'everything')).toHaveLength(
      host.serverStatus('everything').toolCount,
    );
    const intern = host.tools({ agent: 'intern' }).map((t) => t.name);
    expect(intern.some((name) => name.startsWith('mcp__filesystem__'))).toBe(false);
    expect(intern).toContain('mcp__legacy__echo');
    // An agent with no entry (and no `*` entry) sees everything.
    expect(host.tools({ agent: 'someone-else' })).toHaveLength(host.tools().length);

    const before = sent(servers.filesystem, 'tools/call') + sent(servers.memory, 'tools/call');
    const denied = [
      ['mcp__filesystem__list_allowed_directories', 'intern'],
      ['mcp__memory__create_entities', 'researcher'],
    ] as const;
    for (const [name, agent] of denied) {
      const error = await failure(host.callTool(name, { entities: [] }, { context: { agent } }));
      expect(error.code).toBe('TOOL_DENIED');
      expect(error.message).toContain(`not permitted for agent '${agent}'`);
    }
    expect(sent(servers.filesystem, 'tools/call') + sent(servers.memory, 'tools/call')).toBe(
      before,
    );
    const graph = await host.callTool(
      'mcp__memory__search_nodes',
      { query: 'host' },
      {
        context: { agent: 'researcher' },
      },
    );
    expect(graph.isError).not.toBe(true);
  });

  it('asks the approval hook before every call, with the annotations; a refusal sends nothing', async () => {
    approvals.length = 0;
    const path = join(files, 'refused.txt');
    const before = sent(servers.filesystem, 'tools/call');
    const error = await failure(
      host.callTool(
        'mcp__filesystem__write_file',
        { path, content: 'no' },
        {
          context: { agent: 'someone', run: 'please' },
        },
      ),
    );
    expect(error.code).toBe('TOOL_DENIED');
    expect(error.message).toContain('approval hook');
    expect(sent(servers.filesystem, 'tools/call')).toBe(before);
    await expect(readFile(path, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(approvals).toEqual([
      {
        tool: expect.objectContaining({
          name: 'mcp__filesystem__write_file',
          server: 'filesystem',
          originalName: 'write_file',
          annotations: expect.objectContaining({ destructiveHint: true, readOnlyHint: false }),
        }) as unknown,
        args: { path, content: 'no' },
        context: { agent: 'someone', run: 'please' },
      },
    ]);
    // A hook that fails refuses the call the same way.
    const failed = await failure(
      host.callTool(
        'mcp__filesystem__write_file',
        { path, content: 'no' },
        {
          context: { run: 'approver-down' },
        },
      ),
    );
    expect(failed.code).toBe('TOOL_DENIED');
    expect(failed.message).toContain('approval hook failed');
    expect(sent(servers.filesystem, 'tools/call')).toBe(before);
    approvals.length = 1;

    // A read-only tool of another server goes through, and the hook saw its annotations too.
    await host.callTool('mcp__memory__read_graph', {});
    expect(approvals[1]?.tool.annotations).toMatchObject({ readOnlyHint: true });
    expect(approvals[1]?.tool.server).toBe('memory');
  });

  it("keeps list_changed servers' lists until notified: no relisting on tools()", async () => {
    const lists = (): Record<string, number> =>
      Object.fromEntries(Object.entries(servers).map(([n, s]) => [n, sent(s, 'tools/list')]));
    const before = lists();
    for (let i = 0; i < 20; i++) host.tools();
    // The modern fixture's listings carry `ttlMs: 0` (the v2 SDK's default), stale at once: the
    // host honours the hint over list_changed and relists it in the background, but one relist
    // at a time, never one per tools() call.
    expect(lists().modern! - before.modern!).toBeLessThanOrEqual(1);
    await host.callTool('mcp__everything__echo', { message: 'a round trip' });
    const after = lists();
    // Every legacy server advertises tools.listChanged: their listings are kept.
    for (const name of ['everything', 'filesystem', 'memory', 'legacy'])
      expect(after[name], name).toBe(before[name]);

    // The server says its list changed: the host relists once, on its own, and reports the diff.
    const changed = next(host.onToolsChanged, (e) => e.server === 'legacy', 'legacy tools changed');
    const toggled = await host.callTool('mcp__legacy__toggle-tool', {});
    expect(textOf(toggled)).toBe('extra on');
    expect(await changed).toEqual({
      server: 'legacy',
      added: ['mcp__legacy__extra'],
      removed: [],
      changed: [],
    });
    expect(sent(servers.legacy, 'tools/list')).toBe(before.legacy! + 1);
    expect(textOf(await host.callTool('mcp__legacy__extra', {}))).toBe('extra');
    const removed = next(host.onToolsChanged, (e) => e.server === 'legacy', 'legacy tools changed');
    await host.callTool('mcp__legacy__toggle-tool', {});
    expect((await removed).removed).toEqual(['mcp__legacy__extra']);
  });
});

// ---- tool pinning and quarantine, caching, retries: a server whose definitions change ----------

const TARGET = 'mcp__mutable__target';

/** Each kind of change the mutable fixture makes, and the diff summary the host shows for it. */
const CHANGES = [
  ['description', 'description changed'],
  ['parameter', "inputSchema: property 'cc' added"],
  ['enum', "inputSchema: property 'mode' enum value added"],
  ['annotations', 'annotations: destructiveHint changed, readOnlyHint changed'],
  ['outputSchema', "outputSchema: property 'secret' added"],
] as const;

function mutable(
  name = 'mutable',
  args: readonly string[] = [],
  extra: Partial<HostServerDefinition> = {},
): Spawned {
  return spawned(name, mcpFixtures.mutableSdk, args, extra);
}

describe('tool pinning against a server whose definitions change', () => {
  let pinGuard: LeakGuard;
  let server: Spawned;
  let pinned: McpHost;
  const events: PinEvent[] = [];

  beforeAll(async () => {
    pinGuard = leakGuard();
    server = mutable();
    pinned = await startHost(pinGuard, [server]);
    pinned.onPinEvent((event) => events.push(event));
  });

  afterAll(async () => {
    await pinned?.close();
    await pinGuard?.[Symbol.asyncDispose]();
  });

  it.each(CHANGES)(
    'quarantines a changed %s until approved, with the diff',
    async (kind, summary) => {
      events.length = 0;
      const hidden = next(
        pinned.onToolsChanged,
        (e) => e.removed.includes(TARGET),
        `${TARGET} leaving the list`,
      );
      await pinned.callTool('mcp__mutable__mutate', { kind });
      expect(await hidden).toMatchObject({ server: 'mutable', added: [], changed: [] });
      expect(events).toMatchObject([
        {
          type: 'quarantined',
          identity: 'mutable',
          tool: 'target',
          reason: 'changed',
          diff: { summary },
        },
      ]);
      expect(pinned.tools().map((t) => t.name)).not.toContain(TARGET);
      expect(pinned.tools().map((t) => t.name)).toContain('mcp__mutable__mutate');
      const [held] = pinned.quarantined();
      expect(held).toMatchObject({ server: 'mutable', tool: 'target', reason: 'changed', summary });
      expect(pinned.serverStatus('mutable').quarantinedCount).toBe(1);

      const calls = sent(server, 'tools/call', 'target');
      const error = await failure(pinned.callTool(TARGET, { text: 'x' }));
      expect(error.code).toBe('TOOL_QUARANTINED');
      expect(error.message).toContain(summary);
      expect(error.details).toMatchObject({ reason: 'changed', summary });
      expect(sent(server, 'tools/call', 'target')).toBe(calls);

      const back = next(pinned.onToolsChanged, (e) => e.added.includes(TARGET), `${TARGET} back`);
      await pinned.approveTool('mutable', 'target', { pin: held!.pin });
      await back;
      expect(events.at(-1)).toMatchObject({ type: 'pinned', tool: 'target', reason: 'approved' });
      expect(pinned.quarantined()).toEqual([]);
      const result = await pinned.callTool(TARGET, { text: kind });
      expect(result.structuredContent).toEqual({ echo: kind });
    },
  );

  it('shows the approved definition: the changed annotations reach the approval hook', () => {
    const target = pinned.tools().find((t) => t.name === TARGET)!;
    expect(target.annotations).toEqual({ readOnlyHint: false, destructiveHint: true });
    expect(target.description).toContain('attacker.example');
    expect(Object.keys(target.inputSchema.properties ?? {})).toEqual(['text', 'mode', 'cc']);
  });

  it('allows a new tool under trust on first use, and pins it', async () => {
    events.length = 0;
    const added = next(pinned.onToolsChanged, (e) => e.added.length > 0, 'new tool');
    await pinned.callTool('mcp__mutable__mutate', { kind: 'newTool' });
    expect(await added).toEqual({
      server: 'mutable',
      added: ['mcp__mutable__fresh'],
      removed: [],
      changed: [],
    });
    expect(events).toMatchObject([{ type: 'pinned', tool: 'fresh', reason: 'new' }]);
    expect(textOf(await pinned.callTool('mcp__mutable__fresh', {}))).toBe('fresh');
  });

  it('holds a new tool under strict pins until it is approved', async () => {
    await using strictGuard = leakGuard();
    const strictServer = mutable();
    await using strict = await startHost(strictGuard, [strictServer], { pins: 'strict' });
    const seen: PinEvent[] = [];
    strict.onPinEvent((event) => seen.push(event));
    expect(strict.tools().map((t) => t.name)).toContain(TARGET); // the first listing is pinned

    const quarantined = next(strict.onPinEvent, (e) => e.type === 'quarantined', 'quarantined');
    await strict.callTool('mcp__mutable__mutate', { kind: 'newTool' });
    expect(await quarantined).toMatchObject({ tool: 'fresh', reason: 'new' });
    // The event fires from the pin check; the host holds the tool once the listing is accepted.
    await turnsUntil(() => strict.quarantined().length === 1, 'the held tool');
    expect(strict.tools().map((t) => t.name)).not.toContain('mcp__mutable__fresh');
    expect(strict.quarantined()).toMatchObject([{ tool: 'fresh', reason: 'new' }]);
    const error = await failure(strict.callTool('mcp__mutable__fresh', {}));
    expect(error.code).toBe('TOOL_QUARANTINED');
    expect(error.details).toMatchObject({ reason: 'new' });
    expect(sent(strictServer, 'tools/call', 'fresh')).toBe(0);

    await strict.approveTool('mutable', 'fresh');
    expect(strict.tools().map((t) => t.name)).toContain('mcp__mutable__fresh');
    expect(textOf(await strict.callTool('mcp__mutable__fresh', {}))).toBe('fresh');
    expect(seen.at(-1)).toMatchObject({ type: 'pinned', tool: 'fresh', reason: 'approved' });
  });

  it('keeps pins in a FileStateStore across hosts', async () => {
    await using storeGuard = leakGuard();
    using state = tempDir();
    const path = join(state.path, 'state.json');

    // First host: pins the first listing, then approves a changed description.
    {
      await using store = new FileStateStore({ path });
      const first = mutable();
      await using h = await startHost(storeGuard, [first], { stateStore: store });
      const hidden = next(h.onToolsChanged, (e) => e.removed.includes(TARGET), 'quarantine');
      await h.callTool('mcp__mutable__mutate', { kind: 'description' });
      await hidden;
      await h.approveTool('mutable', 'target');
      expect(h.tools().map((t) => t.name)).toContain(TARGET);
    }

    // A new host on the same state, its server starting with that approved description: trusted
    // at once, nothing pinned again.
    {
      await using store = new FileStateStore({ path });
      const seen: PinEvent[] = [];
      const second = mutable('mutable', ['--mutated=description']);
      const h = new McpHost({
        health: { intervalMs: 0 },
        stateStore: store,
        servers: [second.definition],
      });
      h.onPinEvent((event) => seen.push(event));
      try {
        await h.start();
        expect(h.tools().map((t) => t.name)).toContain(TARGET);
        expect(seen).toEqual([]);
      } finally {
        await h.close();
        for (const p of second.processes) storeGuard.trackPid(p.pid);
      }
    }

    // A third host whose server lists the original description and a new enum value: held at
    // connect, the diff taken from the stored (approved) definition.
    {
      await using store = new FileStateStore({ path });
      const third = mutable('mutable', ['--mutated=enum']);
      await using h = await startHost(storeGuard, [third], { stateStore: store });
      expect(h.serverStatus('mutable').state).toBe('ready');
      expect(h.tools().map((t) => t.name)).not.toContain(TARGET);
      expect(h.quarantined()).toMatchObject([
        {
          tool: 'target',
          reason: 'changed',
          summary: "description changed; inputSchema: property 'mode' enum value added",
        },
      ]);
    }
  });
});

describe('tool list caching without list_changed', () => {
  // With a store given (shared, watched for pins changed elsewhere) the host's own review must
  // not wake it into one more listing either.
  it.each([
    ['pins in a store of its own', () => ({})],
    ['pins in a shared store', () => ({ stateStore: new MemoryStateStore() })],
  ])(
    'keeps the listing for the TTL (5 minutes by default), then relists in the background (%s)',
    async (_label, options) => {
      await using cacheGuard = leakGuard();
      const quiet = mutable('quiet', ['--list-changed=false']);
      await using h = await startHost(cacheGuard, [quiet], options());
      expect(sent(quiet, 'tools/list')).toBe(1);
      for (let i = 0; i < 20; i++) h.tools();
      // The definition changes without a notification: the host cannot know yet.
      await h.callTool('mcp__quiet__mutate', { kind: 'enum' });
      expect(h.tools().map((t) => t.name)).toContain('mcp__quiet__target');
      expect(sent(quiet, 'tools/list')).toBe(1);

      const now = Date.now();
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(now + 4 * 60_000);
        h.tools();
        expect(sent(quiet, 'tools/list')).toBe(1);
        vi.setSystemTime(now + 5 * 60_000 + 1);
        const hidden = next(
          h.onToolsChanged,
          (e) => e.removed.includes('mcp__quiet__target'),
          'the background relist',
        );
        // Stale while revalidating: the old list is answered at once, one relist goes out.
        expect(h.tools().map((t) => t.name)).toContain('mcp__quiet__target');
        for (let i = 0; i < 5; i++) h.tools();
        expect(sent(quiet, 'tools/list')).toBe(2);
        vi.useRealTimers();
        await hidden;
      } finally {
        vi.useRealTimers();
      }
      expect(h.quarantined()).toMatchObject([{ tool: 'target', reason: 'changed' }]);
      expect(sent(quiet, 'tools/list')).toBe(2);
    },
  );
});

describe('retry policy of tools/call', () => {
  /** `received` records of tools/call `crash`, per process. */
  const crashCalls = (server: Spawned): number[] =>
    server.processes.map((p) => p.records('received').filter((r) => r.tool === 'crash').length);

  it('never re-sends a call whose server crashed under it (untrusted annotations); the server is restarted', async () => {
    await using crashGuard = leakGuard();
    // `crash` is annotated read-only and idempotent, but the server is not trusted.
    const server = mutable();
    await using h = await startHost(crashGuard, [server], { restart: { baseDelayMs: 100 } });
    const calls: string[] = [];
    h.onToolCall((e) => calls.push(`${e.phase}:${e.outcome ?? ''}`));
    const restarting = stateOf(h, 'mutable', 'restarting');
    const error = await failure(h.callTool('mcp__mutable__crash', {}));
    expect(error.code).toBe('PROCESS_EXITED');
    expect(error.serverName).toBe('mutable');
    expect(calls).toEqual(['started:', 'failed:PROCESS_EXITED']);
    await server.processes[0]!.waitForRecord('crashing');
    await within(restarting, EVENT_MS, 'restarting');

    // While it is down, a call fails at once and is not kept for later.
    const down = await failure(h.callTool(TARGET, { text: 'x' }));
    expect(down.code).toBe('SERVER_UNAVAILABLE');

    await within(stateOf(h, 'mutable', 'ready'), EVENT_MS, 'ready again');
    expect(h.serverStatus('mutable').restartCount).toBe(1);
    expect(server.processes).toHaveLength(2);
    // The crashed call reached the first process once; the new process never got it.
    expect(crashCalls(server)).toEqual([1, 0]);
    expect(sent(server, 'tools/call', 'crash')).toBe(1);
    expect(sent(server, 'tools/call', 'target')).toBe(0);
    const result = await h.callTool(TARGET, { text: 'back' });
    expect(result.structuredContent).toEqual({ echo: 'back' });
  });

  it.each([
    ['a trusted server marks the tool read-only and idempotent', { trusted: true }, {}],
    ['the caller passes retry: true', {}, { retry: true }],
  ] as const)('re-sends it once, after the restart, when %s', async (_why, definition, options) => {
    await using crashGuard = leakGuard();
    using scratch = tempDir();
    const once = join(scratch.path, 'crashed-once');
    const server = mutable('mutable', [], definition);
    await using h = await startHost(crashGuard, [server], { restart: { baseDelayMs: 100 } });
    const result = await h.callTool('mcp__mutable__crash', { once }, options);
    expect(textOf(result)).toBe('survived');
    expect(h.serverStatus('mutable')).toMatchObject({ state: 'ready', restartCount: 1 });
    await server.processes[1]!.waitForRecord('received', (r) => r.tool === 'crash');
    expect(crashCalls(server)).toEqual([1, 1]);
  });
});
