// What the benchmark runs: the implementations, the scenarios, and the targets it reports.
import { nearLimit } from './lib/table.mjs';

/**
 * The implementations, in the order of round 0; each round rotates it by one (ABCD, BCDA, CDAB,
 * DABC). `ours` is the bare JSON-RPC peer; `client` the full McpClient.callTool path on top of it.
 */
export const IMPLS = ['ours', 'client', 'host', 'sdk', 'raw'];

/** Over HTTP the host is not measured (its cost over the client is the same whatever the transport). */
export const HTTP_IMPLS = ['ours', 'client', 'sdk', 'raw'];

/** The implementations a scenario runs. */
export const implsOf = (scenario) => (transportOf(scenario) === 'http' ? HTTP_IMPLS : IMPLS);

export const IMPL_LABELS = {
  ours: 'mcp-host JsonRpcPeer + StdioTransport (dist/)',
  client: 'mcp-host McpClient.callTool + StdioTransport (dist/), era pinned to legacy',
  host: 'mcp-host McpHost.callTool over the same, host defaults (maxInFlight 128, validation, metrics)',
  sdk: '@modelcontextprotocol/sdk Client + StdioClientTransport',
  raw: 'raw pipe: hand-written JSON line client, no library',
};

/**
 * What each implementation imports to talk to a stdio server, for the import-time probe
 * (specifiers resolve from bench/). A new row adds a client in bench/clients/ and an entry here.
 */
export const IMPORT_ENTRY_POINTS = {
  ours: ['mcp-host', 'mcp-host/stdio'],
  // The entry for programs that talk to one server: McpClient without the host (docs/architecture.md).
  client: ['mcp-host/client', 'mcp-host/stdio'],
  // McpHost is in the root entry; it loads the stdio transport itself when a server needs it.
  host: ['mcp-host'],
  sdk: ['@modelcontextprotocol/sdk/client/index.js', '@modelcontextprotocol/sdk/client/stdio.js'],
  raw: ['./clients/raw.mjs'],
};

/** The same four over Streamable HTTP (bench/clients/http/), against bench/http-echo-server.mjs. */
export const HTTP_IMPL_LABELS = {
  ours: 'mcp-host JsonRpcPeer + StreamableHttpTransport (mcp-host/http, dist/)',
  client: 'mcp-host McpClient.callTool + StreamableHttpTransport (dist/), era pinned to legacy',
  sdk: '@modelcontextprotocol/sdk Client + StreamableHTTPClientTransport',
  raw: 'raw HTTP: node:http request() over a keep-alive Agent (maxSockets Infinity), no library',
};

const MIB = 1024 * 1024;

/**
 * Each scenario: `inFlight` requests kept outstanding, `calls` timed after `warmup` calls. `pin`
 * runs client and server on one core (`taskset`), so the sequential latency measures the work
 * done per call rather than how fast an idle core wakes up.
 */
const SCENARIOS = [
  {
    id: 'seq',
    label: 'sequential, pinned to 1 core',
    inFlight: 1,
    calls: 6000,
    warmup: 2000,
    pin: true,
  },
  { id: 'c1', label: '1 in flight', inFlight: 1, calls: 4000, warmup: 1000 },
  { id: 'c16', label: '16 in flight', inFlight: 16, calls: 60_000, warmup: 15_000 },
  { id: 'c256', label: '256 in flight', inFlight: 256, calls: 150_000, warmup: 30_000 },
  { id: 'r1m', label: '1 MiB result', inFlight: 1, calls: 60, warmup: 10, size: MIB },
  { id: 'r10m', label: '10 MiB result', inFlight: 1, calls: 8, warmup: 2, size: 10 * MIB },
];

/**
 * The Streamable HTTP scenarios (`transport: 'http'`): the worker starts the HTTP echo server and
 * the client POSTs every message to it. Fewer calls than stdio: an HTTP round trip costs 5 to 20
 * times more, and the SDK (and ours, on undici fetch) run at about 2,000 calls/s here.
 */
const HTTP_SCENARIOS = [
  {
    id: 'hseq',
    label: 'HTTP sequential, pinned to 1 core',
    inFlight: 1,
    calls: 1000,
    warmup: 500,
    pin: true,
  },
  { id: 'hc16', label: 'HTTP 16 in flight', inFlight: 16, calls: 5000, warmup: 2000 },
  { id: 'hc256', label: 'HTTP 256 in flight', inFlight: 256, calls: 8000, warmup: 3000 },
  { id: 'hr10m', label: 'HTTP 10 MiB result', inFlight: 1, calls: 5, warmup: 2, size: 10 * MIB },
].map((s) => ({ ...s, transport: 'http' }));

