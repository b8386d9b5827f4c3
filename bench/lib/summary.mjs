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
  const startupValues = (metric, impl) => [...startupByRun(metric, impl).values()];
  /** A startup figure per fresh-process run. */
  const startupByRun = (metric, impl) => {
    if (metric === 'importMs')
      return new Map(startupCell('import', impl).map((r) => [r.run, r.importMs]));
    if (LIST_METRICS.includes(metric))
      return new Map(startupCell('list', impl).map((r) => [r.run, r[metric]]));
    const mode = metric.startsWith('rss20') || metric.startsWith('heap20') ? 'memory20' : 'memory';
    const bare = new Map(startupCell('memory', 'none').map((r) => [r.run, r]));
    const field = metric.startsWith('rss') ? 'rss' : 'heapUsed';
    return new Map(
      startupCell(mode, impl)
        .filter((r) => bare.has(r.run))
        .map((r) => [r.run, (r[field] - bare.get(r.run)[field]) / MIB]),
    );
  };
  /** `combine(a, b)` of the figures two maps hold for the same round or run. */
  const paired = (left, right, combine) =>
    [...left]
      .filter(([key]) => right.has(key))
      .map(([key, value]) => combine(value, right.get(key)));
  const ratio = (a, b) => a / b;
  const pairedRatios = (left, right) => paired(left, right, ratio);

  return {
    median: (scenario, metric, impl) => median(cell(scenario, impl).map((r) => r[metric])),
    ratio: (scenario, metric, a, b) =>
      median(pairedRatios(byRound(scenario, a, metric), byRound(scenario, b, metric))),
    /** The same-round ratios' median, minimum and maximum. */
    ratioRange: (scenario, metric, a, b) =>
      range(pairedRatios(byRound(scenario, a, metric), byRound(scenario, b, metric))),
    /** Same-round differences a - b: median, minimum and maximum. */
    differenceRange: (scenarioA, a, scenarioB, b, metric) =>
      range(
        paired(
          byRound(scenarioA, a, metric),
          byRound(scenarioB, b, metric),
          (left, right) => left - right,
        ),
      ),
    /** Same-round ratios across two scenarios (a's metric in scenarioA over b's in scenarioB). */
    crossRatioRange: (scenarioA, a, scenarioB, b, metric) =>
      range(pairedRatios(byRound(scenarioA, a, metric), byRound(scenarioB, b, metric))),
    /** importMs, listMs, listCpuMs, maxBlockMs, rssOverBareMiB, heapOverBareMiB, rss20OverBareMiB. */
    startup: (metric, impl) => median(startupValues(metric, impl)),
    startupRange: (metric, impl) => range(startupValues(metric, impl)),
    /** Ratios of a startup figure between two implementations, paired by fresh-process run. */
    startupRatioRange: (metric, a, b) =>
      range(pairedRatios(startupByRun(metric, a), startupByRun(metric, b))),
    startupRaw: (field, impl) => median(startupCell('memory', impl).map((r) => r[field] / MIB)),
  };
}

const LIST_METRICS = ['listMs', 'listCpuMs', 'maxBlockMs', 'connectedMs'];

/** Median, minimum and maximum (NaN for none). */
function range(values) {
  return values.length === 0
    ? { median: NaN, min: NaN, max: NaN }
    : { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}
