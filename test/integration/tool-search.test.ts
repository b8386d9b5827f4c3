/**
 * Tool search over a large catalogue (issue 16): 1,000 tools across 20 servers (in-memory fake
 * servers behind a real McpHost, with a seeded, realistic catalogue). The first turn offers the
 * model under 5 % of the catalogue's schema bytes, and a scripted model (plain code standing in
 * for one: it searches with the task's words, reads the result, picks the tool the task names,
 * fills the arguments from the schema it was then given) reaches the right tool, and the call
 * goes through the host to the server that owns it.
 */
import { describe, expect, it } from 'vitest';
import {
  createAgentToolset,
  createToolSearch,
  type AgentTool,
  type ToolSearch,
  type ToolSource,
} from '../../src/agents.js';
import {
  McpHost,
  type HostServerDefinition,
  type HostTool,
  type JsonObject,
} from '../../src/index.js';
import { FakeMcpServer, createLinkedTransports } from '../../src/testing/index.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { toolCatalogue, type CatalogueTool } from '../helpers/tool-catalogue.js';

const SEED = 16;

/** A host of one fake server per service of the catalogue; `calls` records what each one ran. */
async function catalogueHost(catalogue: CatalogueTool[]) {
  const calls: { server: string; tool: string; args: JsonObject }[] = [];
  const byServer = new Map<string, CatalogueTool[]>();
  for (const tool of catalogue)
    byServer.set(tool.server, [...(byServer.get(tool.server) ?? []), tool]);
  const servers: HostServerDefinition[] = [...byServer].map(([server, tools]) => ({
    name: server,
    transport: () => {
      const [client, end] = createLinkedTransports();
      void new FakeMcpServer(end, {
        era: 'legacy',
        tools: tools.map(({ name, description, inputSchema }) => ({
          name,
          description,
          inputSchema: inputSchema as { type: 'object' },
          handler: (args: JsonObject) => {
            calls.push({ server, tool: name, args });
            return { content: [{ type: 'text', text: `${server}/${name} done` }] };
          },
        })),
      }).start();
      return client;
    },
  }));
  const host = new McpHost({ servers, health: { intervalMs: 0 } });
  await host.start();
  return { host, calls };
}

/** What a provider is sent for a list of tools (the same shape for both sides of a comparison). */
const wireBytes = (tools: readonly AgentTool[]) =>
  Buffer.byteLength(
    JSON.stringify(
      tools.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema })),
    ),
  );

/** A value of a JSON Schema's type, as a model would write one. */
function sample(schema: JsonObject): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return schema.format === 'email' ? 'ana@example.com' : 'x42';
  }
}

interface Turn {
  offered: string[];
  call: { name: string; args: string };
  result: string;
  isError: boolean;
}

/**
 * The scripted model: each turn it is given the tools `search.tools()` offers and the last
 * result; it searches with the task's words, picks the tool the task names from the result's
 * lines, and calls it with arguments built from the schema it was offered (JSON text, as
 * OpenAI-style providers send them). Stops after the tool's result or a few turns.
 */
async function runScriptedModel(search: ToolSearch, task: { words: string; tool: string }) {
  const turns: Turn[] = [];
  let found = false;
  for (let step = 0; step < 4; step++) {
    const offered = search.tools();
    const target = offered.find((t) => t.name === task.tool);
    let call: Turn['call'];
    if (!found) {
      call = { name: 'search_tools', args: JSON.stringify({ query: task.words }) };
    } else if (target !== undefined) {
      const schema = target.inputSchema as {
        properties: Record<string, JsonObject>;
        required: string[];
      };
      const args = Object.fromEntries(
        schema.required.map((p) => [p, sample(schema.properties[p]!)]),
      );
      call = { name: target.name, args: JSON.stringify(args) };
    } else {
      throw new Error(`the search did not load ${task.tool}`);
    }
    const result = await search.call(call.name, call.args);
    turns.push({
      offered: offered.map((t) => t.name),
      call,
      result: result.text,
      isError: result.isError,
    });
    if (call.name === 'search_tools') {
      const names = [...result.text.matchAll(/^- ([\w-]+)\(/gm)].map((m) => m[1]);
      if (!names.includes(task.tool)) return { turns, reached: false };
      found = true;
    } else {
      return { turns, reached: !result.isError };
    }
  }
  return { turns, reached: false };
}

describe('tool search over 1,000 tools on 20 servers', () => {
  it('sends under 5 % of the schema bytes first, and a scripted model reaches the right tool', async () => {
    await using _guard = leakGuard();
    const catalogue = toolCatalogue(SEED);
    expect(catalogue).toHaveLength(1_000);
    expect(new Set(catalogue.map((t) => t.server)).size).toBe(20);
    const { host, calls } = await catalogueHost(catalogue);
    await using _host = host;

    const toolset = createAgentToolset(host, { provider: 'openai' });
    expect(toolset.tools).toHaveLength(1_000);
    const search = createToolSearch(toolset, { pinned: ['mcp__slack__*message*'] });

    const first = search.tools();
    const full = wireBytes(toolset.tools);
    const sent = wireBytes(first);
    expect(full).toBeGreaterThan(500_000);
    expect(sent / full).toBeLessThan(0.05);

    expect(search.pinned.length).toBeGreaterThanOrEqual(2);
    expect(first.map((t) => t.name)).toEqual(['search_tools', ...search.pinned]);

    const random = seededRandom(SEED + 1);
    const tasks = Array.from(
      { length: 12 },
      () => catalogue[Math.floor(random() * catalogue.length)]!,
    );
    for (const task of tasks) {
      const want = toolset.tools.find(
        (t) => t.tool.server === task.server && t.tool.originalName === task.name,
      )!;
      const before = calls.length;
      const run = await runScriptedModel(search, { words: task.task, tool: want.name });
      expect(
        run.reached,
        `${task.task} → ${want.name}\n${JSON.stringify(run.turns, null, 1)}`,
      ).toBe(true);
      // Searched, then called: the call was offered with its schema in the turn it was made.
      expect(run.turns.map((t) => t.call.name)).toEqual(['search_tools', want.name]);
      expect(run.turns[1]!.offered).toContain(want.name);
      expect(run.turns[0]!.offered).not.toContain(want.name);
      // ... and went through the host to the server that has the tool.
      expect(calls.slice(before)).toEqual([
        { server: task.server, tool: task.name, args: JSON.parse(run.turns[1]!.call.args) },
      ]);
      // Every turn stays far below the catalogue, even as tools are loaded.
      expect(wireBytes(search.tools()) / full).toBeLessThan(0.1);
    }
    expect(host.metrics().servers[tasks[0]!.server]?.calls).toBeGreaterThan(0);
  });

  it('ranks the tool a task describes first for most tasks, and in the first page for all', () => {
    const catalogue = toolCatalogue(SEED);
    const tools: HostTool[] = catalogue.map((tool) => ({
      name: `mcp__${tool.server}__${tool.name}`,
      description: tool.description,
      inputSchema: tool.inputSchema,
      server: tool.server,
      originalName: tool.name,
    }));
    const source: ToolSource = {
      tools: () => tools,
      callTool: () => Promise.reject(new Error('not called')),
    };
    const search = createToolSearch(createAgentToolset(source, { provider: 'anthropic' }));
    const ranks = catalogue.map((tool) =>
      search.search(tool.task).findIndex((m) => m.name === `mcp__${tool.server}__${tool.name}`),
    );
    expect(ranks.filter((rank) => rank === -1)).toEqual([]);
    expect(ranks.filter((rank) => rank === 0).length).toBeGreaterThan(0.9 * catalogue.length);
  });
});
