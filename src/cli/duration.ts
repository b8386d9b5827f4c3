/** The longest timer Node keeps (2^31 - 1 ms, about 24.8 days): a longer one fires at once. */
const MAX_DURATION_MS = 2 ** 31 - 1;

/**
 * `3s`, `500ms`, `1.5s`, `2m`, `1h` → milliseconds. The unit is required (a bare `5` read as
 * milliseconds timed out at once where seconds were meant), and a duration beyond what a timer
 * keeps (`MAX_DURATION_MS`) is refused rather than firing at once.
 */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text);
  if (match === null)
    throw new Error(`'${text}' is not a duration (write it like 3s, 500ms, 2m or 1h)`);
  if (match[2] === undefined)
    throw new Error(
      `'${text}' has no unit: write ${match[1]}ms, ${match[1]}s, ${match[1]}m or ${match[1]}h`,
    );
  const value = Number(match[1]);
  const unit = match[2].toLowerCase();
  const factor = unit === 'h' ? 3_600_000 : unit === 'm' ? 60_000 : unit === 's' ? 1000 : 1;
  const ms = Math.round(value * factor);
  if (ms <= 0) throw new Error(`'${text}' is not a positive duration`);
  if (ms > MAX_DURATION_MS)
    throw new Error(
      `'${text}' is longer than the longest timer (${MAX_DURATION_MS} ms, 24.8 days)`,
    );
  return ms;
}
