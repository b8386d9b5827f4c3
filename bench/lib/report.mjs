// The human-readable report of a run: heading, scenario tables (stdio, HTTP), startup table,
// targets. Parts of a run made with `--only` are left out.
import {
  HTTP_IMPL_LABELS,
  HTTP_IMPLS,
  IMPL_LABELS,
  IMPLS,
  TARGETS,
  implsOf,
  transportOf,
} from '../config.mjs';
import { renderCapacity } from './capacity.mjs';
import { renderGateway } from './gateway.mjs';
import { renderHost } from './host.mjs';
import { summarize } from './summary.mjs';
import { fixed, formatTable, nearLimit } from './table.mjs';

const SUMMARY_METRICS = [
  'p50Us',
  'p99Us',
  'callsPerSec',
  'cpuUsPerCall',
  'clientCpuShare',
  'serverCpuUsPerCall',
  'serverCoreShare',
];

/** Renders a run record (as written to bench/results/); returns the text, targets and medians. */
export function renderReport(record) {
  const { config, machine } = record;
  const s = summarize(record.runs, record.startupRuns);
  const host = renderHost(record.host ?? []);
  const gateway = renderGateway(record.gateway, config.gatewayScenarios ?? []);
  const capacity = renderCapacity(record.capacity);
  const targets = [...evaluateTargets(s), ...cliTargets(record.cli), ...host.targets];
  const stdioScenarios = config.scenarios.filter((sc) => transportOf(sc) === 'stdio');
  const httpScenarios = config.scenarios.filter((sc) => transportOf(sc) === 'http');
  const text = [
    `mcp-host benchmark, ${record.date}`,
    `Node ${machine.node}, ${machine.platform}, ${machine.cpus} x ${machine.cpuModel}; src at ${record.sourceRevision}`,
    ...(record.load === undefined
      ? []
      : [
          `Load average (1, 5, 15 min) at the start ${record.load.before.map((v) => v.toFixed(1)).join(', ')}, at the end ${record.load.after.map((v) => v.toFixed(1)).join(', ')}`,
        ]),
    ...(config.scenarios.length === 0
      ? [
          `${config.quick ? 'QUICK run, ' : ''}${[record.host?.length > 0 ? 'host' : undefined, gateway.text === '' ? undefined : 'gateway', capacity.text === '' ? undefined : 'capacity'].filter(Boolean).join(' and ') || 'no'} part only.`,
        ]
      : [
          `${config.quick ? 'QUICK run, ' : ''}${config.rounds} rounds of fresh processes, order rotated each round; medians over rounds,`,
          'ratios are medians of same-round ratios.',
          config.pinCpu === null
            ? '  sequential: NOT pinned (taskset unavailable)'
            : `  sequential: client and server pinned to cpu ${config.pinCpu} (taskset)`,
        ]),
    ...(stdioScenarios.length === 0
      ? []
      : [
          '',
          'stdio, one echo server for all (bench/echo-server.mjs):',
          ...IMPLS.map((impl) => `  ${impl.padEnd(6)} ${IMPL_LABELS[impl]}`),
          `  SDK version ${config.sdkVersion}, stdio maxBufferSize raised to 64 MiB: its 10 MiB default closes the`,
          '  connection on the 10 MiB result. ours and client: maxMessageBytes also 64 MiB (a limit only).',
          '',
          scenarioTable(stdioScenarios, s),
        ]),
    ...(httpScenarios.length === 0
      ? []
      : [
          '',
          `Streamable HTTP, ${config.httpRounds ?? config.rounds} rounds, one loopback echo server for all (bench/http-echo-server.mjs, node:http,`,
          '  JSON responses, keep-alive):',
          ...HTTP_IMPLS.map((impl) => `  ${impl.padEnd(6)} ${HTTP_IMPL_LABELS[impl]}`),
          '',
          scenarioTable(httpScenarios, s),
        ]),
    ...(config.scenarios.length === 0
      ? []
      : [
          '',
          'The full client path over the bare peer (client ÷ ours, same-round ratios):',
          overheadTable(config.scenarios, s),
        ]),
    ...(record.startupRuns.length === 0
      ? []
      : [
          '',
          `Startup (median of ${config.startupRuns} runs; in each, import and list are the median of 3 fresh processes,\n  list = import + connect + list the tools, from the first import; memory after import, connect and a listing, after gc, over a bare node;\n  20 servers: 3 runs, one McpHost for host, 20 clients for the others):`,
          startupTable(s),
        ]),
    ...(record.cli === undefined ? [] : ['', cliText(record.cli)]),
    ...(host.text === '' ? [] : [host.text]),
    ...(gateway.text === '' ? [] : [gateway.text]),
    ...(capacity.text === '' ? [] : [capacity.text]),
    '',
    'Targets:',
    ...targets.map((t) => `${t.pass ? 'PASS' : 'FAIL'}  ${t.name}: ${t.detail}`),
    record.leaks.length === 0
      ? 'No echo server outlived its client.'
      : `WARNING: ${record.leaks.length} echo servers outlived their client and were killed.`,
  ].join('\n');
  const summary = Object.fromEntries(
    config.scenarios.map((scenario) => [
      scenario.id,
      Object.fromEntries(
        implsOf(scenario).map((impl) => [
          impl,
          Object.fromEntries(SUMMARY_METRICS.map((m) => [m, s.median(scenario.id, m, impl)])),
        ]),
      ),
    ]),
  );
  summary.startup = Object.fromEntries(
    IMPLS.map((impl) => [
      impl,
      {
        importMs: s.startup('importMs', impl),
        listMs: s.startup('listMs', impl),
        listCpuMs: s.startup('listCpuMs', impl),
        maxBlockMs: s.startup('maxBlockMs', impl),
        rss20OverBareMiB: s.startup('rss20OverBareMiB', impl),
        rssOverBareMiB: s.startup('rssOverBareMiB', impl),
        heapOverBareMiB: s.startup('heapOverBareMiB', impl),
      },
    ]),
  );
  if (record.host !== undefined && record.host.length > 0) summary.host = host.summary;
  if (gateway.summary !== undefined) summary.gateway = gateway.summary;
  if (capacity.summary !== undefined) summary.capacity = capacity.summary;
  return { text, targets, summary };
}

