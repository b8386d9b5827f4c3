// The capacity part of the benchmark (issue 19): runs bench/capacity-worker.mjs in fresh processes
// (each forks one gateway replica, bench/capacity-replica.mjs), round after round, and renders
// memory per backend, per legacy session and per view, calls/s per replica in both eras, how calls
// and listing grow from 1 to 1,000 backends, and where p99 latency passes twice its first value.
import { fileURLToPath } from 'node:url';
import { describeCrossing, p99Crossing } from './capacity-plan.mjs';
import { reapServer, runNodeJson } from './child.mjs';
import { median } from './stats.mjs';
import { fixed, formatTable } from './table.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const progress = (text) => process.stderr.write(`${text}\n`);
const KIB = 1024;
const MIB = 1024 * 1024;

/** Every measurement of `plan` (config.mjs, capacityPlan), in order, one worker each. */
function measurementsOf(plan) {
  const { load } = plan;
  return [
    ...plan.throughput.map((t) => ({
      id: `throughput-${t.era}-${t.inFlight}`,
      spec: { mode: 'throughput', ...load, ...t },
    })),
    ...Object.entries(plan.backends).flatMap(([kind, steps]) =>
      steps.map((backends) => ({
        id: `backends-${kind}-${backends}`,
        spec: { mode: 'backends', kind, backends, ...load, inFlight: plan.growthInFlight },
      })),
    ),
    {
      id: 'sessions',
      spec: { mode: 'sessions', steps: plan.sessions, ...load, inFlight: plan.growthInFlight },
    },
    { id: 'views', spec: { mode: 'views', views: plan.views, backends: plan.viewBackends } },
  ];
}

/**
 * `rounds` rounds of every capacity measurement, each a fresh worker (and replica). Echo server
 * processes still alive after their worker exits are killed and recorded in `leaks`.
 */
export async function measureCapacity(plan, rounds, leaks) {
  const results = [];
  for (let round = 0; round < rounds; round++) {
    for (const { id, spec } of measurementsOf(plan)) {
      const result = await runNodeJson(here('../capacity-worker.mjs'), [JSON.stringify(spec)]);
      for (const pid of result.pids ?? [])
        if (await reapServer(pid)) leaks.push({ scenario: `capacity ${id}`, pid });
      results.push({ ...result, id, round });
      progress(`[capacity ${round + 1}/${rounds}] ${id.padEnd(22)} ${describe(result)}`);
    }
  }
  return { results };
}

function describe(r) {
  const timing = (f) =>
    `${fixed(f.callsPerSec, 0)} calls/s, p50 ${fixed(f.p50Us / 1000, 1)} ms, p99 ${fixed(f.p99Us / 1000, 1)} ms`;
  if (r.mode === 'sessions')
    return r.steps.map((s) => `${s.at}: ${fixed(s.p99Us / 1000, 1)} ms`).join(', ') + ' (p99)';
  if (r.mode === 'views')
    return `heap per view ${fixed(perView(r, 'heapUsed', 'listed') / KIB, 1)} KiB once listed`;
  if (r.mode === 'backends')
    return `start ${fixed(r.startMs, 0)} ms, ${r.ready} ready, ${timing(r)}`;
  return timing(r);
}

/** Bytes per view (of `metric`), replica with views over the one without, `phase` built or listed. */
function perView(r, metric, phase) {
  return (r.many[phase][metric] - r.none[phase][metric]) / r.views;
}

/** { median, min, max } of numbers (NaN when empty). */
function range(values) {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return { median: NaN, min: NaN, max: NaN };
  return { median: median(finite), min: Math.min(...finite), max: Math.max(...finite) };
}

/** "median (min-max)" of a range, scaled by `divisor`, with `digits` decimals. */
function spanText({ median: m, min, max }, digits = 0, divisor = 1) {
  if (!Number.isFinite(m)) return '-';
  const f = (v) => fixed(v / divisor, digits);
  return min === max || !Number.isFinite(min) ? f(m) : `${f(m)} (${f(min)}-${f(max)})`;
}

