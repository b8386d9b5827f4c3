/**
 * The peak resident set size while `promise` is pending, sampled on every event-loop turn (where
 * the reads of a pipe happen), without timers.
 */
export async function peakRssWhile<T>(
  promise: Promise<T>,
): Promise<{ peakRss: number; result: PromiseSettledResult<T> }> {
  let peakRss = process.memoryUsage.rss();
  let done = false;
  const sample = (): void => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    if (!done) setImmediate(sample);
  };
  setImmediate(sample);
  const [result] = await Promise.allSettled([promise]);
  done = true;
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  return { peakRss, result };
}

export const MiB = 1024 * 1024;
