/**
 * Abort-signal plumbing in one place: a listener that is removed again, signals linked with a
 * cleanup, a promise raced against a signal, an abortable wait. Every helper removes what it
 * added (no listener outlives the operation it served) and adds at most one listener per signal.
 */

/**
 * Calls `listener` with the signal's reason once `signal` aborts (at once, synchronously, when it
 * has already); returns the function that removes the listener (a no-op once it ran).
 */
export function onAbort(
  signal: AbortSignal | undefined,
  listener: (reason: unknown) => void,
): () => void {
  if (signal === undefined) return noop;
  if (signal.aborted) {
    listener(signal.reason);
    return noop;
  }
  const handler = (): void => listener(signal.reason);
  signal.addEventListener('abort', handler, { once: true });
  return () => signal.removeEventListener('abort', handler);
}

/** A signal and the function that unlinks it from its sources (idempotent). */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Removes the listeners on the sources; the linked signal stays as it is. */
  cleanup(): void;
}

/**
 * A signal that aborts, with the first source's reason, as soon as any source does (`undefined`
 * sources are skipped). Unlike `AbortSignal.any` it holds one listener per source only until
 * `cleanup()`, so a long-lived source (a client's close signal) does not keep every request's
 * signal alive.
 */
export function linkSignals(...sources: (AbortSignal | undefined)[]): LinkedSignal {
  const controller = new AbortController();
  const removers: (() => void)[] = [];
  const cleanup = (): void => {
    for (const remove of removers.splice(0)) remove();
  };
  for (const source of sources) {
    if (source === undefined) continue;
    if (source.aborted) {
      controller.abort(source.reason);
      cleanup();
      break;
    }
    removers.push(
      onAbort(source, (reason) => {
        controller.abort(reason);
        cleanup();
      }),
    );
  }
  return { signal: controller.signal, cleanup };
}

/**
 * A signal that aborts after `ms` with the reason `reason()` makes, and the cleanup that clears
 * its timer. The timer keeps the process alive: someone awaits what the deadline bounds.
 */
export function deadlineSignal(ms: number, reason: () => unknown): LinkedSignal {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(reason()), ms);
  return { signal: controller.signal, cleanup: () => clearTimeout(timer) };
}

/**
 * Settles as `promise` does, or rejects with `toError(reason)` (the reason itself by default) as
 * soon as `signal` aborts, whichever comes first; the listener is removed either way.
 */
export function raceSignal<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  toError: (reason: unknown) => Error = asError,
): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    const remove = onAbort(signal, (reason) => reject(toError(reason)));
    promise.then(
      (value) => {
        remove();
        resolve(value);
      },
      (error: Error) => {
        remove();
        reject(error);
      },
    );
  });
}

/**
 * Resolves after `ms`, or rejects with `toError(reason)` as soon as `signal` aborts; the timer and
 * the listener are cleared either way. The timer keeps the process alive (someone awaits it).
 */
export function abortableDelay(
  ms: number,
  signal: AbortSignal | undefined,
  toError: (reason: unknown) => Error = asError,
): Promise<void> {
  if (signal?.aborted === true) return Promise.reject(toError(signal.reason));
  return new Promise<void>((resolve, reject) => {
    const remove = onAbort(signal, (reason) => {
      clearTimeout(timer);
      reject(toError(reason));
    });
    const timer = setTimeout(() => {
      remove();
      resolve();
    }, ms);
  });
}

function noop(): void {}

/** An abort reason as the rejection it becomes (a signal's reason is an Error unless someone chose otherwise). */
function asError(reason: unknown): Error {
  return reason as Error;
}
