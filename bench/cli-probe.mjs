// The cold start of the CLI: `mcp-host --config one.json tools` on one small server against the
// floor, a plain script that spawns the same server, initialises, lists its tools and prints them
// (bench/clients/cli-floor.mjs). A third side, "floor + config", is that script reading and
// resolving the same config with mcp-host's own loader before it spawns the server: the one part
// of the CLI's work a command that connects servers cannot skip, shown so the CLI's own share
// stands apart. All talk to bench/echo-server.mjs, each run in a fresh process, the order rotating
// from round to round, after one warm-up run of each that is not counted.
//
//   npm run build && node bench/cli-probe.mjs [--rounds 9] [--server other-server.mjs]
//
// --server swaps the echo server for another stdio server script (both sides run the same one),
// e.g. one that lists no tools, to time the CLI without what the listing itself costs.
//
// Both run without NODE_EXTRA_CA_CERTS (--keep-env leaves the environment as it is). Node reads
// that bundle at start (~40 ms of CPU per process where it is set), and the two do not pass it on
// alike: the floor's server inherits the whole environment, the CLI's servers get mcp-host's short
// allow-list, so left in it slows the floor's server and not the CLI's.
//
// Per run: wall time from spawn() to the process's exit, read here; CPU time (user + system) and
// peak RSS of the measured process itself, not of the server it spawns, from
// process.resourceUsage() at its exit (bench/lib/rusage-at-exit.mjs, preloaded into both the same
// way). Prints one JSON object on stdout (median, min and max of each figure, and the ratios
// CLI/floor taken pair by pair, so that a drift of the machine's speed cancels out) and a readable
// summary on stderr. Exits 1 if a run fails (or, with the echo server, does not print its tool).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './lib/stats.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const ECHO_SERVER = here('./echo-server.mjs');
const CLI = here('../dist/cli.js');
const FLOOR = here('./clients/cli-floor.mjs');
const RUSAGE_PRELOAD = here('./lib/rusage-at-exit.mjs');
const RUN_TIMEOUT_MS = 30_000;
/** Environment variables removed for both sides unless --keep-env (see above). */
const REMOVED_ENV = ['NODE_EXTRA_CA_CERTS'];
/** The issue's target: the CLI within 1.5x the floor's wall time. */
export const CLI_WALL_RATIO_TARGET = 1.5;

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '9' },
    server: { type: 'string' },
    'keep-env': { type: 'boolean', default: false },
  },
});
const SERVER = flags.server === undefined ? ECHO_SERVER : resolve(flags.server);
/** What a run must print to count: the echo tool (any output with another server). */
const EXPECTED_OUTPUT = SERVER === ECHO_SERVER ? /\becho\b/ : /^/;
const rounds = Number(flags.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds: a whole number >= 1');
if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);

const scratch = mkdtempSync(join(tmpdir(), 'mcp-host-cli-probe-'));
try {
  const config = join(scratch, 'one.json');
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [SERVER] } } }),
  );
  const commands = {
    floor: [FLOOR, SERVER],
    config: [FLOOR, '--config', config],
    cli: [CLI, '--config', config, 'tools'],
  };
  const sides = Object.keys(commands);
  const rusageFile = join(scratch, 'rusage.jsonl');
  const env = { ...process.env, CLI_PROBE_RUSAGE_FILE: rusageFile };
  const removedEnv = flags['keep-env'] ? [] : REMOVED_ENV.filter((name) => name in env);
  for (const name of removedEnv) delete env[name];
  const run = (name) => measure(commands[name], env, rusageFile);

  for (const name of sides) await run(name);
  const runs = Object.fromEntries(sides.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = [...sides.slice(round % sides.length), ...sides.slice(0, round % sides.length)];
    for (const name of order) runs[name].push(await run(name));
  }

  const figures = ['wallMs', 'cpuMs', 'maxRssMiB'];
  const summary = (list) =>
    Object.fromEntries(figures.map((figure) => [figure, spread(list.map((r) => r[figure]))]));
  /** Each figure of one side over the floor's, taken round by round. */
  const over = (side) =>
    Object.fromEntries(
      figures.map((figure) => [
        figure,
        spread(
          runs[side].map((r, i) => r[figure] / runs.floor[i][figure]),
          2,
        ),
      ]),
    );
  const ratio = over('cli');
  const result = {
    probe: 'cli-cold-start',
    rounds,
    node: process.version,
    removedEnv,
    commands: {
      floor: `node bench/clients/cli-floor.mjs ${SERVER === ECHO_SERVER ? 'bench/echo-server.mjs' : SERVER}`,
      config: 'node bench/clients/cli-floor.mjs --config <tmp>/one.json',
      cli: `node dist/cli.js --config <tmp>/one.json tools`,
    },
    floor: summary(runs.floor),
    config: summary(runs.config),
    cli: summary(runs.cli),
    ratio,
    configRatio: over('config'),
    target: { wallRatio: CLI_WALL_RATIO_TARGET, met: ratio.wallMs.median <= CLI_WALL_RATIO_TARGET },
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  const line = (name) => {
    const { wallMs, cpuMs, maxRssMiB } = result[name];
    return `${name} wall ${wallMs.median} ms (${wallMs.min}-${wallMs.max}), cpu ${cpuMs.median} ms, rss ${maxRssMiB.median} MiB`;
  };
  process.stderr.write(
    `cli-probe, ${rounds} rounds${removedEnv.length === 0 ? '' : ` (without ${removedEnv.join(', ')})`}: ${line('floor')}; ${line('config')}; ${line('cli')}; ` +
      `floor+config/floor wall ${result.configRatio.wallMs.median}x; ` +
      `cli/floor wall ${ratio.wallMs.median}x (${ratio.wallMs.min}-${ratio.wallMs.max}), ` +
      `cpu ${ratio.cpuMs.median}x, rss ${ratio.maxRssMiB.median}x ` +
      `(target wall <= ${CLI_WALL_RATIO_TARGET}x: ${result.target.met ? 'met' : 'NOT met'})\n`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

/** Median, min and max, rounded to `digits` decimals. */
function spread(values, digits = 1) {
  const round = (value) => Number(value.toFixed(digits));
  return {
    median: round(median(values)),
    min: round(Math.min(...values)),
    max: round(Math.max(...values)),
  };
}

/** One run of `node --import rusage-at-exit.mjs ...args` in a fresh process: its figures. */
function measure(args, env, rusageFile) {
  rmSync(rusageFile, { force: true });
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', RUSAGE_PRELOAD, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text) => (stderr += text));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    let wallMs;
    child.once('exit', () => (wallMs = Number(process.hrtime.bigint() - start) / 1e6));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0 || !EXPECTED_OUTPUT.test(stdout)) {
        const why = signal === null ? `exit code ${code}` : `signal ${signal}`;
        reject(new Error(`node ${args.join(' ')} failed (${why}):\n${stderr}${stdout}`));
        return;
      }
      const usage = JSON.parse(readFileSync(rusageFile, 'utf8'));
      resolve({
        wallMs,
        cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
        maxRssMiB: usage.maxRSS / 1024,
      });
    });
  });
}
