/**
 * The host's metrics and the gateway's own in the Prometheus text exposition format (version
 * 0.0.4), for `GET /metrics` on the gateway's HTTP port.
 */
import type { CallStatsSnapshot, MetricsSnapshot } from '../../host/observe/metrics.js';
import type { ServerStatus } from '../../host/slot/server-status.js';

/** The content type of the Prometheus text format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** What the gateway's HTTP layer counts of itself. */
export interface GatewayHttpStats {
  /** Legacy sessions open now. */
  sessions: number;
  /** Session-less (one-shot) exchanges in flight now. */
  statelessInFlight: number;
  /** HTTP requests answered, by status code. */
  requestsByStatus: ReadonlyMap<number, number>;
  /** The gateway's replica id, as the `replica` label of `mcp_host_gateway_replica_info`. */
  replica?: string;
}

type Labels = Record<string, string>;

/** The metrics as Prometheus text: the host's calls per server and tool, servers' states, the gateway's HTTP. */
export function prometheusText(
  metrics: MetricsSnapshot,
  servers: readonly ServerStatus[],
  http: GatewayHttpStats,
): string {
  const out = new Exposition();
  if (http.replica !== undefined) {
    // An info metric (value 1): join on it to label any series with the replica that made it.
    out.family('mcp_host_gateway_replica_info', 'gauge', 'The replica id of this gateway.');
    out.sample('mcp_host_gateway_replica_info', { replica: http.replica }, 1);
  }
  out.family('mcp_host_tool_calls_total', 'counter', 'Tool calls by server and outcome.');
  for (const [server, stats] of Object.entries(metrics.servers))
    for (const [outcome, value] of outcomes(stats))
      out.sample('mcp_host_tool_calls_total', { server, outcome }, value);
  out.family('mcp_host_tool_calls_by_tool_total', 'counter', 'Tool calls by exposed tool name.');
  for (const [tool, stats] of Object.entries(metrics.tools))
    out.sample('mcp_host_tool_calls_by_tool_total', { server: stats.server, tool }, stats.calls);
  out.family('mcp_host_tool_call_errors_total', 'counter', 'Failed tool calls by error code.');
  for (const [server, stats] of Object.entries(metrics.servers))
    for (const [code, value] of Object.entries(stats.errorCodes))
      out.sample('mcp_host_tool_call_errors_total', { server, code }, value);
  out.family('mcp_host_tool_call_latency_ms', 'summary', 'Tool call latency in milliseconds.');
  for (const [server, stats] of Object.entries(metrics.servers)) {
    const latency = stats.latencyMs;
    for (const [quantile, value] of [
      ['0.5', latency.p50],
      ['0.9', latency.p90],
      ['0.99', latency.p99],
    ] as const)
      out.sample('mcp_host_tool_call_latency_ms', { server, quantile }, value);
    out.sample('mcp_host_tool_call_latency_ms_sum', { server }, latency.mean * latency.count);
    out.sample('mcp_host_tool_call_latency_ms_count', { server }, latency.count);
  }
  out.family(
    'mcp_host_tool_bytes_total',
    'counter',
    'Bytes of tool arguments (in) and results (out).',
  );
  for (const [server, stats] of Object.entries(metrics.servers)) {
    out.sample('mcp_host_tool_bytes_total', { server, direction: 'in' }, stats.bytesIn);
    out.sample('mcp_host_tool_bytes_total', { server, direction: 'out' }, stats.bytesOut);
  }
  out.family('mcp_host_server_up', 'gauge', 'Whether a server is connected (ready or degraded).');
  for (const status of servers)
    out.sample(
      'mcp_host_server_up',
      { server: status.name, state: status.state },
      status.state === 'ready' || status.state === 'degraded' ? 1 : 0,
    );
  out.family(
    'mcp_host_server_restarts_total',
    'counter',
    'Restarts of a server since the host started.',
  );
  for (const status of servers)
    out.sample('mcp_host_server_restarts_total', { server: status.name }, status.restartCount);
  out.family('mcp_host_gateway_sessions', 'gauge', 'Gateway sessions open (legacy era over HTTP).');
  out.sample('mcp_host_gateway_sessions', {}, http.sessions);
  out.family(
    'mcp_host_gateway_stateless_in_flight',
    'gauge',
    'Session-less requests being answered.',
  );
  out.sample('mcp_host_gateway_stateless_in_flight', {}, http.statelessInFlight);
  out.family(
    'mcp_host_gateway_http_requests_total',
    'counter',
    'HTTP requests answered, by status.',
  );
  for (const [status, value] of [...http.requestsByStatus].sort(([a], [b]) => a - b))
    out.sample('mcp_host_gateway_http_requests_total', { status: String(status) }, value);
  return out.text();
}

function outcomes(stats: CallStatsSnapshot): Array<[string, number]> {
  return [
    ['ok', stats.ok],
    ['tool_error', stats.toolErrors],
    ['error', stats.errors],
    ['timeout', stats.timeouts],
    ['cancelled', stats.cancelled],
  ];
}

class Exposition {
  readonly #lines: string[] = [];

  family(name: string, type: 'counter' | 'gauge' | 'summary', help: string): void {
    this.#lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
  }

  sample(name: string, labels: Labels, value: number): void {
    const pairs = Object.entries(labels).map(([key, text]) => `${key}="${escapeLabel(text)}"`);
    const shown = Number.isFinite(value)
      ? String(value)
      : value > 0
        ? '+Inf'
        : value < 0
          ? '-Inf'
          : 'NaN';
    this.#lines.push(`${name}${pairs.length === 0 ? '' : `{${pairs.join(',')}}`} ${shown}`);
  }

  text(): string {
    return `${this.#lines.join('\n')}\n`;
  }
}

/** A label value as the text format wants it: backslash, double quote and newline escaped. */
function escapeLabel(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
