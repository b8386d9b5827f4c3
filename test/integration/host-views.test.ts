/**
 * Views (`host.view`): two agents' views with different filters over the same three real servers
 * (the official everything, filesystem and memory servers, over stdio). Each view sees only its
 * tools, a call outside a view is refused before it is sent, calls inside work (in parallel, from
 * both views), and each server saw one connection: every server runs under a launcher that logs,
 * from the server's side, each start and each `initialize` it reads.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  McpHost,
  McpHostError,
  type CallToolResult,
  type HostServerDefinition,
} from '../../src/index.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { tempDir } from '../helpers/scratch.js';

const require = createRequire(import.meta.url);
const entry = (name: string): string =>
  require.resolve(`@modelcontextprotocol/${name}/dist/index.js`);
const launcher = fileURLToPath(
  new URL('../fixtures/servers/count-connections.mjs', import.meta.url),
);

function server(
  log: string,
  name: string,
  script: string,
  args: readonly string[],
  env?: Record<string, string>,
): HostServerDefinition {
  return {
    name,
    transport: {
      type: 'stdio',
      command: process.execPath,
      args: [launcher, log, name, script, ...args],
      ...(env === undefined ? {} : { env }),
    },
  };
}

/** What the servers wrote to the log: per server, its starts and the initializes it read. */
function seenByServers(log: string): Record<string, { start: number; initialize: number }> {
  const seen: Record<string, { start: number; initialize: number }> = {};
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    const [kind, name] = line.split(' ');
    if (name === undefined || (kind !== 'start' && kind !== 'initialize')) continue;
    (seen[name] ??= { start: 0, initialize: 0 })[kind]++;
  }
  return seen;
}

function pidsIn(log: string): number[] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('start '))
    .map((line) => Number(line.split(' ')[2]));
}

const textOf = (result: CallToolResult): string =>
  result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');

async function refusal(promise: Promise<unknown>): Promise<McpHostError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpHostError);
  return error as McpHostError;
}

describe('host views over everything, filesystem and memory', () => {
  it('gives two agents different toolsets over one connection per server', async () => {
    await using guard = leakGuard();
    using dir = tempDir();
    const root = realpathSync(dir.path);
    const files = join(root, 'files');
    mkdirSync(files);
    writeFileSync(join(files, 'notes.txt'), 'shared notes');
    const log = join(root, 'servers.log');
    writeFileSync(log, '');

    await using host = new McpHost({
      health: { intervalMs: 0 },
      servers: [
        server(log, 'everything', entry('server-everything'), ['stdio']),
        server(log, 'filesystem', entry('server-filesystem'), [files]),
        server(log, 'memory', entry('server-memory'), [], {
          MEMORY_FILE_PATH: join(root, 'memory.jsonl'),
        }),
      ],
      views: {
        // A named view, as `views:` in mcp.yaml gives them.
        researcher: {
          servers: ['everything', 'memory'],
          allow: ['everything/echo', 'everything/get-sum', 'memory/read_graph', 'memory/search_*'],
        },
      },
    });
    const started = await host.start();
    for (const pid of pidsIn(log)) guard.trackPid(pid);
    expect(started.ready).toEqual(['everything', 'filesystem', 'memory']);

    const researcher = host.view('researcher');
    const librarian = host.view({
      name: 'librarian',
      servers: ['filesystem', 'memory'],
      block: [
        'filesystem/write_file',
        'filesystem/edit_file',
        'filesystem/move_file',
        'memory/delete_*',
      ],
    });

    // Each view sees only its tools.
    expect(
      researcher
        .tools()
        .map((t) => t.name)
        .sort(),
    ).toEqual([
      'mcp__everything__echo',
      'mcp__everything__get-sum',
      'mcp__memory__read_graph',
      'mcp__memory__search_nodes',
    ]);
    const librarianTools = librarian.tools();
    const expected = host
      .tools()
      .filter(
        (t) =>
          (t.server === 'filesystem' &&
            !['write_file', 'edit_file', 'move_file'].includes(t.originalName)) ||
          (t.server === 'memory' && !t.originalName.startsWith('delete_')),
      );
    expect(librarianTools.map((t) => t.name)).toEqual(expected.map((t) => t.name));
    expect(librarianTools.map((t) => t.name)).toContain('mcp__filesystem__read_text_file');
    expect(librarianTools.map((t) => t.name)).toContain('mcp__memory__create_entities');
    expect(host.tools().some((t) => t.name === 'mcp__filesystem__write_file')).toBe(true);

    // A call outside a view is refused, naming the tool and the view, and nothing is sent.
    const notes = join(files, 'notes.txt');
    const outside = await refusal(
      researcher.callTool('mcp__filesystem__read_text_file', { path: notes }),
    );
    expect(outside).toMatchObject({
      code: 'TOOL_DENIED',
      tool: 'mcp__filesystem__read_text_file',
      details: { view: 'researcher' },
    });
    expect(outside.message).toContain("view 'researcher'");
    const blocked = join(files, 'blocked.txt');
    const write = await refusal(
      librarian.callTool('mcp__filesystem__write_file', { path: blocked, content: 'no' }),
    );
    expect(write).toMatchObject({ code: 'TOOL_DENIED', details: { view: 'librarian' } });
    expect(existsSync(blocked)).toBe(false);
    expect(
      await refusal(librarian.callTool('mcp__everything__echo', { message: 'hi' })),
    ).toMatchObject({ code: 'TOOL_DENIED', tool: 'mcp__everything__echo' });

    // Calls inside work, from both views at once, the memory server shared by both.
    const [echoed, sum, read, created] = await Promise.all([
      researcher.callTool('mcp__everything__echo', { message: 'from the researcher' }),
      researcher.callTool({ name: 'mcp__everything__get-sum', arguments: { a: 2, b: 3 } }),
      librarian.callTool('mcp__filesystem__read_text_file', { path: notes }),
      librarian.callTool('mcp__memory__create_entities', {
        entities: [{ name: 'views', entityType: 'feature', observations: ['one connection'] }],
      }),
    ]);
    expect(textOf(echoed)).toBe('Echo: from the researcher');
    expect(textOf(sum)).toBe('The sum of 2 and 3 is 5.');
    expect(textOf(read)).toBe('shared notes');
    expect(created.isError).not.toBe(true);
    const found = await researcher.callTool('mcp__memory__search_nodes', { query: 'views' });
    expect(textOf(found)).toContain('one connection');

    // The servers saw one connection each: one start and one initialize apiece.
    expect(seenByServers(log)).toEqual({
      everything: { start: 1, initialize: 1 },
      filesystem: { start: 1, initialize: 1 },
      memory: { start: 1, initialize: 1 },
    });
  });
});