function scenarioTable(scenarios, s) {
  const header = [
    ...['scenario', 'impl', 'p50 µs', 'p99 µs', 'calls/s', 'CPU µs/call'],
    ...['calls/s ÷raw', 'CPU ÷raw', 'calls/s ÷SDK', 'CPU ÷SDK', 'server core %'],
  ];
  const rows = [];
  for (const scenario of scenarios) {
    implsOf(scenario).forEach((impl, i) => {
      const m = (metric) => s.median(scenario.id, metric, impl);
      const big = scenario.size !== undefined;
      rows.push([
        i === 0 ? scenario.label : '',
        impl,
        fixed(m('p50Us'), big ? 0 : 1),
        fixed(m('p99Us'), big ? 0 : 1),
        fixed(m('callsPerSec'), big ? 1 : 0),
        fixed(m('cpuUsPerCall'), big ? 0 : 2),
        impl === 'raw' ? '1' : fixed(s.ratio(scenario.id, 'callsPerSec', impl, 'raw'), 2),
        impl === 'raw' ? '1' : fixed(s.ratio(scenario.id, 'cpuUsPerCall', impl, 'raw'), 2),
        impl === 'sdk' ? '1' : fixed(s.ratio(scenario.id, 'callsPerSec', impl, 'sdk'), 2),
        impl === 'sdk' ? '1' : fixed(s.ratio(scenario.id, 'cpuUsPerCall', impl, 'sdk'), 2),
        fixed(m('serverCoreShare') * 100, 0),
      ]);
    });
  }
  return formatTable(header, rows, 2);
}