/**
 * `--only` values: which scenarios run (startup probes are stdio's; `host` is McpHost's own,
 * `gateway` the gateway's, bench/gateway-worker.mjs; `capacity` a gateway replica's,
 * bench/capacity-worker.mjs).
 */
export const SUITES = ['stdio', 'http', 'host', 'gateway', 'capacity'];

/** stdio or http. */
export const transportOf = (scenario) => scenario.transport ?? 'stdio';

/**
 * The scenarios of a run; `quick` times a quarter of the calls but keeps the warm-up (with too
 * little of it the code under test is not yet optimised and latencies double).
 */
export function scenarios(quick, only = SUITES) {
  const all = [...SCENARIOS, ...HTTP_SCENARIOS].filter((s) => only.includes(transportOf(s)));
  if (!quick) return all;
  return all.map((s) => ({ ...s, calls: Math.max(4, Math.round(s.calls / 4)) }));
}

/** 8 rounds: every implementation takes every position of the rotation twice. */
export const FULL_ROUNDS = 8;
export const QUICK_ROUNDS = 3;
/**
 * HTTP scenarios run in the first 4 rounds of a full run (each implementation in each position
 * once), which keeps them to about 2 minutes; a quick run gives them its 3.
 */
export const HTTP_FULL_ROUNDS = 4;
/** Fresh processes per implementation for import time and memory. */
export const FULL_STARTUP_RUNS = 9;
export const QUICK_STARTUP_RUNS = 3;

/**
 * The targets (a target whose scenarios were not run, with `--only`, is left out). `ratio(scenario, metric, a, b)` is the median over rounds of a's metric divided by
 * b's from the same round; `startup(metric, impl)` a median over fresh processes. The throughput,
 * CPU and import targets hold for both the bare peer (`ours`) and the full client path (`client`).
 */
