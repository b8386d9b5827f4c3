/**
 * `mcp-host gateway serve` (the built CLI) as an MCP server over stdio, with the official v1 SDK
 * client (`Client` + `StdioClientTransport`) in front and real servers behind: the reference
 * everything and memory servers, and the SDK fixtures (legacy-sdk-server.mjs for progress and
 * cancellation, mutable-sdk-server.mjs for list_changed). The fixtures' records arrive on the
 * gateway's stderr (it logs its servers' stderr there), so the test waits on them, never sleeps.
 */
import { createRequire } from 'node:module';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Stream } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { codeBlockAfter, repoRoot } from '../helpers/doc-examples.js';
import { text } from '../helpers/gateway-harness.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';
import { cliEnv, cliPath, ensureBuiltCli, runCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const memory = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');

beforeAll(() => ensureBuiltCli());

/** A config file of `servers` (name -> YAML lines under it) in `dir`. */
function config(dir: string, servers: Record<string, string[]>): string {
  const file = join(dir, 'mcp.yaml');
  const lines = ['servers:'];
  for (const [name, body] of Object.entries(servers))
    lines.push(`  ${name}:`, ...body.map((line) => `    ${line}`));
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const node = (script: string, ...args: string[]) => [
  `command: ${JSON.stringify(process.execPath)}`,
  `args: ${JSON.stringify([script, ...args])}`,
];

/** The SDK client connected to `mcp-host gateway serve` over `file`, with the gateway's stderr. */
function gateway(file: string, cwd: string) {
  return connectTo([cliPath, '--config', file, 'gateway', 'serve'], cwd);
}

/** The SDK client connected to `node <args>` over stdio, with that process's stderr. */
async function connectTo(args: string[], cwd: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    cwd,
    env: cliEnv() as Record<string, string>,
    stderr: 'pipe',
  });
  const stderr: string[] = [];
  const waiters = new Set<() => void>();
  let partial = '';
  (transport.stderr as Stream).on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    stderr.push(...lines);
    for (const wake of waiters) wake();
  });
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr,
    /** Resolves with the `count`-th stderr line that contains `text`. */
    line(text: string, count = 1): Promise<string> {
      return new Promise((resolve) => {
        const check = () => {
          const found = stderr.filter((l) => l.includes(text))[count - 1];
          if (found === undefined) return;
          waiters.delete(check);
          resolve(found);
        };
        waiters.add(check);
        check();
      });
    },
    async [Symbol.asyncDispose]() {
      await client.close();
    },
  };
}

