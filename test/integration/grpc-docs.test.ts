/**
 * The TypeScript client example of docs/grpc.md, run as it is (through the built package's
 * `mcp-host/grpc`) against an API server over a host with the legacy SDK fixture, with only the
 * example variables the document lists.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApiServer } from '../../src/grpc.js';
import { McpHost } from '../../src/index.js';
import {
  codeBlockAfter,
  exampleVariables,
  repoRoot,
  startExample,
  variablesRead,
} from '../helpers/doc-examples.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { fixtureTransport, mcpFixtures } from '../helpers/mcp-fixtures.js';

const docs = readFileSync(join(repoRoot, 'docs/grpc.md'), 'utf8');

describe('docs/grpc.md: the TypeScript client', () => {
  it('reads only the example variables the document lists', () => {
    const documented = exampleVariables(docs);
    expect([...documented].sort()).toEqual([
      'MCP_HOST_API_ADDRESS',
      'MCP_HOST_API_TOKEN',
      'MCP_HOST_API_TOOL',
    ]);
    const blocks = [...docs.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
    for (const block of blocks)
      for (const name of variablesRead(block)) expect(documented, name).toContain(name);
  });

  it('lists the servers and calls a tool through a running API', async () => {
    await using guard = leakGuard();
    const legacy = fixtureTransport('legacy', mcpFixtures.legacySdk);
    await using host = new McpHost({ servers: [{ name: 'legacy', transport: legacy.transport }] });
    await host.start();
    for (const p of legacy.processes) guard.trackPid(p.pid);
    const token = randomBytes(24).toString('base64url');
    await using api = createApiServer({ host, token });
    const { address } = await api.listen({ port: 0 });
    await using example = startExample(codeBlockAfter(docs, '## A client in TypeScript'), {
      MCP_HOST_API_ADDRESS: address,
      MCP_HOST_API_TOKEN: token,
      MCP_HOST_API_TOOL: 'mcp__legacy__echo',
    });
    const done = await example.exit;
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(example.lines[0]).toBe('servers: 1');
    expect(example.lines.at(-1)).toMatch(/^result: .*"text":"hello"/);
  }, 60_000);
});