export const TARGETS = [
  ...['ours', 'client'].flatMap((impl) => [
    ...['c16', 'c256'].map((scenario) => ({
      name: `${impl}: calls/s at ${scenario.slice(1)} in flight >= 0.75 of raw`,
      value: (r) => r.ratio(scenario, 'callsPerSec', impl, 'raw'),
      pass: (v) => v >= 0.75,
      show: (v, r) =>
        `${impl}/raw ${nearLimit(v, 0.75)} (${span(r.ratioRange(scenario, 'callsPerSec', impl, 'raw'))}; SDK ${r.ratio(scenario, 'callsPerSec', 'sdk', 'raw').toFixed(2)})`,
    })),
    ...['c16', 'c256'].map((scenario) => ({
      name: `${impl}: client CPU per call at ${scenario.slice(1)} in flight <= 1.5x raw`,
      value: (r) => r.ratio(scenario, 'cpuUsPerCall', impl, 'raw'),
      pass: (v) => v <= 1.5,
      show: (v, r) =>
        `${impl}/raw ${nearLimit(v, 1.5)}x (${span(r.ratioRange(scenario, 'cpuUsPerCall', impl, 'raw'))}; ${r.median(scenario, 'cpuUsPerCall', impl).toFixed(2)} vs ${r.median(scenario, 'cpuUsPerCall', 'raw').toFixed(2)} µs; SDK ${r.ratio(scenario, 'cpuUsPerCall', 'sdk', 'raw').toFixed(2)}x)`,
    })),
  ]),
  ...['c16', 'c256'].map((scenario) => ({
    name: `host: CPU per call over McpClient's at ${scenario.slice(1)} in flight < 3 µs`,
    value: (r) => r.differenceRange(scenario, 'host', scenario, 'client', 'cpuUsPerCall').median,
    pass: (v) => v < 3,
    show: (v, r) =>
      `host - client ${nearLimit(v, 3)} µs (${span(r.differenceRange(scenario, 'host', scenario, 'client', 'cpuUsPerCall'), 2)}; host ${r.median(scenario, 'cpuUsPerCall', 'host').toFixed(2)}, client ${r.median(scenario, 'cpuUsPerCall', 'client').toFixed(2)} µs; host/raw ${r.ratio(scenario, 'cpuUsPerCall', 'host', 'raw').toFixed(2)}x)`,
  })),
  {
    name: 'host: queueing at 256 in flight (128 behind maxInFlight 128) costs no more than the call',
    value: (r) => r.differenceRange('c256', 'host', 'c16', 'host', 'cpuUsPerCall').median,
    pass: (v, r) => v <= r.median('c16', 'cpuUsPerCall', 'host'),
    show: (v, r) =>
      `host CPU/call at 256 - at 16 = ${v.toFixed(2)} µs (${span(r.differenceRange('c256', 'host', 'c16', 'host', 'cpuUsPerCall'), 2)}) against ${r.median('c16', 'cpuUsPerCall', 'host').toFixed(2)} µs a call at 16`,
  },
  {
    name: "host: calls/s at 256 in flight >= McpClient's at 16",
    value: (r) => r.crossRatioRange('c256', 'host', 'c16', 'client', 'callsPerSec').median,
    pass: (v) => v >= 1,
    show: (v, r) =>
      `host c256 / client c16 ${v.toFixed(2)} (${span(r.crossRatioRange('c256', 'host', 'c16', 'client', 'callsPerSec'))}; host ${Math.round(r.median('c256', 'callsPerSec', 'host')).toLocaleString('en-US')}, client ${Math.round(r.median('c16', 'callsPerSec', 'client')).toLocaleString('en-US')} calls/s; host/raw at 256 ${r.ratio('c256', 'callsPerSec', 'host', 'raw').toFixed(2)})`,
  },
  ...['ours', 'client'].flatMap((impl) => [
    {
      name: `${impl}: HTTP client CPU per call at 256 in flight <= 2x raw`,
      value: (r) => r.ratio('hc256', 'cpuUsPerCall', impl, 'raw'),
      pass: (v) => v <= 2,
      show: (v, r) =>
        `${impl}/raw ${v.toFixed(2)}x (${r.median('hc256', 'cpuUsPerCall', impl).toFixed(1)} vs ${r.median('hc256', 'cpuUsPerCall', 'raw').toFixed(1)} µs; SDK ${r.ratio('hc256', 'cpuUsPerCall', 'sdk', 'raw').toFixed(2)}x)`,
    },
    {
      name: `${impl}: HTTP calls/s at 256 in flight >= 3x the SDK's`,
      value: (r) => r.ratio('hc256', 'callsPerSec', impl, 'sdk'),
      pass: (v) => v >= 3,
      show: (v, r) =>
        `${impl}/SDK ${v.toFixed(2)}x (${impl} ${r.ratio('hc256', 'callsPerSec', impl, 'raw').toFixed(2)} of raw, SDK ${r.ratio('hc256', 'callsPerSec', 'sdk', 'raw').toFixed(2)})`,
    },
  ]),
  {
    name: 'ours: 10 MiB result received >= 2.5x faster than the SDK',
    value: (r) => r.ratio('r10m', 'p50Us', 'sdk', 'ours'),
    pass: (v) => v >= 2.5,
    show: (v, r) =>
      `SDK p50 / ours p50 = ${v.toFixed(2)}x (client ${r.ratio('r10m', 'p50Us', 'sdk', 'client').toFixed(2)}x)`,
  },
  {
    name: 'ours: sequential p50 latency no worse than the SDK',
    value: (r) => r.ratio('seq', 'p50Us', 'ours', 'sdk'),
    pass: (v) => v <= 1,
    show: (v, r) =>
      `ours/SDK ${v.toFixed(2)} (ours ${r.median('seq', 'p50Us', 'ours').toFixed(1)} µs, client ${r.median('seq', 'p50Us', 'client').toFixed(1)} µs, SDK ${r.median('seq', 'p50Us', 'sdk').toFixed(1)} µs)`,
  },
  ...['ours', 'client'].map((impl) => ({
    name: `${impl}: import time < 30 ms`,
    value: (r) => r.startup('importMs', impl),
    pass: (v) => v < 30,
    show: (v, r) =>
      `${impl} ${v.toFixed(1)} ms (SDK ${r.startup('importMs', 'sdk').toFixed(1)} ms, raw ${r.startup('importMs', 'raw').toFixed(1)} ms)`,
  })),
  {
    name: 'client: import + connect + listTools within 1.3x raw (wall time)',
    value: (r) => r.startupRatioRange('listMs', 'client', 'raw').median,
    pass: (v) => v <= 1.3,
    show: (v, r) =>
      `client/raw ${nearLimit(v, 1.3)}x (${span(r.startupRatioRange('listMs', 'client', 'raw'))}; client ${r.startup('listMs', 'client').toFixed(0)} ms, raw ${r.startup('listMs', 'raw').toFixed(0)} ms, SDK ${r.startup('listMs', 'sdk').toFixed(0)} ms, host start() ${r.startup('listMs', 'host').toFixed(0)} ms)`,
  },
  {
    name: 'client: the first listing blocks the event loop for at most 20 ms',
    value: (r) => r.startupRange('maxBlockMs', 'client').max,
    pass: (v) => v <= 20,
    show: (v, r) =>
      `longest block ${v.toFixed(1)} ms (median ${r.startup('maxBlockMs', 'client').toFixed(1)} ms; raw ${r.startup('maxBlockMs', 'raw').toFixed(1)}, SDK ${r.startup('maxBlockMs', 'sdk').toFixed(1)} ms)`,
  },
  ...['client', 'host'].map((impl) => ({
    name: `${impl}: RSS over a bare node, one server connected and listed, < 8 MiB`,
    value: (r) => r.startup('rssOverBareMiB', impl),
    pass: (v) => v < 8,
    show: (v, r) =>
      `${impl} +${v.toFixed(1)} MiB (${span(r.startupRange('rssOverBareMiB', impl), 1)}; ours +${r.startup('rssOverBareMiB', 'ours').toFixed(1)}, SDK +${r.startup('rssOverBareMiB', 'sdk').toFixed(1)}, raw +${r.startup('rssOverBareMiB', 'raw').toFixed(1)})`,
  })),
  ...['client', 'host'].map((impl) => ({
    name: `${impl}: RSS with 20 servers connected below the SDK's`,
    value: (r) => r.startup('rss20OverBareMiB', impl),
    pass: (v, r) => v < r.startup('rss20OverBareMiB', 'sdk'),
    show: (v, r) =>
      `${impl} +${v.toFixed(1)} MiB (${span(r.startupRange('rss20OverBareMiB', impl), 1)}), SDK +${r.startup('rss20OverBareMiB', 'sdk').toFixed(1)} MiB (${span(r.startupRange('rss20OverBareMiB', 'sdk'), 1)}), raw +${r.startup('rss20OverBareMiB', 'raw').toFixed(1)} MiB`,
  })),
];

