// The gateway part of the benchmark (issue 17): runs bench/gateway-worker.mjs in fresh processes,
// direct and through the gateway in the same round (their order swapped every round), and renders
// the gateway's added latency (p50, p99: medians of same-round differences) and its calls/s
// against the direct McpClient's.
import { fileURLToPath } from 'node:url';
import { reapServer, runNodeJson } from './child.mjs';
import { median } from './stats.mjs';
import { fixed, formatTable } from './table.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const progress = (text) => process.stderr.write(`${text}\n`);
const PATHS = ['direct', 'gateway'];

/**
 * `rounds` rounds of every scenario, each (scenario, path) a fresh worker. When the build has no
 * HTTP gateway (the worker says `unavailable`), the HTTP scenarios stop there and the result says
 * why. Processes still alive after their worker exits are killed and recorded in `leaks`.
 */
export async function measureGateway(scenarios, rounds, leaks) {
  const results = [];
  let httpUnavailable;
  for (let round = 0; round < rounds; round++) {
    for (const scenario of scenarios) {
      if (scenario.transport === 'http' && httpUnavailable !== undefined) continue;
      const order = round % 2 === 0 ? PATHS : [...PATHS].reverse();
      for (const path of order) {
        const { id, label: _label, ...spec } = scenario;
        const result = await runNodeJson(here('../gateway-worker.mjs'), [
          JSON.stringify({ ...spec, path }),
        ]);
        for (const pid of result.pids ?? [])
          if (await reapServer(pid)) leaks.push({ scenario: `gateway ${id} ${path}`, pid });
        if (result.unavailable !== undefined) {
          httpUnavailable = result.unavailable;
          progress(`[gateway] HTTP left out: ${httpUnavailable}`);
          break;
        }
        results.push({ ...result, id, round });
        progress(
          `[gateway ${round + 1}/${rounds}] ${id.padEnd(6)} ${path.padEnd(7)} p50 ${fixed(result.p50Us, 0)} µs, p99 ${fixed(result.p99Us, 0)} µs, ${fixed(result.callsPerSec, 0)} calls/s`,
        );
      }
    }
  }
  return { results, ...(httpUnavailable === undefined ? {} : { httpUnavailable }) };
}

/** The gateway section of the report: its text and the medians for the summary. */
export function renderGateway(record, scenarios) {
  const results = record?.results ?? [];
  if (results.length === 0 && record?.httpUnavailable === undefined)
    return { text: '', summary: undefined };
  const of = (id, path) => results.filter((r) => r.id === id && r.path === path);
  /** Median over rounds of `metric` through the gateway minus (or over) direct, same round. */
  const sameRound = (id, metric, combine) => {
    const values = [];
    for (const g of of(id, 'gateway')) {
      const d = of(id, 'direct').find((r) => r.round === g.round);
      if (d !== undefined) values.push(combine(g[metric], d[metric]));
    }
    return median(values);
  };
  const med = (id, path, metric) => median(of(id, path).map((r) => r[metric]));
  const summary = {};
  const rows = [];
  for (const scenario of scenarios) {
    if (of(scenario.id, 'gateway').length === 0) continue;
    const figures = {
      directP50Us: med(scenario.id, 'direct', 'p50Us'),
      gatewayP50Us: med(scenario.id, 'gateway', 'p50Us'),
      addedP50Us: sameRound(scenario.id, 'p50Us', (g, d) => g - d),
      directP99Us: med(scenario.id, 'direct', 'p99Us'),
      gatewayP99Us: med(scenario.id, 'gateway', 'p99Us'),
      addedP99Us: sameRound(scenario.id, 'p99Us', (g, d) => g - d),
      directCallsPerSec: med(scenario.id, 'direct', 'callsPerSec'),
      gatewayCallsPerSec: med(scenario.id, 'gateway', 'callsPerSec'),
      callsPerSecRatio: sameRound(scenario.id, 'callsPerSec', (g, d) => g / d),
      gatewayCpuUsPerCall: med(scenario.id, 'gateway', 'gatewayCpuUsPerCall'),
    };
    summary[scenario.id] = figures;
    rows.push([
      scenario.label,
      fixed(figures.directP50Us, 0),
      fixed(figures.gatewayP50Us, 0),
      fixed(figures.addedP50Us, 0),
      fixed(figures.directP99Us, 0),
      fixed(figures.gatewayP99Us, 0),
      fixed(figures.addedP99Us, 0),
      fixed(figures.directCallsPerSec, 0),
      fixed(figures.gatewayCallsPerSec, 0),
      fixed(figures.callsPerSecRatio, 2),
      fixed(figures.gatewayCpuUsPerCall, 0),
    ]);
  }
  const rounds = Math.max(0, ...results.map((r) => r.round + 1));
  const lines = [
    '',
    `The gateway (mcp-host gateway serve, the built CLI in a process of its own), ${rounds} round${rounds === 1 ? '' : 's'} of fresh processes:`,
    '  McpClient.callTool on the echo server directly, and through the gateway with the echo server as its',
    '  one backend (host defaults: maxInFlight 128, argument validation, pins, metrics). stdio: the gateway on',
    "  the client's pipes, the echo server on the gateway's; HTTP: bench/http-echo-server.mjs behind both, the",
    '  gateway over HTTP on loopback (--no-auth). "added" = gateway - direct, medians of same-round differences;',
    "  gateway CPU = the gateway process's CPU per call (/proc, 10 ms resolution):",
    formatTable(
      [
        'scenario',
        'p50 direct',
        'p50 gateway',
        'p50 added',
        'p99 direct',
        'p99 gateway',
        'p99 added',
        'calls/s direct',
        'calls/s gateway',
        'gw ÷ direct',
        'gateway CPU µs/call',
      ],
      rows,
    ),
    ...(record.httpUnavailable === undefined
      ? []
      : [`  HTTP left out: this build's CLI has no HTTP gateway (${record.httpUnavailable}).`]),
  ];
  return { text: lines.join('\n'), summary };
}