describe('mcp-host gateway serve (stdio) with the official SDK client', () => {
  it('serves two reference servers as one: tools, calls, a resource, a prompt', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = config(dir.path, {
      everything: node(everything, 'stdio'),
      memory: [
        ...node(memory),
        `env: { MEMORY_FILE_PATH: ${JSON.stringify(join(dir.path, 'memory.json'))} }`,
      ],
    });
    await using g = await gateway(file, dir.path);
    const { client } = g;
    expect(client.getServerVersion()).toMatchObject({ name: 'mcp-host' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true } });

    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('mcp__everything__echo');
    expect(names).toContain('mcp__memory__create_entities');
    expect(names.every((name) => /^mcp__(everything|memory)__/.test(name))).toBe(true);

    const echoed = await client.callTool({
      name: 'mcp__everything__echo',
      arguments: { message: 'through the gateway' },
    });
    expect(text(echoed)).toContain('through the gateway');
    const created = await client.callTool({
      name: 'mcp__memory__create_entities',
      arguments: { entities: [{ name: 'gateway', entityType: 'thing', observations: ['works'] }] },
    });
    expect(created.isError).not.toBe(true);
    const graph = await client.callTool({ name: 'mcp__memory__read_graph', arguments: {} });
    expect(text(graph)).toContain('gateway');

    // The backend refuses: an error result the model can read, naming the server.
    const failed = await client.callTool({
      name: 'mcp__memory__add_observations',
      arguments: { observations: [{ entityName: 'nobody', contents: ['x'] }] },
    });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toContain('nobody');
    // A tool nobody serves: the spec's error.
    await expect(client.callTool({ name: 'mcp__memory__nope', arguments: {} })).rejects.toThrow(
      /Unknown tool/,
    );

    const { resources } = await client.listResources();
    const doc = resources.find((r) => r.uri.endsWith('/architecture.md'));
    expect(doc).toBeDefined();
    const read = await client.readResource({ uri: doc!.uri });
    expect(read.contents[0]).toMatchObject({ uri: doc!.uri });

    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('mcp__everything__simple-prompt');
    const prompt = await client.getPrompt({
      name: 'mcp__everything__args-prompt',
      arguments: { city: 'Oslo' },
    });
    expect(JSON.stringify(prompt.messages)).toContain('Oslo');
  });

  it('passes list_changed, progress and cancellation through to and from the backends', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = config(dir.path, {
      legacy: node(mcpFixtures.legacySdk),
      mutable: node(mcpFixtures.mutableSdk),
    });
    await using g = await gateway(file, dir.path);
    const { client } = g;
    const changes: number[] = [];
    let changed!: () => void;
    const announced = new Promise<void>((resolve) => (changed = resolve));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes.push(Date.now());
      changed();
    });
    const before = (await client.listTools()).tools.map((tool) => tool.name);
    expect(before).toContain('mcp__mutable__target');
    expect(before).not.toContain('mcp__mutable__fresh');

    // Progress from the backend reaches the client's onprogress.
    const progress: number[] = [];
    const stepped = await client.callTool(
      { name: 'mcp__legacy__progress', arguments: { steps: 3 } },
      undefined,
      { onprogress: (p) => void progress.push(p.progress) },
    );
    expect(stepped.isError).not.toBe(true);
    expect(progress).toHaveLength(3);

    // Cancelling reaches the backend: it records the cancellation.
    const controller = new AbortController();
    const sleeping = client.callTool(
      { name: 'mcp__legacy__sleep', arguments: { ms: 60_000 } },
      undefined,
      { signal: controller.signal },
    );
    await g.line('"event":"sleeping"');
    controller.abort(new Error('no longer needed'));
    await expect(sleeping).rejects.toThrow();
    await g.line('"event":"cancelled"');
    // Nothing the client is offered changed so far: no list_changed.
    expect(changes).toEqual([]);

    // A backend whose tool list changes: the client is told, and lists the new tool.
    await client.callTool({ name: 'mcp__mutable__mutate', arguments: { kind: 'newTool' } });
    await announced;
    const after = (await client.listTools()).tools.map((tool) => tool.name);
    expect(after).toContain('mcp__mutable__fresh');
    const fresh = await client.callTool({ name: 'mcp__mutable__fresh', arguments: {} });
    expect(text(fresh)).toContain('fresh');
    expect(changes).toHaveLength(1);
  });

  it('a backend crashing mid-call: an error result naming it, the client stays, the restarted server serves again', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = config(dir.path, {
      legacy: node(mcpFixtures.legacySdk),
      mutable: node(mcpFixtures.mutableSdk),
    });
    await using g = await gateway(file, dir.path);
    const { client } = g;
    await g.line("server 'mutable': stderr: ready");

    const crashed = await client.callTool({ name: 'mcp__mutable__crash', arguments: {} });
    expect(crashed.isError).toBe(true);
    expect(text(crashed)).toContain("server 'mutable'");
    expect(text(crashed)).toMatch(/PROCESS_EXITED|CONNECTION_CLOSED/);
    // The other server, and the connection, carry on.
    const echoed = await client.callTool({
      name: 'mcp__legacy__echo',
      arguments: { message: 'still here' },
    });
    expect(text(echoed)).toBe('still here');

    // Supervised: the server is started again, and its tools answer again.
    await g.line("server 'mutable': stderr: ready", 2);
    const target = await client.callTool({
      name: 'mcp__mutable__target',
      arguments: { text: 'back' },
    });
    expect(target.isError).not.toBe(true);
    expect(text(target)).toContain('back');
  });

  it('serves one view of the config with --view; an unknown view fails before any server starts', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = config(dir.path, {
      legacy: node(mcpFixtures.legacySdk),
      mutable: node(mcpFixtures.mutableSdk),
    });
    writeFileSync(file, `${readFileSync(file, 'utf8')}views:\n  small:\n    servers: [mutable]\n`);
    {
      await using g = await connectTo(
        [cliPath, '--config', file, 'gateway', 'serve', '--view', 'small'],
        dir.path,
      );
      const names = (await g.client.listTools()).tools.map((tool) => tool.name);
      expect(names.length).toBeGreaterThan(0);
      expect(names.every((name) => name.startsWith('mcp__mutable__'))).toBe(true);
      await expect(
        g.client.callTool({ name: 'mcp__legacy__echo', arguments: { message: 'x' } }),
      ).rejects.toThrow(/Unknown tool/);
      // Only the view's server was started.
      expect(g.stderr.some((line) => line.includes("server 'legacy'"))).toBe(false);
    }
    const refused = await runCli(['--config', file, 'gateway', 'serve', '--view', 'nope'], {
      cwd: dir.path,
    });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain("no view is named 'nope'");
  });

  it('runs the library example of docs/gateway.md', async () => {
    await using _guard = leakGuard();
    const markdown = readFileSync(join(repoRoot, 'docs/gateway.md'), 'utf8');
    const code = codeBlockAfter(markdown, '## From code: `mcp-host/gateway`');
    const file = join(repoRoot, `test/.docs-example-gateway-${process.pid}.mts`);
    writeFileSync(file, code);
    try {
      await using g = await connectTo(['--import', 'tsx', file], repoRoot);
      const names = (await g.client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('mcp__everything__echo');
      const echoed = await g.client.callTool({
        name: 'mcp__everything__echo',
        arguments: { message: 'from the docs' },
      });
      expect(text(echoed)).toContain('from the docs');
    } finally {
      rmSync(file, { force: true });
    }
  });
});
