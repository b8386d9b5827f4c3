/**
 * The client against the official memory (knowledge graph) reference server over stdio, its data
 * file in a fresh temporary directory: create entities and relations, add observations, read the
 * graph (as a tool and as a resource, with update notifications), search and open nodes, delete.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '../../src/index.js';
import { connectScript, type RunningClient } from '../helpers/mcp-servers.js';
import { tempDir, type TempDir } from '../helpers/scratch.js';
import { SpecSchema } from '../helpers/spec-schema.js';

const script = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-memory/dist/index.js',
);
const GRAPH_URI = 'memory://knowledge-graph';
let dir: TempDir;
let memoryFile: string;
let server: RunningClient;

beforeAll(async () => {
  dir = tempDir();
  memoryFile = join(dir.path, 'memory.jsonl');
  server = await connectScript('memory', script, [], { env: { MEMORY_FILE_PATH: memoryFile } });
});

afterAll(async () => {
  await server[Symbol.asyncDispose]();
  dir[Symbol.dispose]();
});

interface Graph {
  entities: { name: string; entityType: string; observations: string[] }[];
  relations: { from: string; to: string; relationType: string }[];
}

/** A graph result's structured content, which the server always sends. */
function graphOf(result: CallToolResult): Graph {
  expect(result.isError).not.toBe(true);
  return result.structuredContent as unknown as Graph;
}

/** The data file, one JSON record a line. */
async function fileRecords(): Promise<{ type: string; name?: string; from?: string }[]> {
  const text = await readFile(memoryFile, 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { type: string; name?: string; from?: string });
}

describe('official memory server over stdio', () => {
  it('is detected as legacy and lists its tools, none excluded', async () => {
    expect(server.client.era).toBe('legacy');
    expect(server.client.session?.serverInfo?.name).toBe('memory-server');
    const { tools: items, excluded } = await server.client.listTools();
    expect(items.map((t) => t.name).sort()).toEqual([
      'add_observations',
      'create_entities',
      'create_relations',
      'delete_entities',
      'delete_observations',
      'delete_relations',
      'open_nodes',
      'read_graph',
      'search_nodes',
    ]);
    expect(excluded).toEqual([]);
  });

  it('creates entities and relations, written to the data file in the temp dir', async () => {
    const created = await server.client.callTool('create_entities', {
      entities: [
        { name: 'Ada', entityType: 'person', observations: ['wrote the first program'] },
        { name: 'Analytical Engine', entityType: 'machine', observations: [] },
        { name: 'Babbage', entityType: 'person', observations: ['designed engines'] },
      ],
    });
    expect(created.isError).not.toBe(true);
    expect(created.structuredContent).toMatchObject({ entities: expect.any(Array) });
    const relations = await server.client.callTool('create_relations', {
      relations: [
        { from: 'Ada', to: 'Analytical Engine', relationType: 'programmed' },
        { from: 'Babbage', to: 'Analytical Engine', relationType: 'designed' },
      ],
    });
    expect(relations.isError).not.toBe(true);
    const records = await fileRecords();
    expect(records.filter((r) => r.type === 'entity').map((r) => r.name)).toEqual([
      'Ada',
      'Analytical Engine',
      'Babbage',
    ]);
    expect(records.filter((r) => r.type === 'relation')).toHaveLength(2);
  });

  it('adds observations, and an unknown entity is a tool error result', async () => {
    const added = await server.client.callTool('add_observations', {
      observations: [{ entityName: 'Ada', contents: ['born 1815', 'wrote the first program'] }],
    });
    expect(added.isError).not.toBe(true);
    expect(added.structuredContent).toEqual({
      results: [{ entityName: 'Ada', addedObservations: ['born 1815'] }],
    });
    const unknown = await server.client.callTool('add_observations', {
      observations: [{ entityName: 'Nobody', contents: ['x'] }],
    });
    expect(unknown.isError).toBe(true);
    expect(JSON.stringify(unknown.content)).toContain('Nobody');
  });

  it('reads the whole graph', async () => {
    const graph = graphOf(await server.client.callTool('read_graph', {}));
    expect(graph.entities.map((e) => e.name)).toEqual(['Ada', 'Analytical Engine', 'Babbage']);
    expect(graph.entities[0]!.observations).toEqual(['wrote the first program', 'born 1815']);
    expect(graph.relations).toContainEqual({
      from: 'Ada',
      to: 'Analytical Engine',
      relationType: 'programmed',
    });
  });

  it('searches and opens nodes', async () => {
    const found = graphOf(await server.client.callTool('search_nodes', { query: '1815' }));
    expect(found.entities.map((e) => e.name)).toEqual(['Ada']);
    expect(found.relations.map((r) => r.relationType)).toEqual(['programmed']);
    const people = graphOf(await server.client.callTool('search_nodes', { query: 'PERSON' }));
    expect(people.entities.map((e) => e.name)).toEqual(['Ada', 'Babbage']);
    const opened = graphOf(await server.client.callTool('open_nodes', { names: ['Babbage'] }));
    expect(opened.entities.map((e) => e.name)).toEqual(['Babbage']);
    expect(opened.relations.map((r) => r.relationType)).toEqual(['designed']);
  });

  it('reads the graph as a resource and is told when it changes', async () => {
    const { resources: items } = await server.client.listResources();
    expect(items.map((r) => r.uri)).toContain(GRAPH_URI);
    const read = await server.client.readResource(GRAPH_URI);
    const graph = JSON.parse(read.contents[0]!.text!) as Graph;
    expect(graph.entities).toHaveLength(3);
    const updated = new Promise<string>((resolve) => {
      const subscription = server.client.onResourceUpdated(({ uri }) => {
        subscription.dispose();
        resolve(uri);
      });
    });
    await server.client.subscribeResource(GRAPH_URI);
    await server.client.callTool('create_entities', {
      entities: [{ name: 'Temporary', entityType: 'note', observations: [] }],
    });
    expect(await updated).toBe(GRAPH_URI);
    await server.client.unsubscribeResource(GRAPH_URI);
  });

  it('deletes observations, relations and entities (relations of a deleted entity go too)', async () => {
    const observations = await server.client.callTool('delete_observations', {
      deletions: [{ entityName: 'Ada', observations: ['born 1815'] }],
    });
    expect(observations.isError).not.toBe(true);
    const relation = await server.client.callTool('delete_relations', {
      relations: [{ from: 'Babbage', to: 'Analytical Engine', relationType: 'designed' }],
    });
    expect(relation.isError).not.toBe(true);
    const entities = await server.client.callTool('delete_entities', {
      entityNames: ['Analytical Engine', 'Temporary'],
    });
    expect(entities.isError).not.toBe(true);
    const graph = graphOf(await server.client.callTool('read_graph', {}));
    expect(graph).toEqual({
      entities: [
        { name: 'Ada', entityType: 'person', observations: ['wrote the first program'] },
        { name: 'Babbage', entityType: 'person', observations: ['designed engines'] },
      ],
      relations: [],
    });
    expect((await fileRecords()).map((r) => r.name)).toEqual(['Ada', 'Babbage']);
  });

  it('sent only messages that validate against the schema of their revision', () => {
    const transport = server.transports.at(-1)!;
    const [probe, ...legacy] = transport.sent;
    expect(probe).toMatchObject({ method: 'server/discover' });
    expect(new SpecSchema('2026-07-28').check(probe!)).toEqual([]);
    const schema = new SpecSchema('2025-11-25');
    expect(legacy.flatMap((m) => schema.check(m, transport.inboundMethods))).toEqual([]);
  });
});
