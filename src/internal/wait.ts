export interface WaitOptions {
  /**
   * Keep the process alive while waiting (default false: the timer is unref'd). Set it for bounded
   * waits that someone awaits, such as the steps of `close()`: otherwise a script whose last act
   * is `await close()` could exit half-way through it.
   */
  ref?: boolean;
}

/**
 * Resolves true when `promise` settles within `ms`, false when the time runs out first. The timer
 * is cleared as soon as either side wins.
 */
export function settlesWithin(
  promise: Promise<unknown>,
  ms: number,
  options: WaitOptions = {},
): Promise<boolean> {
  if (ms <= 0)
    return Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      Promise.resolve(false),
    ]);
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    if (options.ref !== true) timer.unref?.();
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

/** Resolves after `ms`. For polling loops in library code, never in tests. */
export function delay(ms: number, options: WaitOptions = {}): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (options.ref !== true) timer.unref?.();
  });
}