/** Figures per backend count of one kind of backend: medians and ranges over rounds. */
function backendSteps(results, kind) {
  const byCount = new Map();
  for (const r of results) {
    if (r.mode !== 'backends' || r.kind !== kind) continue;
    if (!byCount.has(r.backends)) byCount.set(r.backends, []);
    byCount.get(r.backends).push(r);
  }
  return [...byCount.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([count, runs]) => {
      const per = (f) => range(runs.map((r) => f(r) / count));
      const childRss = runs.flatMap((r) => r.childRssBytes ?? []);
      return {
        at: count,
        rounds: runs.length,
        ready: Math.min(...runs.map((r) => r.ready)),
        tools: median(runs.map((r) => r.listed)),
        startMs: range(runs.map((r) => r.startMs)),
        listFirstMs: range(runs.map((r) => r.listFirstMs)),
        listMs: range(runs.map((r) => r.listMs)),
        // What the host adds per backend (in-memory: over the fake servers, made before it).
        hostHeapPerBackend: per((r) => r.memory.host.heapUsed - r.memory.backends.heapUsed),
        hostRssPerBackend: per((r) => r.memory.host.rss - r.memory.backends.rss),
        // The in-memory fake servers themselves (0 for stdio: they are other processes).
        fakeHeapPerBackend: per((r) => r.memory.backends.heapUsed - r.memory.base.heapUsed),
        heapAfterCalls: range(
          runs.map((r) => r.memoryAfterCalls.heapUsed - r.memory.base.heapUsed),
        ),
        childRss: range(childRss),
        callsPerSec: range(runs.map((r) => r.callsPerSec)),
        p50Us: range(runs.map((r) => r.p50Us)),
        p99Us: range(runs.map((r) => r.p99Us)),
        cpuUsPerCall: range(runs.map((r) => r.replicaCpuUsPerCall)),
        perRound: runs.map((r) => ({ round: r.round, at: count, p99Us: r.p99Us })),
      };
    })
    .map((step, i, steps) => {
      // After the calls (every backend called, the gateway's HTTP machinery warm), per backend
      // over the first step: the fixed costs (sockets, compiled code) cancel out.
      const first = steps[0];
      const slope = (metric) =>
        i === 0
          ? { median: NaN, min: NaN, max: NaN }
          : {
              median: (step[metric].median - first[metric].median) / (step.at - first.at),
              min: NaN,
              max: NaN,
            };
      return { ...step, heapPerBackendAfterCalls: slope('heapAfterCalls') };
    });
}

/** Figures per session count: medians and ranges over rounds. */
function sessionSteps(results) {
  const runs = results.filter((r) => r.mode === 'sessions');
  const counts = [...new Set(runs.flatMap((r) => r.steps.map((s) => s.at)))].sort((a, b) => a - b);
  return counts.map((at) => {
    const steps = runs.map((r) => ({ r, s: r.steps.find((s) => s.at === at) })).filter((x) => x.s);
    const perOpened = (metric) =>
      range(steps.map(({ s }) => (s.afterOpen[metric] - s.beforeOpen[metric]) / s.opened));
    return {
      at,
      rounds: steps.length,
      idleHeapPerSession: perOpened('heapUsed'),
      idleRssPerSession: perOpened('rss'),
      callsPerSec: range(steps.map(({ s }) => s.callsPerSec)),
      p50Us: range(steps.map(({ s }) => s.p50Us)),
      p99Us: range(steps.map(({ s }) => s.p99Us)),
      cpuUsPerCall: range(steps.map(({ s }) => s.replicaCpuUsPerCall)),
      perRound: steps.map(({ r, s }) => ({ round: r.round, at, p99Us: s.p99Us })),
    };
  });
}

/** The crossing on the medians, and in each round on its own. */
function crossings(steps) {
  const overall = p99Crossing(steps.map((s) => ({ at: s.at, p99Us: s.p99Us.median })));
  const rounds = [...new Set(steps.flatMap((s) => s.perRound.map((p) => p.round)))];
  const perRound = rounds.map((round) =>
    p99Crossing(steps.flatMap((s) => s.perRound.filter((p) => p.round === round))),
  );
  return { overall, perRound };
}

function crossingLine(label, { overall, perRound }, unit) {
  const rounds = perRound.map((c) => (c.at === undefined ? `none to ${c.upTo}` : String(c.at)));
  return `  ${label}: p99 passes 2x its first value (${fixed(overall.baselineUs / 1000, 1)} ms) ${describeCrossing(overall, unit)}; per round: ${rounds.join(', ')}`;
}

