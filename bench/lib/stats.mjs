// Small statistics helpers.

/** The q-quantile (0..1) of numbers, nearest-rank on a sorted copy. */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

export function median(values) {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The implementations in the order of one round: round r starts at index r (ABC, BCA, CAB). */
export function rotate(items, round) {
  const shift = round % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}
