// The stdio and Streamable HTTP benchmark: ours vs the official SDK client vs a raw floor, in one
// run.
//
//   npm run bench                 (builds dist/, then: node bench/run.mjs)
//   node bench/run.mjs --quick    a short run (fewer calls and rounds) for a smoke test
//   node bench/run.mjs --only http   only the HTTP scenarios (--only stdio: only stdio + startup)
//   node bench/run.mjs --only host   only McpHost: routing overhead, listing, 20 stdio connects
//   node bench/run.mjs --only gateway   only the gateway: added latency and calls/s over direct
//   node bench/run.mjs --only capacity  only one replica's capacity: memory per backend, session
//                                        and view; calls/s; growth to 1,000 backends
//   node bench/run.mjs --rounds 3 --out /tmp/result.json
//   node bench/run.mjs --from bench/results/<file>.json   print a saved run's report again
//   node bench/run.mjs --help     this text
//
// Every (implementation, scenario) runs in a fresh Node process (bench/worker.mjs) against the
// same echo server (bench/echo-server.mjs, or bench/http-echo-server.mjs over HTTP); each round rotates the order of the implementations.
// Startup costs come from bench/startup-probe.mjs, the host's figures from bench/host-worker.mjs.
// Prints tables and a PASS/FAIL line per target,
// and writes everything to bench/results/<timestamp>.json.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  CAPACITY_FULL_ROUNDS,
  CAPACITY_QUICK_ROUNDS,
  capacityPlan,
  FULL_ROUNDS,
  FULL_STARTUP_RUNS,
  GATEWAY_FULL_ROUNDS,
  GATEWAY_QUICK_ROUNDS,
  gatewayScenarios,
  HOST_FULL_ROUNDS,
  HOST_QUICK_ROUNDS,
  HTTP_FULL_ROUNDS,
  QUICK_ROUNDS,
  QUICK_STARTUP_RUNS,
  SUITES,
  hostMeasurements,
  scenarios as scenariosFor,
  transportOf,
} from './config.mjs';
import { measureCapacity } from './lib/capacity.mjs';
import { measureGateway } from './lib/gateway.mjs';
import { measureHost } from './lib/host.mjs';
import { runNodeJson } from './lib/child.mjs';
import { measureScenarios, measureStartup } from './lib/measure.mjs';
import { renderReport } from './lib/report.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    out: { type: 'string' },
    from: { type: 'string' },
    only: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (flags.help) {
  // The usage is this file's opening comment, up to the paragraph on how it measures.
  const source = readFileSync(here('./run.mjs'), 'utf8').split('\n');
  const end = source.findIndex((line) => line.startsWith('// Every'));
  console.log(
    source
      .slice(0, end)
      .map((line) => line.replace(/^\/\/ ?/, ''))
      .join('\n'),
  );
} else if (flags.from !== undefined) {
  console.log(renderReport(JSON.parse(readFileSync(flags.from, 'utf8'))).text);
} else {
  await measureAndReport();
}

