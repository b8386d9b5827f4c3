/**
 * Resolves true when `promise` settles within `ms`, false when the time runs out first. The timer
 * is unref'd (it never keeps the process alive) and cleared as soon as either side wins.
 */
export function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  if (ms <= 0) return Promise.race([promise.then(() => true, () => true), Promise.resolve(false)]);
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref?.();
    const done = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    promise.then(done, done);
  });
}

/** A promise and the function that resolves it. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Resolves after `ms`; the timer is unref'd. For polling loops in library code, never in tests. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref?.();
  });
}
