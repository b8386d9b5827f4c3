/** Wall-clock time in ms, sub-millisecond, comparable with the fixtures' `now()`. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

/** Milliseconds `promise` takes to settle, and how it settled. */
export async function timed<T>(
  promise: Promise<T>,
): Promise<{ ms: number } & ({ ok: true; value: T } | { ok: false; error: unknown })> {
  const start = now();
  try {
    const value = await promise;
    return { ms: now() - start, ok: true, value };
  } catch (error) {
    return { ms: now() - start, ok: false, error };
  }
}

/** Prints a measurement for the run's log (budgets are reported, only generous bounds asserted). */
export function reportTiming(label: string, ms: number): void {
  console.log(`[timing] ${label}: ${ms.toFixed(1)} ms`);
}

/** The rejection of `promise` and when it happened; fails the test if it resolves instead. */
export async function rejectionOf(
  promise: Promise<unknown>,
): Promise<{ error: unknown; at: number }> {
  try {
    await promise;
  } catch (error) {
    return { error, at: now() };
  }
  throw new Error('expected the promise to reject, but it resolved');
}

/** When a fixture crashed, from the `[crash at=<ms>]` line it printed (in a stderr tail). */
export function crashTime(stderrTail: string): number {
  const match = /\[crash at=([\d.]+)\]/.exec(stderrTail);
  if (match === null) throw new Error(`no crash time in the stderr tail: ${stderrTail}`);
  return Number(match[1]);
}
