/**
 * The hooks through which the client, the host and the gateway report their requests to a
 * tracing and metrics system, with no dependency on one: `mcp-host/otel` implements them on
 * OpenTelemetry (`openTelemetry()`). Without a `telemetry` option nothing here runs: each request
 * costs one `undefined` check. See docs/observability.md.
 */

declare const telemetryContextBrand: unique symbol;

/**
 * A span's place in its trace, opaque to mcp-host: what a span started by `Telemetry` hands to
 * the requests made on its behalf (`CallOptions.traceContext`), so that theirs are its children.
 */
export interface TelemetryContext {
  readonly [telemetryContextBrand]: never;
}

/** One request about to be sent or served, as `Telemetry.startRequest` is told of it. */
export interface TelemetryRequest {
  /** `client`: a request this process sends to a server; `server`: one a gateway serves. */
  kind: 'client' | 'server';
  /** The MCP method (`tools/call`, `resources/read`, ...). */
  method: string;
  /** The tool of a `tools/call` (its name as the receiving side knows it). */
  toolName?: string | undefined;
  /** The prompt of a `prompts/get`. */
  promptName?: string | undefined;
  /** `client`: the server's configured name. */
  serverName?: string | undefined;
  /** The protocol version of the request's session, when known. */
  protocolVersion?: string | undefined;
  /**
   * `server`: the incoming request's `_meta`: its trace context (`traceparent`, `tracestate`),
   * when it has one, is the parent of the span.
   */
  meta?: Readonly<Record<string, unknown>> | undefined;
  /**
   * `client`: the span this request is made for (a served request's `TelemetrySpan.context`).
   * Without it the span's parent is the ambient one of the tracing system, if any.
   */
  parent?: TelemetryContext | undefined;
  /** `server`: the id of the gateway replica serving the request. */
  replicaId?: string | undefined;
}

/** How a request ended, as `TelemetrySpan.end` is told. */
export interface TelemetryOutcome {
  /** What the request threw (a `McpHostError`, or a `JsonRpcError`: the peer's answer). */
  error?: unknown;
  /** A failure reported in a result rather than thrown: `tool_error` for `isError: true`. */
  errorType?: string;
}

/** One request's span, started by `Telemetry.startRequest`. */
export interface TelemetrySpan {
  /** This span's place in its trace: the `parent` of the requests made on its behalf. */
  readonly context: TelemetryContext;
  /** Writes this span's trace context into an outgoing request's `_meta` (`traceparent`, ...). */
  inject(meta: Record<string, unknown>): void;
  /** Ends the span and records the request's duration. Called once. */
  end(outcome?: TelemetryOutcome): void;
}

/**
 * What `McpClient`, `McpHost` and the gateway report their requests to (their `telemetry`
 * option). Implementations must not throw and must not record arguments, results or tokens.
 */
export interface Telemetry {
  /** Starts the span of one request; `undefined` to trace nothing of it. */
  startRequest(request: TelemetryRequest): TelemetrySpan | undefined;
}
