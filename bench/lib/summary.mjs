// Reduces the runs of all rounds to medians and paired ratios.
import { median } from './stats.mjs';

const MIB = 1024 * 1024;

/**
 * `runs`: worker results tagged with `round`. `startupRuns`: probe results tagged with `run`.
 * Ratios pair the two implementations' figures from the same round (or fresh-process run) and
 * take the median, so drift of the machine over the run cancels out.
 */
export function summarize(runs, startupRuns) {
  const cell = (scenario, impl) => runs.filter((r) => r.scenario === scenario && r.impl === impl);
  const byRound = (scenario, impl, metric) =>
    new Map(cell(scenario, impl).map((r) => [r.round, r[metric]]));

  const startupCell = (mode, impl) => startupRuns.filter((r) => r.mode === mode && r.impl === impl);
  const startupValues = (metric, impl) => {
    if (metric === 'importMs') return startupCell('import', impl).map((r) => r.importMs);
    const bare = new Map(startupCell('memory', 'none').map((r) => [r.run, r]));
    const field = metric === 'rssOverBareMiB' ? 'rss' : 'heapUsed';
    return startupCell('memory', impl)
      .filter((r) => bare.has(r.run))
      .map((r) => (r[field] - bare.get(r.run)[field]) / MIB);
  };

  return {
    median: (scenario, metric, impl) => median(cell(scenario, impl).map((r) => r[metric])),
    ratio: (scenario, metric, a, b) => {
      const left = byRound(scenario, a, metric);
      const right = byRound(scenario, b, metric);
      const paired = [...left].filter(([round]) => right.has(round));
      return median(paired.map(([round, value]) => value / right.get(round)));
    },
    /** importMs, rssOverBareMiB or heapOverBareMiB. */
    startup: (metric, impl) => median(startupValues(metric, impl)),
    startupRaw: (field, impl) => median(startupCell('memory', impl).map((r) => r[field] / MIB)),
  };
}
