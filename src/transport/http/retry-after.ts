/**
 * A `Retry-After` header value (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) in milliseconds
 * from `now`, or undefined when absent or unreadable. A date in the past means 0.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