// ---- the host (McpHost), bench/host-worker.mjs ----------------------------------------------------

/**
 * What each host measurement runs, one fresh process each per round (see bench/host-worker.mjs):
 * `routing` times `calls` calls of each path (McpClient.callTool, McpHost.callTool with defaults,
 * and with `validateArguments: false`) alternating one by one after `warmup` of each; `listing`
 * starts a host on `servers` in-memory servers of `toolsPerServer` tools; `connect` connects
 * `servers` stdio echo servers one at a time and all at once (the order alternates by round).
 */
export const HOST_MEASUREMENTS = {
  routing: { mode: 'routing', calls: 20_000, warmup: 5_000 },
  listing: { mode: 'listing', servers: 20, toolsPerServer: 50, repeats: 20 },
  connect: { mode: 'connect', servers: 20 },
};

/** Rounds of the three host measurements: about 6 to 10 s a round on 2 cores. */
export const HOST_FULL_ROUNDS = 5;
export const HOST_QUICK_ROUNDS = 2;

/** A quick run times a quarter of the routing calls (the warm-up stays). */
export function hostMeasurements(quick) {
  if (!quick) return HOST_MEASUREMENTS;
  const { routing } = HOST_MEASUREMENTS;
  return { ...HOST_MEASUREMENTS, routing: { ...routing, calls: routing.calls / 4 } };
}

/**
 * The host targets of issue 5, over the host summary `h` (bench/lib/host.mjs): medians over
 * rounds, each round a fresh process.
 */
export const HOST_TARGETS = [
  {
    name: 'host: routing overhead of host.callTool over client.callTool, in-memory, p50 < 5 µs',
    value: (h) => h.routing('overheadP50Us'),
    pass: (v) => v < 5,
    show: (v, h) =>
      `host - client p50 ${v.toFixed(2)} µs (host ${h.routing('hostP50Us').toFixed(2)}, client ${h.routing('clientP50Us').toFixed(2)} µs; validateArguments: false ${h.routing('noValidateOverheadP50Us').toFixed(2)} µs; 10 ms / overhead = ${Math.round(10_000 / Math.max(v, 0.001)).toLocaleString('en-US')}x)`,
  },
  {
    name: 'host: 20 stdio servers connected at once in <= 0.6 of the sum of single connects',
    value: (h) => h.connect('ratio'),
    // Every server must have connected, alone and all at once, in every round.
    pass: (v, h) =>
      v <= 0.6 && h.min('connect', 'readyAlone') === 20 && h.min('connect', 'readyTogether') === 20,
    show: (v, h) =>
      `wall / sum = ${v.toFixed(2)} (all at once ${h.connect('wallMs').toFixed(0)} ms, sum of 20 alone ${h.connect('sumMs').toFixed(0)} ms; ready: at least ${h.min('connect', 'readyTogether')}/20 at once, ${h.min('connect', 'readyAlone')}/20 alone)`,
  },
];