/** What McpClient.callTool adds over JsonRpcPeer.request, per scenario. */
function overheadTable(scenarios, s) {
  const header = ['scenario', 'calls/s', 'CPU/call', 'p50', 'p99'];
  const rows = scenarios.map((scenario) => [
    scenario.label,
    ...['callsPerSec', 'cpuUsPerCall', 'p50Us', 'p99Us'].map((metric) =>
      fixed(s.ratio(scenario.id, metric, 'client', 'ours'), 2),
    ),
  ]);
  return formatTable(header, rows);
}

function startupTable(s) {
  const header = [
    'impl',
    'import ms',
    'list ms',
    'list CPU ms',
    'max block ms',
    'RSS MiB',
    'RSS over bare',
    'heap over bare',
    'RSS, 20 servers',
  ];
  const rows = [...IMPLS, 'none'].map((impl) => {
    const bare = impl === 'none';
    return [
      bare ? 'bare node' : impl,
      bare ? '-' : fixed(s.startup('importMs', impl), 1),
      bare ? '-' : fixed(s.startup('listMs', impl), 0),
      bare ? '-' : fixed(s.startup('listCpuMs', impl), 0),
      bare ? '-' : fixed(s.startup('maxBlockMs', impl), 1),
      fixed(s.startupRaw('rss', impl), 1),
      bare ? '-' : `+${fixed(s.startup('rssOverBareMiB', impl), 1)}`,
      bare ? '-' : `+${fixed(s.startup('heapOverBareMiB', impl), 1)}`,
      bare ? '-' : `+${fixed(s.startup('rss20OverBareMiB', impl), 1)}`,
    ];
  });
  return formatTable(header, rows);
}

/** Evaluates every target that was measured; returns [{ name, value, pass, detail }]. */
function evaluateTargets(s) {
  return TARGETS.flatMap((target) => {
    const value = target.value(s);
    if (Number.isNaN(value)) return []; // its scenarios or the startup probes did not run
    return [
      { name: target.name, value, pass: target.pass(value, s), detail: target.show(value, s) },
    ];
  });
}

/** The CLI cold-start probe's figures (bench/cli-probe.mjs). */
function cliText(cli) {
  const row = (name, side) => [
    name,
    fixed(side.wallMs.median, 1),
    `${fixed(side.wallMs.min, 1)}-${fixed(side.wallMs.max, 1)}`,
    fixed(side.cpuMs.median, 1),
    fixed(side.maxRssMiB.median, 1),
  ];
  return [
    `CLI cold start, ${cli.rounds} fresh processes each, alternating (bench/cli-probe.mjs${cli.removedEnv.length === 0 ? '' : `; without ${cli.removedEnv.join(', ')}`}):`,
    `  cli: ${cli.commands.cli}; floor: ${cli.commands.floor}`,
    ...(cli.config === undefined
      ? []
      : [`  floor + config: ${cli.commands.config} (the floor after mcp-host's config loader)`]),
    formatTable(
      ['side', 'wall ms', 'min-max', 'CPU ms', 'peak RSS MiB', '÷ floor'],
      [
        [...row('floor', cli.floor), '1.00'],
        ...(cli.config === undefined
          ? []
          : [[...row('floor + config', cli.config), fixed(cli.configRatio.wallMs.median, 2)]]),
        [...row('mcp-host tools', cli.cli), fixed(cli.ratio.wallMs.median, 2)],
      ],
    ),
  ].join('\n');
}

function cliTargets(cli) {
  if (cli === undefined) return [];
  const { median: v, min, max } = cli.ratio.wallMs;
  return [
    {
      name: "`mcp-host --config one.json tools` within 1.5x the floor's wall time",
      value: v,
      pass: v <= 1.5,
      detail: `cli/floor ${nearLimit(v, 1.5)}x (min-max ${min.toFixed(2)}-${max.toFixed(2)}; ${cli.cli.wallMs.median.toFixed(0)} vs ${cli.floor.wallMs.median.toFixed(0)} ms; CPU ${cli.ratio.cpuMs.median.toFixed(2)}x)`,
    },
  ];
}
