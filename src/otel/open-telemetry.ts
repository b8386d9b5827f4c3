/**
 * mcp-host's `Telemetry` on OpenTelemetry, named after OpenTelemetry's semantic conventions for
 * MCP (`mcp.method.name`, `gen_ai.tool.name`, `error.type`, `mcp.client.operation.duration`, ...),
 * with two attributes of mcp-host's own: `mcp_host.server.name` (the server's configured name)
 * and `mcp_host.replica.id` (the gateway replica). See docs/observability.md.
 */
import {
  context,
  metrics,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Histogram,
  type Link,
  type MeterProvider,
  type Span,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { DEFAULT_CLIENT_OPTIONS } from '../client/client-options.js';
import { JsonRpcError } from '../errors/json-rpc-error.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import type {
  Telemetry,
  TelemetryContext,
  TelemetryOutcome,
  TelemetryRequest,
  TelemetrySpan,
} from '../internal/telemetry.js';
import { McpMethod } from '../protocol/methods.js';
import { extractTraceMeta, injectTraceMeta } from './trace-meta.js';

/** Options of `openTelemetry`. */
export interface OpenTelemetryOptions {
  /** Where spans go (default: the global tracer provider, as registered by the OpenTelemetry SDK). */
  tracerProvider?: TracerProvider;
  /**
   * Where the request durations go (default: the global meter provider, looked up at the first
   * request, so the SDK may be started after this is made).
   */
  meterProvider?: MeterProvider;
  /**
   * The id of this process among the replicas of one service: `mcp_host.replica.id` on every span
   * and measurement (a gateway's own `replicaId` goes over it on its SERVER spans). Set the
   * resource's `service.instance.id` to the same value where the SDK is set up.
   */
  replicaId?: string;
}

/** The instrumentation scope of mcp-host's spans and metrics. */
export const OTEL_SCOPE_NAME = 'mcp-host';

/** The attribute names used, by the conventions where they have one. */
export const OTEL_ATTRIBUTES = {
  method: 'mcp.method.name',
  protocolVersion: 'mcp.protocol.version',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operation: 'gen_ai.operation.name',
  errorType: 'error.type',
  rpcStatusCode: 'rpc.response.status_code',
  serverName: 'mcp_host.server.name',
  replicaId: 'mcp_host.replica.id',
} as const;

/** The duration histograms (seconds), as the conventions name them. */
export const OTEL_METRICS = {
  client: 'mcp.client.operation.duration',
  server: 'mcp.server.operation.duration',
} as const;

/** The conventions' advised buckets for the operation durations, in seconds. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** Status descriptions are short: a message is a hint, never a payload. */
const MAX_STATUS_CHARS = 256;

