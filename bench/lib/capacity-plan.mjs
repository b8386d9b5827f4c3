// Pure helpers of the capacity benchmark (no I/O): the names the replica gives its backends and
// views, and the search for the step at which p99 latency passes a multiple of its first value.

/** The name of backend `i` (b0000, b0001, ...): its tools are exposed as mcp__b0000__echo, ... */
export const backendName = (i) => `b${String(i).padStart(4, '0')}`;

/** The name of view `i` (view_0000, ...), served at `/mcp/view_0000`. */
export const viewName = (i) => `view_${String(i).padStart(4, '0')}`;

/**
 * Where p99 latency first passes `factor` times its value at the first (smallest) step.
 * `steps` are `{ at, p99Us }` (at: backends or sessions), in any order. Returns `{ baselineUs,
 * limitUs, at, upTo }`: `at` is the smallest step whose p99 is over `limitUs` (undefined when
 * none is: "not reached up to `upTo`", the largest step measured). Steps without a finite p99
 * (not measured) are left out; with none left, `baselineUs` is NaN and `at` undefined.
 */
export function p99Crossing(steps, factor = 2) {
  const measured = steps.filter((step) => Number.isFinite(step.p99Us)).sort((a, b) => a.at - b.at);
  const first = measured[0];
  if (first === undefined) return { baselineUs: NaN, limitUs: NaN, at: undefined, upTo: 0 };
  const limitUs = first.p99Us * factor;
  const crossed = measured.find((step) => step.p99Us > limitUs);
  return {
    baselineUs: first.p99Us,
    limitUs,
    at: crossed?.at,
    upTo: measured[measured.length - 1].at,
  };
}

/** "p99 passes 2x its 1-backend value at 100" or "not reached up to 1,000". */
export function describeCrossing(crossing, unit) {
  if (crossing.at !== undefined)
    return `at ${crossing.at.toLocaleString('en-US')} ${unit} (p99 over ${Math.round(crossing.limitUs).toLocaleString('en-US')} µs)`;
  return `not reached up to ${crossing.upTo.toLocaleString('en-US')} ${unit}`;
}