/** "min-max a-b" of a { median, min, max } range. */
function span({ min, max }, digits = 2) {
  return `min-max ${min.toFixed(digits)}-${max.toFixed(digits)}`;
}

// ---- the gateway (mcp-host gateway serve), bench/gateway-worker.mjs -------------------------------

/**
 * The gateway's scenarios (issue 17): an McpClient calls the echo tool directly and through the
 * gateway (the built CLI, a process of its own, the echo server its one backend), `inFlight`
 * outstanding, each in a fresh process; over stdio, and over HTTP where the build has the HTTP
 * gateway (gateway serve --transport http; the HTTP rows are left out otherwise).
 */
const GATEWAY_SCENARIOS = [
  {
    id: 'gc1',
    transport: 'stdio',
    label: 'stdio, 1 in flight',
    inFlight: 1,
    calls: 3000,
    warmup: 1000,
  },
  {
    id: 'gc256',
    transport: 'stdio',
    label: 'stdio, 256 in flight',
    inFlight: 256,
    calls: 30_000,
    warmup: 10_000,
  },
  {
    id: 'ghc1',
    transport: 'http',
    label: 'HTTP, 1 in flight',
    inFlight: 1,
    calls: 1000,
    warmup: 500,
  },
  {
    id: 'ghc256',
    transport: 'http',
    label: 'HTTP, 256 in flight',
    inFlight: 256,
    calls: 8000,
    warmup: 3000,
  },
];

/** Rounds of the gateway scenarios (direct and gateway swap places each round). */
export const GATEWAY_FULL_ROUNDS = 4;
export const GATEWAY_QUICK_ROUNDS = 2;

/** The gateway scenarios; `quick` times a quarter of the calls (the warm-up stays). */
export function gatewayScenarios(quick) {
  if (!quick) return GATEWAY_SCENARIOS;
  return GATEWAY_SCENARIOS.map((s) => ({ ...s, calls: Math.max(4, Math.round(s.calls / 4)) }));
}

// ---- capacity (one gateway replica), bench/capacity-worker.mjs -----------------------------------

/**
 * What the capacity part measures (issue 19), each measurement a fresh worker forking a fresh
 * replica: `throughput` calls/s at saturation per era (legacy over `sessions` sessions);
 * `backends` the backend counts stepped through, in-memory (`memory`) and as stdio processes;
 * `sessions` the legacy session counts stepped through in one replica; `views` named views on
 * `viewBackends` backends. `load` is the calls of every timed part (after `warmup`), and
 * `growthInFlight` the calls outstanding while stepping up backends and sessions.
 */
const CAPACITY_PLAN = {
  load: { calls: 3000, warmup: 1000 },
  growthInFlight: 32,
  throughput: [
    { era: 'legacy', sessions: 64, inFlight: 64 },
    { era: 'legacy', sessions: 64, inFlight: 256 },
    { era: 'modern', inFlight: 64 },
    { era: 'modern', inFlight: 256 },
  ],
  backends: { memory: [1, 10, 100, 1000], stdio: [1, 10, 50] },
  sessions: [1, 10, 100, 1000, 4000],
  views: 1000,
  viewBackends: 10,
};

/** Rounds of the capacity part (each round runs every measurement once). */
export const CAPACITY_FULL_ROUNDS = 3;
export const CAPACITY_QUICK_ROUNDS = 1;

/** The capacity plan; `quick` makes fewer calls, fewer steps and fewer views. */
export function capacityPlan(quick) {
  if (!quick) return CAPACITY_PLAN;
  return {
    ...CAPACITY_PLAN,
    load: { calls: 600, warmup: 200 },
    throughput: CAPACITY_PLAN.throughput.filter((t) => t.inFlight === 64),
    backends: { memory: [1, 100], stdio: [1, 5] },
    sessions: [1, 100, 500],
    views: 100,
  };
}
