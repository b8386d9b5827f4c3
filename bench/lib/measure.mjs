// Runs the measurements: startup probes and scenario workers, each in a fresh process.
import { fileURLToPath } from 'node:url';
import { IMPLS, implsOf } from '../config.mjs';
import { reapServer, runNodeJson } from './child.mjs';
import { rotate } from './stats.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const progress = (text) => process.stderr.write(`${text}\n`);

/** Runs of the 20-server memory probe (each starts 20 servers per implementation). */
const MEMORY20_RUNS = 3;
/**
 * Fresh processes per implementation behind each run's timed figures (the median of them): one
 * 40-60 ms figure of a fresh process moves by several milliseconds from one process to the next
 * (with 5, the client's listing ratio to raw moved by 0.05 between runs of one build).
 */
const TIMED_SAMPLES = 7;

/**
 * Import time, import + connect + listing, and memory (one server, and 20 in the first
 * `MEMORY20_RUNS` runs) of every implementation, and a bare node's memory, `runs` times each.
 */
export async function measureStartup(runs, leaks) {
  const results = [];
  const probe = async (mode, impl) => {
    const result = await runNodeJson(here('../startup-probe.mjs'), [mode, impl]);
    for (const pid of result.serverPids ?? [result.serverPid]) {
      if (await reapServer(pid)) leaks.push({ mode, impl, pid });
    }
    return result;
  };
  for (let run = 0; run < runs; run++) {
    // The timed probes first, every implementation in turn, `TIMED_SAMPLES` times round, each
    // run keeping the median sample of each; then the memory probes: a timed probe never follows
    // one that has just started (and stopped) 20 servers.
    for (const [mode, metric] of [
      ['import', 'importMs'],
      ['list', 'listMs'],
    ]) {
      const samples = new Map(IMPLS.map((impl) => [impl, []]));
      for (let sample = 0; sample < TIMED_SAMPLES; sample++)
        for (const impl of rotate(IMPLS, run + sample))
          samples.get(impl).push(await probe(mode, impl));
      for (const [impl, taken] of samples) {
        const sorted = taken.sort((a, b) => a[metric] - b[metric]);
        results.push({ ...sorted[sorted.length >> 1], mode, run, impl });
      }
    }
    for (const impl of rotate(['none', ...IMPLS], run)) {
      const modes =
        impl === 'none' ? ['memory'] : ['memory', ...(run < MEMORY20_RUNS ? ['memory20'] : [])];
      for (const mode of modes) results.push({ ...(await probe(mode, impl)), mode, run });
    }
    progress(`startup run ${run + 1}/${runs} done`);
  }
  return results;
}

/**
 * Every scenario for every implementation, the order rotated each round: `roundsOf(scenario)`
 * rounds each (HTTP scenarios run in fewer rounds than stdio ones).
 */
export async function measureScenarios(scenarios, roundsOf, pinCpu, leaks) {
  const results = [];
  const rounds = Math.max(...scenarios.map(roundsOf));
  const total = scenarios.reduce((sum, s) => sum + roundsOf(s) * implsOf(s).length, 0);
  for (let round = 0; round < rounds; round++) {
    for (const scenario of scenarios) {
      if (round >= roundsOf(scenario)) continue;
      for (const [position, impl] of rotate(implsOf(scenario), round).entries()) {
        const { inFlight, calls, warmup, size, transport, sse } = scenario;
        const spec = { impl, transport, sse, scenario: scenario.id, inFlight, calls, warmup, size };
        const result = await runNodeJson(here('../worker.mjs'), [JSON.stringify(spec)], {
          pinCpu: scenario.pin ? pinCpu : undefined,
        });
        if (await reapServer(result.serverPid)) {
          leaks.push({ scenario: scenario.id, impl, pid: result.serverPid });
        }
        results.push({ ...result, round, position });
        progress(
          `[${results.length}/${total}] round ${round + 1} ${scenario.id.padEnd(5)} ${impl.padEnd(6)}` +
            ` ${Math.round(result.callsPerSec).toLocaleString('en-US').padStart(9)} calls/s` +
            `  p50 ${result.p50Us.toFixed(1)} µs  CPU ${result.cpuUsPerCall.toFixed(2)} µs/call`,
        );
      }
    }
  }
  return results;
}