/**
 * A `Telemetry` on OpenTelemetry, to give as the `telemetry` option of `McpClient`, `McpHost` and
 * the gateway (`createGateway`). Each request sent is a CLIENT span named `{method} {tool or
 * prompt}`, its trace context sent in the request's `_meta` (`traceparent`, `tracestate`); each
 * request a gateway serves is a SERVER span under the trace context its `_meta` carries, and the
 * backend requests made for it its children. Durations go to `mcp.client.operation.duration` and
 * `mcp.server.operation.duration` (their counts are the request counts), by method, tool or
 * prompt, server, replica and `error.type`. A failure is `error.type`: the `McpHostError` code
 * (`TIMEOUT`, `CONNECTION_CLOSED`, ...), the JSON-RPC error code (`-32602`), or `tool_error` for a
 * result with `isError: true`. Arguments, results and headers are never recorded.
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Telemetry {
  return new OpenTelemetryHooks(options);
}

class OpenTelemetryHooks implements Telemetry {
  readonly #tracer: Tracer;
  readonly #meterProvider: MeterProvider | undefined;
  readonly #replicaId: string | undefined;
  #histograms: { client: Histogram; server: Histogram } | undefined;

  constructor(options: OpenTelemetryOptions) {
    const version = DEFAULT_CLIENT_OPTIONS.clientInfo.version;
    // The global provider is a proxy: an SDK registered later still gets the spans.
    this.#tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(
      OTEL_SCOPE_NAME,
      version,
    );
    this.#meterProvider = options.meterProvider;
    this.#replicaId = options.replicaId;
  }

  startRequest(request: TelemetryRequest): TelemetrySpan | undefined {
    try {
      return this.#start(request);
    } catch {
      // Telemetry never fails a request.
      return undefined;
    }
  }

  #start(request: TelemetryRequest): TelemetrySpan {
    const attributes = this.#attributes(request);
    const target = request.toolName ?? request.promptName;
    const name = target === undefined ? request.method : `${request.method} ${target}`;
    let parent: Context;
    const links: Link[] = [];
    if (request.kind === 'server') {
      // The MCP request's own trace context is the parent; the ambient one (an HTTP server
      // span, say) is linked.
      const ambient = context.active();
      const remote = request.meta === undefined ? undefined : extractTraceMeta(request.meta);
      parent = remote ?? ambient;
      const ambientSpan = trace.getSpanContext(ambient);
      if (remote !== undefined && ambientSpan !== undefined) links.push({ context: ambientSpan });
    } else {
      parent = (request.parent as Context | undefined) ?? context.active();
    }
    const span = this.#tracer.startSpan(
      name,
      {
        kind: request.kind === 'server' ? SpanKind.SERVER : SpanKind.CLIENT,
        attributes,
        links,
      },
      parent,
    );
    return new RequestSpan(span, trace.setSpan(parent, span), attributes, () =>
      request.kind === 'server' ? this.#instruments().server : this.#instruments().client,
    );
  }

  #attributes(request: TelemetryRequest): Attributes {
    const attributes: Attributes = { [OTEL_ATTRIBUTES.method]: request.method };
    if (request.toolName !== undefined) {
      attributes[OTEL_ATTRIBUTES.toolName] = request.toolName;
      if (request.method === McpMethod.ToolsCall)
        attributes[OTEL_ATTRIBUTES.operation] = 'execute_tool';
    }
    if (request.promptName !== undefined)
      attributes[OTEL_ATTRIBUTES.promptName] = request.promptName;
    if (request.protocolVersion !== undefined)
      attributes[OTEL_ATTRIBUTES.protocolVersion] = request.protocolVersion;
    if (request.serverName !== undefined)
      attributes[OTEL_ATTRIBUTES.serverName] = request.serverName;
    const replicaId = request.replicaId ?? this.#replicaId;
    if (replicaId !== undefined) attributes[OTEL_ATTRIBUTES.replicaId] = replicaId;
    return attributes;
  }

  /** The histograms, made at the first request's end (the global provider is read then). */
  #instruments(): { client: Histogram; server: Histogram } {
    if (this.#histograms !== undefined) return this.#histograms;
    const meter = (this.#meterProvider ?? metrics.getMeterProvider()).getMeter(
      OTEL_SCOPE_NAME,
      DEFAULT_CLIENT_OPTIONS.clientInfo.version,
    );
    const histogram = (name: string, description: string) =>
      meter.createHistogram(name, {
        description,
        unit: 's',
        advice: { explicitBucketBoundaries: DURATION_BUCKETS },
      });
    this.#histograms = {
      client: histogram(OTEL_METRICS.client, 'The duration of MCP requests sent, to their answer.'),
      server: histogram(OTEL_METRICS.server, 'The duration of MCP requests served.'),
    };
    return this.#histograms;
  }
}

/** One request's span: ended once, its duration recorded then. */
class RequestSpan implements TelemetrySpan {
  readonly #span: Span;
  readonly #context: Context;
  readonly #attributes: Attributes;
  readonly #histogram: () => Histogram;
  readonly #start = performance.now();
  #ended = false;

  constructor(
    span: Span,
    spanContext: Context,
    attributes: Attributes,
    histogram: () => Histogram,
  ) {
    this.#span = span;
    this.#context = spanContext;
    this.#attributes = attributes;
    this.#histogram = histogram;
  }

  get context(): TelemetryContext {
    return this.#context as unknown as TelemetryContext;
  }

  inject(meta: Record<string, unknown>): void {
    try {
      injectTraceMeta(this.#context, meta);
    } catch {
      // A propagator that throws sends nothing: the request goes on untraced downstream.
    }
  }

  end(outcome: TelemetryOutcome = {}): void {
    if (this.#ended) return;
    this.#ended = true;
    try {
      const failure = describeFailure(outcome);
      const measured: Attributes = { ...this.#attributes };
      if (failure !== undefined) {
        measured[OTEL_ATTRIBUTES.errorType] = failure.type;
        this.#span.setAttribute(OTEL_ATTRIBUTES.errorType, failure.type);
        if (failure.rpcCode !== undefined) {
          measured[OTEL_ATTRIBUTES.rpcStatusCode] = failure.rpcCode;
          this.#span.setAttribute(OTEL_ATTRIBUTES.rpcStatusCode, failure.rpcCode);
        }
        this.#span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
      }
      this.#span.end();
      this.#histogram().record((performance.now() - this.#start) / 1000, measured);
    } catch {
      // Telemetry never fails a request.
    }
  }
}

/** The `error.type` of an outcome (and the JSON-RPC code, and a short message), if it failed. */
function describeFailure(
  outcome: TelemetryOutcome,
): { type: string; rpcCode?: string; message?: string } | undefined {
  const { error, errorType } = outcome;
  if (error === undefined) return errorType === undefined ? undefined : { type: errorType };
  if (error instanceof JsonRpcError) {
    const code = String(error.code);
    return { type: code, rpcCode: code, message: short(error.message) };
  }
  if (error instanceof McpHostError) return { type: error.code, message: short(error.message) };
  // Not one of mcp-host's errors (INTERNAL, as `toMcpHostError` has it): its message was never
  // checked for secrets, so it is left out.
  return { type: 'INTERNAL' };
}

function short(message: string): string {
  return message.length <= MAX_STATUS_CHARS ? message : `${message.slice(0, MAX_STATUS_CHARS)}…`;
}
