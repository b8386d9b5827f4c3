/**
 * One trace across a fleet's hops (issue 19, Done when): mcp-host's `McpClient` over Streamable
 * HTTP -> the gateway (its SERVER span, with the replica id) -> the gateway's request to its
 * backend (a CLIENT span of the host's client) -> the backend, an official SDK server in process
 * whose tool handler reads `_meta.traceparent` and starts its own span under it with the same
 * provider. Spans go to an in-memory exporter, durations to an in-memory metric reader. Also: an
 * official SDK client's own `_meta.traceparent` is continued by the gateway; and without
 * `telemetry` nothing is added to `_meta` and no entry but `mcp-host/otel` loads
 * `@opentelemetry/api`.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type TracerProvider,
} from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { McpClient, McpHost, type Telemetry } from '../../src/index.js';
import { createGateway } from '../../src/gateway.js';
import { openTelemetry } from '../../src/otel/index.js';
import { createLinkedTransports } from '../../src/testing/index.js';
import { sdkTransport } from '../helpers/gateway-harness.js';
import { staticImportGraph } from '../helpers/import-graph.js';
import { leakGuard } from '../helpers/leak-guard.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A metric reader collected on demand (no timer). */
class TestMetricReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** In-memory spans and metrics, and the telemetry over them. */
function otelWorld(replicaId?: string) {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const reader = new TestMetricReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const telemetry = openTelemetry({
    tracerProvider,
    meterProvider,
    ...(replicaId === undefined ? {} : { replicaId }),
  });
  return {
    tracerProvider,
    telemetry,
    spans: () => exporter.getFinishedSpans(),
    /** The data points of a histogram, by their attributes. */
    async histogram(name: string): Promise<Array<{ attributes: Attributes; count: number }>> {
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .find((one) => one.descriptor.name === name) as HistogramMetricData | undefined;
      return (metric?.dataPoints ?? []).map((point) => ({
        attributes: point.attributes,
        count: point.value.count,
      }));
    },
    async [Symbol.asyncDispose]() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/**
 * The backend: an official (v1) SDK server in process whose tool `traced` records the `_meta`
 * it was called with and, given a tracer provider, starts a span under its `traceparent`.
 */
function sdkBackend(tracerProvider?: TracerProvider) {
  const seen: Array<Record<string, unknown>> = [];
  const connect = () => {
    const [hostEnd, serverEnd] = createLinkedTransports();
    const server = new McpServer({ name: 'traced-backend', version: '1.0.0' });
    server.registerTool('traced', { description: 'Records its _meta.' }, (extra) => {
      const meta = { ...extra._meta };
      seen.push(meta);
      const match = TRACEPARENT.exec(String(meta.traceparent));
      if (tracerProvider !== undefined && match !== null) {
        const parent = trace.setSpanContext(ROOT_CONTEXT, {
          traceId: match[1]!,
          spanId: match[2]!,
          traceFlags: Number.parseInt(match[3]!, 16),
          isRemote: true,
        });
        const tracer = tracerProvider.getTracer('backend');
        tracer.startSpan('backend work', { kind: SpanKind.SERVER }, parent).end();
      }
      return { content: [{ type: 'text' as const, text: 'done' }] };
    });
    server.registerTool('fails', { description: 'Answers an error result.' }, () => ({
      content: [{ type: 'text' as const, text: 'it failed' }],
      isError: true,
    }));
    void server.connect(sdkTransport(serverEnd));
    return hostEnd;
  };
  return {
    seen,
    definition: { name: 'backend', transport: connect, client: { era: 'legacy' as const } },
  };
}

/** A host over the backend and a gateway over it on 127.0.0.1, closed in order. */
async function gatewayOver(
  backend: ReturnType<typeof sdkBackend>,
  telemetry: Telemetry | undefined,
  replicaId?: string,
) {
  const host = new McpHost({
    servers: [backend.definition],
    ...(telemetry === undefined ? {} : { telemetry }),
  });
  await host.start();
  const gateway = createGateway({
    host,
    ...(telemetry === undefined ? {} : { telemetry }),
    ...(replicaId === undefined ? {} : { replicaId }),
  });
  const listener = await gateway.listen();
  const named = (original: string) =>
    host.tools().find((tool) => tool.originalName === original)!.name;
  return {
    url: listener.url,
    headers: { authorization: `Bearer ${listener.bearerToken}` },
    tool: named('traced'),
    failing: named('fails'),
    async [Symbol.asyncDispose]() {
      await gateway.close();
      await host.close();
    },
  };
}

const kindOf = (span: ReadableSpan, kind: SpanKind, method = 'tools/call') =>
  span.kind === kind && span.attributes['mcp.method.name'] === method;

describe('OpenTelemetry across client, gateway and backend', () => {
  it.each(['legacy', 'modern'] as const)(
    'one trace: McpClient (%s) -> gateway SERVER span (replica id) -> backend CLIENT span -> backend span',
    async (era) => {
      await using _guard = leakGuard();
      await using otel = otelWorld();
      const backend = sdkBackend(otel.tracerProvider);
      await using gateway = await gatewayOver(backend, otel.telemetry, 'replica-a');
      await using client = new McpClient({
        transport: { type: 'http', url: gateway.url, headers: gateway.headers },
        serverName: 'gateway',
        era,
        telemetry: otel.telemetry,
      });
      await client.connect();
      const result = await client.callTool(gateway.tool, {});
      expect(result.content).toEqual([{ type: 'text', text: 'done' }]);

      const spans = otel.spans();
      const clientSpan = spans.find(
        (span) =>
          kindOf(span, SpanKind.CLIENT) && span.attributes['mcp_host.server.name'] === 'gateway',
      )!;
      const serverSpan = spans.find((span) => kindOf(span, SpanKind.SERVER))!;
      const backendClient = spans.find(
        (span) =>
          kindOf(span, SpanKind.CLIENT) && span.attributes['mcp_host.server.name'] === 'backend',
      )!;
      const backendSpan = spans.find((span) => span.name === 'backend work')!;
      for (const span of [clientSpan, serverSpan, backendClient, backendSpan])
        expect(span).toBeDefined();

      // One trace, each hop the child of the one before.
      const traceId = clientSpan.spanContext().traceId;
      for (const span of [serverSpan, backendClient, backendSpan])
        expect(span.spanContext().traceId).toBe(traceId);
      expect(clientSpan.parentSpanContext).toBeUndefined();
      expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
      expect(backendClient.parentSpanContext?.spanId).toBe(serverSpan.spanContext().spanId);
      expect(backendSpan.parentSpanContext?.spanId).toBe(backendClient.spanContext().spanId);

      // The conventions' names; the replica id on the gateway's span.
      expect(clientSpan.name).toBe(`tools/call ${gateway.tool}`);
      expect(clientSpan.attributes['gen_ai.tool.name']).toBe(gateway.tool);
      expect(serverSpan.name).toBe(`tools/call ${gateway.tool}`);
      expect(serverSpan.attributes['mcp_host.replica.id']).toBe('replica-a');
      expect(backendClient.name).toBe('tools/call traced');
      expect(backendClient.attributes['gen_ai.operation.name']).toBe('execute_tool');
      if (era === 'modern')
        expect(serverSpan.attributes['mcp.protocol.version']).toBe('2026-07-28');

      // What the backend received: the backend CLIENT span's W3C trace context, unprefixed.
      const { traceparent } = backend.seen.at(-1)!;
      const sampled = (backendClient.spanContext().traceFlags & TraceFlags.SAMPLED).toString(16);
      expect(traceparent).toBe(
        `00-${traceId}-${backendClient.spanContext().spanId}-${sampled.padStart(2, '0')}`,
      );

      // Durations: by method, server and replica.
      const sent = await otel.histogram('mcp.client.operation.duration');
      const calls = sent.filter((point) => point.attributes['mcp.method.name'] === 'tools/call');
      expect(calls.map((point) => point.attributes['mcp_host.server.name']).sort()).toEqual([
        'backend',
        'gateway',
      ]);
      expect(calls.every((point) => point.count === 1)).toBe(true);
      const served = await otel.histogram('mcp.server.operation.duration');
      const servedCall = served.find(
        (point) => point.attributes['mcp.method.name'] === 'tools/call',
      );
      expect(servedCall).toMatchObject({
        attributes: { 'mcp_host.replica.id': 'replica-a' },
        count: 1,
      });
      expect(servedCall!.attributes['error.type']).toBeUndefined();
    },
  );

  it("continues the trace of an official SDK client's _meta.traceparent", async () => {
    await using _guard = leakGuard();
    await using otel = otelWorld('replica-b');
    const backend = sdkBackend(otel.tracerProvider);
    await using gateway = await gatewayOver(backend, otel.telemetry);
    const client = new Client({ name: 'otel-sdk-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gateway.url), {
        requestInit: { headers: gateway.headers },
      }),
    );
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    try {
      await client.callTool({
        name: gateway.tool,
        arguments: {},
        _meta: { traceparent: `00-${traceId}-${parentId}-01`, tracestate: 'rojo=00f067aa0ba902b7' },
      });
    } finally {
      await client.close();
    }
    const spans = otel.spans();
    const serverSpan = spans.find((span) => kindOf(span, SpanKind.SERVER))!;
    expect(serverSpan.spanContext().traceId).toBe(traceId);
    expect(serverSpan.parentSpanContext).toMatchObject({ spanId: parentId, isRemote: true });
    expect(serverSpan.spanContext().traceState?.get('rojo')).toBe('00f067aa0ba902b7');
    // The replica id of openTelemetry() when the gateway has none of its own.
    expect(serverSpan.attributes['mcp_host.replica.id']).toBe('replica-b');
    const backendSpan = spans.find((span) => span.name === 'backend work')!;
    expect(backendSpan.spanContext().traceId).toBe(traceId);
  });

  it('records a failure as its typed error code on the span and in the durations', async () => {
    await using _guard = leakGuard();
    await using otel = otelWorld();
    const backend = sdkBackend();
    await using gateway = await gatewayOver(backend, otel.telemetry);
    await using client = new McpClient({
      transport: { type: 'http', url: gateway.url, headers: gateway.headers },
      serverName: 'gateway',
      era: 'modern',
      telemetry: otel.telemetry,
    });
    await client.connect();
    const result = await client.callTool(gateway.failing, { secret: 'canary-3141' });
    expect(result.isError).toBe(true);
    // Every hop of the call saw the error result: client, gateway, backend request.
    const toolErrors = otel.spans().filter((span) => span.name.endsWith('fails'));
    expect(toolErrors.map((span) => span.kind).sort()).toEqual(
      [SpanKind.CLIENT, SpanKind.CLIENT, SpanKind.SERVER].sort(),
    );
    for (const span of toolErrors) {
      expect(span.attributes['error.type']).toBe('tool_error');
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
    }
    // A modern call of an unknown tool is the gateway's JSON-RPC error (-32602).
    await expect(client.callTool('no_such_tool', { secret: 'canary-3141' })).rejects.toThrow();
    const refused = otel
      .spans()
      .filter((span) => span.name === 'tools/call no_such_tool')
      .map((span) => span.attributes);
    expect(refused).toHaveLength(2);
    for (const attributes of refused) {
      expect(attributes['error.type']).toBe('-32602');
      expect(attributes['rpc.response.status_code']).toBe('-32602');
    }
    // No argument reaches a span.
    const recorded = JSON.stringify(otel.spans().map((span) => span.attributes));
    expect(recorded).not.toContain('canary-3141');
    const sent = await otel.histogram('mcp.client.operation.duration');
    const failures = sent
      .filter((point) => point.attributes['mcp.method.name'] === 'tools/call')
      .map((point) => [point.attributes['mcp_host.server.name'], point.attributes['error.type']]);
    expect(failures).toEqual(
      expect.arrayContaining([
        ['gateway', 'tool_error'],
        ['backend', 'tool_error'],
        ['gateway', '-32602'],
      ]),
    );
  });
});

describe('without telemetry', () => {
  it('adds no traceparent to any request', async () => {
    await using _guard = leakGuard();
    const backend = sdkBackend();
    await using gateway = await gatewayOver(backend, undefined);
    await using client = new McpClient({
      transport: { type: 'http', url: gateway.url, headers: gateway.headers },
      era: 'modern',
    });
    await client.connect();
    await client.callTool(gateway.tool, {});
    expect(backend.seen).toHaveLength(1);
    expect(backend.seen[0]).not.toHaveProperty('traceparent');
    expect(backend.seen[0]).not.toHaveProperty('tracestate');
  });

  it('no entry but mcp-host/otel imports @opentelemetry/api, and src/ names it nowhere else', () => {
    // Every entry of the package, as its source file (dist/x.js -> src/x.ts).
    const exportsField = (
      JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
        exports: Record<string, string | { default: string }>;
      }
    ).exports;
    const entries = Object.values(exportsField)
      .map((target) => (typeof target === 'string' ? target : target.default))
      .filter((target) => target.startsWith('./dist/') && target.endsWith('.js'))
      .map((target) => target.slice('./dist/'.length).replace(/\.js$/, '.ts'));
    expect(entries).toContain('otel/index.ts');
    for (const entry of entries) {
      const { external } = staticImportGraph(join(repoRoot, 'src', entry));
      const otel = [...external].filter((name) => name.startsWith('@opentelemetry/'));
      expect({ entry, otel }).toEqual({
        entry,
        otel: entry === 'otel/index.ts' ? ['@opentelemetry/api'] : [],
      });
    }
    // Dynamic imports too: outside src/otel/, no source file imports the package (the CLI's
    // help and errors may name it).
    const named = execFileSync(
      'grep',
      [
        '-rlE',
        '--include=*.ts',
        '--exclude=*.test.ts',
        `(from|import\\()\\s*['"]@opentelemetry/`,
        'src',
      ],
      { cwd: repoRoot, encoding: 'utf8' },
    )
      .split('\n')
      .filter((file) => file !== '' && !file.startsWith('src/otel'));
    expect(named).toEqual([]);
  });
});