/** The capacity section of the report: its text and the figures for the summary. */
export function renderCapacity(record) {
  const results = record?.results ?? [];
  if (results.length === 0) return { text: '', summary: undefined };
  const rounds = Math.max(0, ...results.map((r) => r.round + 1));
  const summary = { rounds };
  const lines = [
    '',
    `Capacity (issue 19), ${rounds} round${rounds === 1 ? '' : 's'} of fresh processes: one gateway replica (an McpHost and`,
    '  gateway.listen(), bench/capacity-replica.mjs) in a process of its own, driven over HTTP on loopback by a',
    '  raw node:http client (bench/capacity-worker.mjs). Memory is read in the replica after a full GC. Timing',
    '  columns: median over rounds (min-max); latency in ms.',
  ];

  const throughputRuns = results.filter((r) => r.mode === 'throughput');
  if (throughputRuns.length > 0) {
    const keys = [...new Set(throughputRuns.map((r) => `${r.era}-${r.inFlight}`))];
    summary.throughput = {};
    const rows = keys.map((key) => {
      const runs = throughputRuns.filter((r) => `${r.era}-${r.inFlight}` === key);
      const { era, inFlight, sessions } = runs[0];
      const figures = {
        callsPerSec: range(runs.map((r) => r.callsPerSec)),
        p50Us: range(runs.map((r) => r.p50Us)),
        p99Us: range(runs.map((r) => r.p99Us)),
        cpuUsPerCall: range(runs.map((r) => r.replicaCpuUsPerCall)),
        // How busy the replica's process was (100: one core), and what one core would serve.
        coreShare: range(runs.map((r) => (r.callsPerSec * r.replicaCpuUsPerCall) / 1e4)),
        perCore: range(runs.map((r) => 1e6 / r.replicaCpuUsPerCall)),
      };
      summary.throughput[key] = figures;
      return [
        era === 'legacy' ? `2025-11-25, ${sessions} sessions` : '2026-07-28, session-less',
        String(inFlight),
        spanText(figures.callsPerSec),
        spanText(figures.p50Us, 1, 1000),
        spanText(figures.p99Us, 1, 1000),
        spanText(figures.cpuUsPerCall),
        spanText(figures.coreShare),
        spanText(figures.perCore),
      ];
    });
    lines.push(
      '',
      'Calls/s per replica: tools/call of one in-memory backend, in the replica process, at saturation:',
      formatTable(
        [
          'era',
          'in flight',
          'calls/s',
          'p50 ms',
          'p99 ms',
          'replica CPU µs/call',
          'replica core %',
          'calls/s per core',
        ],
        rows,
      ),
      '  replica core %: its CPU over the wall time (100: one core busy); calls/s per core: 1,000,000 / CPU µs a',
      '  call, what the replica would serve with a core of its own (on a loaded machine the wall time is shared).',
    );
  }

  summary.backends = {};
  for (const kind of ['memory', 'stdio']) {
    const steps = backendSteps(results, kind);
    if (steps.length === 0) continue;
    const inFlight = results.find((r) => r.mode === 'backends')?.inFlight;
    const crossing = crossings(steps);
    summary.backends[kind] = { steps, crossing: crossing.overall };
    const memoryRows = steps.map((s) => [
      s.at.toLocaleString('en-US'),
      `${s.ready}`,
      spanText(s.hostHeapPerBackend, 1, KIB),
      spanText(s.hostRssPerBackend, 1, KIB),
      kind === 'memory' ? spanText(s.fakeHeapPerBackend, 1, KIB) : spanText(s.childRss, 1, MIB),
      spanText(s.heapPerBackendAfterCalls, 1, KIB),
    ]);
    const timingRows = steps.map((s) => [
      s.at.toLocaleString('en-US'),
      fixed(s.tools, 0),
      spanText(s.startMs),
      spanText(s.listFirstMs),
      spanText(s.listMs),
      spanText(s.callsPerSec),
      spanText(s.p50Us, 1, 1000),
      spanText(s.p99Us, 1, 1000),
      spanText(s.cpuUsPerCall),
    ]);
    lines.push(
      '',
      kind === 'memory'
        ? "Backends, simulated: mcp-host/testing's FakeMcpServer (3 tools each) on in-memory transports, in the replica:"
        : 'Backends, real processes: bench/echo-server.mjs over stdio, one process each (RSS of each child apart):',
      formatTable(
        [
          'backends',
          'ready',
          'host heap KiB/backend',
          'host RSS KiB/backend',
          kind === 'memory' ? 'fake server heap KiB each' : 'child RSS MiB each',
          'heap KiB/backend after calls',
        ],
        memoryRows,
      ),
      `  Listing and calls (session-less 2026-07-28 tools/call of echo, round robin over every backend, ${inFlight} in flight):`,
      formatTable(
        [
          'backends',
          'tools',
          'host.start() ms',
          'tools/list first ms',
          'tools/list again ms',
          'calls/s',
          'p50 ms',
          'p99 ms',
          'replica CPU µs/call',
        ],
        timingRows,
      ),
      crossingLine(
        kind === 'memory' ? 'simulated backends' : 'stdio backends',
        crossing,
        'backends',
      ),
    );
  }

  const sessions = sessionSteps(results);
  if (sessions.length > 0) {
    const crossing = crossings(sessions);
    const inFlight = results.find((r) => r.mode === 'sessions')?.inFlight;
    summary.sessions = { steps: sessions, crossing: crossing.overall };
    lines.push(
      '',
      `Legacy (2025-11-25) sessions on one replica (one in-memory backend), opened step by step; at each step,`,
      `  tools/call spread round robin over every open session, ${inFlight} in flight. Idle: what opening a session adds`,
      '  (initialize, initialized; no GET stream), over the sessions already open:',
      formatTable(
        [
          'sessions',
          'idle heap KiB each',
          'idle RSS KiB each',
          'calls/s',
          'p50 ms',
          'p99 ms',
          'replica CPU µs/call',
        ],
        sessions.map((s) => [
          s.at.toLocaleString('en-US'),
          spanText(s.idleHeapPerSession, 1, KIB),
          spanText(s.idleRssPerSession, 1, KIB),
          spanText(s.callsPerSec),
          spanText(s.p50Us, 1, 1000),
          spanText(s.p99Us, 1, 1000),
          spanText(s.cpuUsPerCall),
        ]),
      ),
      crossingLine('legacy sessions', crossing, 'sessions'),
    );
    const busy = results.filter((r) => r.mode === 'sessions' && r.busySession !== undefined);
    if (busy.length > 0) {
      const grew = (metric) =>
        range(busy.map((r) => r.busySession.afterCalls[metric] - r.busySession.idle[metric]));
      summary.sessions.busy = { heap: grew('heapUsed') };
      lines.push(
        `  A busy session (${busy[0].busySession.calls} calls, 8 in flight, its replay buffer full: 256 events) holds`,
        `  ${spanText(summary.sessions.busy.heap, 1, KIB)} KiB of heap more than the same session idle.`,
      );
    }
  }

  const viewRuns = results.filter((r) => r.mode === 'views');
  if (viewRuns.length > 0) {
    const { views, backends } = viewRuns[0];
    const figure = (metric, phase) => range(viewRuns.map((r) => perView(r, metric, phase)));
    summary.views = {
      views,
      heapBuilt: figure('heapUsed', 'built'),
      heapListed: figure('heapUsed', 'listed'),
      rssListed: figure('rss', 'listed'),
      listMsPerView: range(viewRuns.map((r) => r.many.listMsPerView)),
    };
    lines.push(
      '',
      `Views: a replica with ${views.toLocaleString('en-US')} named views (each on one of ${backends} in-memory backends) over one with none:`,
      formatTable(
        ['per view', 'heap KiB', 'RSS KiB'],
        [
          [
            'built (host and listener)',
            spanText(summary.views.heapBuilt, 2, KIB),
            spanText(figure('rss', 'built'), 1, KIB),
          ],
          [
            'once its tools were listed (/mcp/<view>)',
            spanText(summary.views.heapListed, 2, KIB),
            spanText(summary.views.rssListed, 1, KIB),
          ],
        ],
      ),
      `  tools/list through a view: ${spanText(summary.views.listMsPerView, 1)} ms each, one after another`,
    );
  }
  return { text: lines.join('\n'), summary };
}
