/**
 * `mcp-host gateway serve --otel`: the built CLI reports to the OpenTelemetry SDK its process
 * registered (here a preloaded file exporter, as `node --import` sets up an SDK): a client's call
 * continues the client's trace through a SERVER span with the replica id to the backend request.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { modernPost } from '../helpers/gateway-harness.js';
import { startGatewayReplica } from '../helpers/gateway-replica.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';
import { ensureBuiltCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

const preload = fileURLToPath(new URL('../fixtures/otel/file-span-exporter.mjs', import.meta.url));

interface SpanLine {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
}

describe('gateway serve --otel', () => {
  it("continues a client's traceparent: SERVER span with the replica id -> backend request", async () => {
    ensureBuiltCli();
    await using _guard = leakGuard();
    using dir = tempDir();
    const spans = join(dir.path, 'spans.jsonl');
    writeFileSync(spans, '');
    const config = join(dir.path, 'mcp.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { legacy: { command: process.execPath, args: [mcpFixtures.legacySdk] } },
      }),
    );
    await using replica = await startGatewayReplica(
      'gw-traced',
      config,
      { NODE_OPTIONS: `--import ${preload}`, OTEL_TEST_SPANS_FILE: spans },
      ['--no-auth', '--otel'],
    );
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const post = async (method: string, params: Record<string, unknown>) => {
      const answer = await modernPost(replica.url, method, params, {
        meta: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      });
      expect(answer.status, await answer.clone().text()).toBe(200);
      return (await answer.json()) as { result: Record<string, unknown> };
    };
    const listed = await post('tools/list', {});
    const echo = (listed.result.tools as Array<{ name: string }>).find((tool) =>
      tool.name.endsWith('echo'),
    )!.name;
    const called = await post('tools/call', { name: echo, arguments: { message: 'traced' } });
    expect(JSON.stringify(called)).toContain('traced');
    const lines = readFileSync(spans, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as SpanLine);
    const server = lines.find(
      (span) => span.name === `tools/call ${echo}` && span.parentSpanId === '00f067aa0ba902b7',
    );
    expect(server, JSON.stringify(lines)).toBeDefined();
    expect(server!.traceId).toBe(traceId);
    expect(server!.attributes['mcp_host.replica.id']).toBe('gw-traced');
    const backend = lines.find((span) => span.parentSpanId === server!.spanId);
    expect(backend, JSON.stringify(lines)).toMatchObject({
      traceId,
      attributes: { 'mcp_host.server.name': 'legacy' },
    });
  });
});
