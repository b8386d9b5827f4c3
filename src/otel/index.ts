/**
 * `mcp-host/otel`: OpenTelemetry traces and metrics for clients, hosts and gateways.
 * `openTelemetry({ tracerProvider?, meterProvider?, replicaId? })` gives the `telemetry` option of
 * `McpClient`, `McpHost` and `createGateway`: a span per MCP request (the trace carried across
 * processes in `_meta.traceparent`) and the request durations, named by OpenTelemetry's MCP
 * conventions. Needs `@opentelemetry/api` (an optional peer dependency): only this entry loads
 * it. See docs/observability.md.
 */
export {
  openTelemetry,
  OTEL_ATTRIBUTES,
  OTEL_METRICS,
  OTEL_SCOPE_NAME,
  type OpenTelemetryOptions,
} from './open-telemetry.js';
