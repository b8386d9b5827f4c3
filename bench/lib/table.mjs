// Plain-text tables: the first `leftColumns` columns left-aligned, the others right-aligned.

export function formatTable(header, rows, leftColumns = 1) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells) =>
    cells.map((c, i) => (i < leftColumns ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export function fixed(value, digits) {
  if (!Number.isFinite(value)) return '-';
  return value.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/**
 * `value` with `digits` decimals against a target `limit`, or with as many more as it takes (up to
 * four) not to show the limit itself: 1.302 against 1.3 reads "1.302", which fails, not "1.30".
 */
export function nearLimit(value, limit, digits = 2) {
  let shown = value.toFixed(digits);
  for (let more = 1; more <= 4 && value !== limit && Number(shown) === limit; more++)
    shown = value.toFixed(digits + more);
  return shown;
}