async function measureAndReport() {
  // Node reads NODE_EXTRA_CA_CERTS at every start (~40 ms of CPU here), and the sides do not pass
  // it on alike: a raw script's server inherits the whole environment, mcp-host's servers get its
  // short allow-list. Left in, it slows the floors' servers and not ours. Every process this run
  // starts (workers, probes, servers) runs without it, as bench/cli-probe.mjs's do.
  if (process.env.NODE_EXTRA_CA_CERTS !== undefined) {
    delete process.env.NODE_EXTRA_CA_CERTS;
    console.error('(running without NODE_EXTRA_CA_CERTS: see bench/run.mjs)');
  }
  if (!existsSync(here('../dist/index.js')) || !existsSync(here('../dist/stdio.js'))) {
    console.error('dist/ is missing: run `npm run build` first (or `npm run bench`, which does).');
    process.exit(1);
  }
  const only = flags.only === undefined ? SUITES : flags.only.split(',');
  if (only.some((suite) => !SUITES.includes(suite))) {
    console.error(`--only takes ${SUITES.join(', ')} (or several, comma-separated)`);
    process.exit(1);
  }
  const quick = flags.quick;
  const rounds =
    flags.rounds === undefined ? (quick ? QUICK_ROUNDS : FULL_ROUNDS) : Number(flags.rounds);
  const httpRounds =
    flags.rounds === undefined && !quick ? Math.min(rounds, HTTP_FULL_ROUNDS) : rounds;
  const roundsOf = (scenario) => (transportOf(scenario) === 'http' ? httpRounds : rounds);
  const startupRuns = only.includes('stdio') ? (quick ? QUICK_STARTUP_RUNS : FULL_STARTUP_RUNS) : 0;
  const scenarios = scenariosFor(quick, only);
  const cpus = os.cpus();
  const pinCpu = process.platform === 'linux' && cpus.length > 1 ? cpus.length - 1 : null;
  const started = new Date();
  // The machine's load average (1, 5, 15 min) before and after: the figures are only as good as
  // the machine was quiet.
  const loadBefore = os.loadavg();
  const leaks = [];

  const startupResults = await measureStartup(startupRuns, leaks);
  // The CLI's cold start against its floor (bench/cli-probe.mjs), with the startup probes: five
  // pairs of fresh processes per round (a ~110 ms figure moves by 5-10 ms from one process to
  // the next; the ratio's median over 3 pairs alone moved by 0.15 from run to run, over 9 pairs
  // by 0.08: 1.44 to 1.52 for one build).
  const cli =
    startupRuns === 0
      ? undefined
      : await runNodeJson(here('./cli-probe.mjs'), ['--rounds', String(Math.max(15, 5 * rounds))]);
  const runs = await measureScenarios(scenarios, roundsOf, pinCpu ?? undefined, leaks);
  const hostRounds = !only.includes('host')
    ? 0
    : flags.rounds === undefined
      ? quick
        ? HOST_QUICK_ROUNDS
        : HOST_FULL_ROUNDS
      : Number(flags.rounds);
  const host =
    hostRounds === 0 ? [] : await measureHost(hostMeasurements(quick), hostRounds, leaks);
  const gatewayRounds = !only.includes('gateway')
    ? 0
    : flags.rounds === undefined
      ? quick
        ? GATEWAY_QUICK_ROUNDS
        : GATEWAY_FULL_ROUNDS
      : Number(flags.rounds);
  const gateway =
    gatewayRounds === 0
      ? undefined
      : await measureGateway(gatewayScenarios(quick), gatewayRounds, leaks);
  const capacityRounds = !only.includes('capacity')
    ? 0
    : flags.rounds === undefined
      ? quick
        ? CAPACITY_QUICK_ROUNDS
        : CAPACITY_FULL_ROUNDS
      : Number(flags.rounds);
  const capacity =
    capacityRounds === 0
      ? undefined
      : await measureCapacity(capacityPlan(quick), capacityRounds, leaks);

  const record = {
    date: started.toISOString(),
    durationS: (Date.now() - started.getTime()) / 1000,
    machine: {
      node: process.version,
      platform: `${os.platform()} ${os.arch()}`,
      cpus: cpus.length,
      cpuModel: cpus[0]?.model ?? '?',
      totalMemMiB: Math.round(os.totalmem() / 1024 / 1024),
    },
    sourceRevision: gitRevision(),
    config: {
      quick,
      only,
      rounds,
      httpRounds,
      startupRuns,
      hostRounds,
      gatewayRounds,
      gatewayScenarios: gatewayRounds === 0 ? [] : gatewayScenarios(quick),
      capacityRounds,
      capacityPlan: capacityRounds === 0 ? undefined : capacityPlan(quick),
      pinCpu,
      sdkVersion: sdkVersion(),
      scenarios,
    },
    leaks,
    runs,
    startupRuns: startupResults,
    cli,
    host,
    gateway,
    capacity,
    load: { before: loadBefore, after: os.loadavg() },
  };
  const { text, targets, summary } = renderReport(record);
  console.log(`\n${text}`);

  const outPath = flags.out ?? here(`./results/${record.date.replace(/[:.]/g, '-')}.json`);
  mkdirSync(here('./results/'), { recursive: true });
  writeFileSync(outPath, `${JSON.stringify({ ...record, targets, summary }, null, 2)}\n`);
  process.stderr.write(`\nResults written to ${outPath} (${record.durationS.toFixed(0)} s)\n`);
}

function sdkVersion() {
  const path = here('../node_modules/@modelcontextprotocol/sdk/package.json');
  return JSON.parse(readFileSync(path, 'utf8')).version;
}

/** The commit measured, with `+dirty` when src/ has uncommitted changes. */
function gitRevision() {
  try {
    const git = (...args) =>
      execFileSync('git', args, { cwd: here('..'), encoding: 'utf8' }).trim();
    const dirty = git('status', '--porcelain', '--', 'src') !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? '+dirty' : ''}`;
  } catch {
    return 'unknown';
  }
}
