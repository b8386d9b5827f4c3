import { describe, expect, it } from 'vitest';
import { HostMetrics } from '../../host/observe/metrics.js';
import type { ServerStatus } from '../../host/slot/server-status.js';
import { prometheusText } from './prometheus-text.js';

describe('prometheusText', () => {
  it("writes the host's calls, servers and the gateway's HTTP counts in the text format", () => {
    const metrics = new HostMetrics();
    metrics.recordCall({ server: 'a"b', tool: 'mcp__x__t', durationMs: 5, outcome: 'ok' });
    metrics.recordCall({
      server: 'a"b',
      tool: 'mcp__x__t',
      durationMs: 7,
      outcome: 'error',
      errorCode: 'REQUEST_TIMEOUT',
    });
    const servers = [
      { name: 'a"b', state: 'ready', restartCount: 2 },
      { name: 'down', state: 'failed', restartCount: 0 },
    ] as unknown as ServerStatus[];
    const text = prometheusText(metrics.snapshot(), servers, {
      sessions: 3,
      statelessInFlight: 0,
      requestsByStatus: new Map([
        [401, 2],
        [200, 5],
      ]),
    });
    expect(text).toContain('# TYPE mcp_host_tool_calls_total counter\n');
    expect(text).toContain('mcp_host_tool_calls_total{server="a\\"b",outcome="ok"} 1\n');
    expect(text).toContain('mcp_host_tool_calls_total{server="a\\"b",outcome="error"} 1\n');
    expect(text).toContain(
      'mcp_host_tool_call_errors_total{server="a\\"b",code="REQUEST_TIMEOUT"} 1\n',
    );
    expect(text).toContain('mcp_host_tool_call_latency_ms_count{server="a\\"b"} 2\n');
    expect(text).toContain('mcp_host_server_up{server="down",state="failed"} 0\n');
    expect(text).toContain('mcp_host_server_restarts_total{server="a\\"b"} 2\n');
    expect(text).toContain('mcp_host_gateway_sessions 3\n');
    expect(text.indexOf('status="200"')).toBeLessThan(text.indexOf('status="401"'));
    // Every line is a comment or `name{labels} value`.
    for (const line of text.trimEnd().split('\n'))
      expect(line).toMatch(/^(# (HELP|TYPE) \w+ .+|\w+(\{.*\})? -?[\d.e+]+|\w+(\{.*\})? NaN)$/);
  });
});
