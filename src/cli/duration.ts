/** `3s`, `500ms`, `1.5s`, `2m`, or a bare number of milliseconds → milliseconds. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text);
  if (match === null)
    throw new Error(`'${text}' is not a duration (write it like 3s, 500ms, 2m or 1500)`);
  const value = Number(match[1]);
  const unit = (match[2] ?? 'ms').toLowerCase();
  const factor = unit === 'h' ? 3_600_000 : unit === 'm' ? 60_000 : unit === 's' ? 1000 : 1;
  const ms = Math.round(value * factor);
  if (ms <= 0) throw new Error(`'${text}' is not a positive duration`);
  return ms;
}
