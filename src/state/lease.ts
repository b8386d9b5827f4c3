/**
 * Leases: an exclusive claim on a name that is held across awaits (a network request), ends when
 * its holder releases it, and expires on its own after `ttlMs` if its holder died or hung. The
 * contract every state store that offers `lease()` keeps, and the waiting loop they share.
 *
 * A store records, per (namespace, key): a generation number, and the current holder (an opaque
 * token, when the hold ends). Granting a lease is one atomic step of the store: "if there is no
 * holder, or it expired (or is a dead process on this host), make me the holder and add one to the
 * generation". A file store does it under its file lock; a SQL store can do it in one statement
 * (`UPDATE leases SET holder = $1, generation = generation + 1, expires_at = now() + $2 WHERE name
 * = $3 AND (holder IS NULL OR expires_at < now()) RETURNING generation`) or with an advisory lock
 * plus a generation check. Waiters are woken at once by a release in the same process and poll
 * with bounded backoff otherwise.
 */
import { McpHostError } from '../errors/mcp-host-error.js';
import { onAbort } from '../internal/signals.js';

/** An exclusive claim on one (namespace, key), until released or expired. */
export interface Lease extends AsyncDisposable {
  readonly namespace: string;
  readonly key: string;
  /**
   * How many times this lease has been granted, this grant included: 1 the first time, then one
   * more at each grant, in every process sharing the store. A holder can record it with the data
   * it guards, so a later holder sees whether someone came in between.
   */
  readonly generation: number;
  /** When the lease ends unless released first (milliseconds since the epoch, this host's clock). */
  readonly expiresAt: number;
  /**
   * Aborts when the lease ends: released, or expired (then someone else may hold it). Bound the
   * work the lease guards with it, so that nothing is done under a lease that is gone.
   */
  readonly signal: AbortSignal;
  /** Whether the lease is still held: not released and not expired. */
  readonly held: boolean;
  /** Gives the lease up and wakes the next waiter. Idempotent; a no-op once it expired. */
  release(): Promise<void>;
}

export interface LeaseOptions {
  /**
   * How long the lease lasts if it is not released: the longest a crashed or hung holder can keep
   * the others waiting. Longer than the work it guards (a lease that ends mid-work aborts `signal`).
   */
  ttlMs: number;
  /** How long to wait for a lease someone else holds (default 30 s): then `STATE_LOCK_TIMEOUT`. */
  timeoutMs?: number;
  /** Stops waiting: the promise rejects with `ABORTED`, the signal's reason as `cause`. */
  signal?: AbortSignal;
}

const DEFAULT_LEASE_TIMEOUT_MS = 30_000;
/** First and largest pause between two polls of a lease held by another process. */
const LEASE_POLL_MIN_MS = 5;
const LEASE_POLL_MAX_MS = 200;

/** Throws `INVALID_ARGUMENT` for options no lease can honour; returns the wait bound. */
export function checkLeaseOptions(options: LeaseOptions): { ttlMs: number; timeoutMs: number } {
  const { ttlMs, timeoutMs = DEFAULT_LEASE_TIMEOUT_MS } = options;
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs < 1)
    throw new McpHostError('INVALID_ARGUMENT', 'lease: ttlMs must be a finite number ≥ 1');
  if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0)
    throw new McpHostError('INVALID_ARGUMENT', 'lease: timeoutMs must be a number ≥ 0');
  return { ttlMs, timeoutMs };
}

/** What one attempt to take a lease found. */
export type LeaseAttempt =
  | { granted: true; generation: number; expiresAt: number }
  | {
      granted: false;
      /** When the current hold ends at the latest (its holder's expiry). */
      expiresAt: number;
      /** The holder's pid, for the timeout message, when known. */
      holderPid?: number;
    };

/** In-process wake-ups: a release calls `notify(name)`, waiters on that name retry at once. */
export class LeaseWakeups {
  readonly #waiters = new Map<string, Set<() => void>>();

  /** Calls `wake` once at the next `notify(name)`; returns the function that stops waiting. */
  wait(name: string, wake: () => void): () => void {
    let set = this.#waiters.get(name);
    if (set === undefined) this.#waiters.set(name, (set = new Set()));
    set.add(wake);
    return () => {
      set.delete(wake);
      if (set.size === 0 && this.#waiters.get(name) === set) this.#waiters.delete(name);
    };
  }

  notify(name: string): void {
    const set = this.#waiters.get(name);
    if (set === undefined) return;
    this.#waiters.delete(name);
    for (const wake of set) wake();
  }
}

/** Aborted when the store closes: waiters then fail with `error()` (`STATE_CLOSED`). */
export interface LeaseClosing {
  signal: AbortSignal;
  error: () => Error;
}

export interface AcquireLeaseOptions {
  namespace: string;
  key: string;
  /** Where the lease is kept, for messages (`state file '…'`, `memory state`). */
  where: string;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  /** One atomic attempt to take the lease. */
  attempt: () => Promise<LeaseAttempt>;
  /** The store's close: a waiter stops with its error at once. */
  closing: LeaseClosing;
  /** The name `wakeups` is notified under when this lease is released in this process. */
  wakeName: string;
  wakeups: LeaseWakeups;
  /**
   * Whether a holder in another process may release it (then poll with backoff); false when
   * every holder is in this process (then a release always wakes us, and we sleep until expiry).
   */
  poll: boolean;
}

/**
 * Tries `attempt` until it grants the lease: after each refusal, waits for a release in this
 * process, the holder's expiry, or (when `poll`) a pause that grows from 5 ms to 200 ms, whichever
 * comes first. Fails with `STATE_LOCK_TIMEOUT` after `timeoutMs`, `ABORTED` when `signal` aborts.
 */
export async function acquireLease(
  options: AcquireLeaseOptions,
): Promise<{ generation: number; expiresAt: number }> {
  const started = Date.now();
  let pauseMs = LEASE_POLL_MIN_MS;
  for (;;) {
    if (options.closing.signal.aborted) throw options.closing.error();
    if (options.signal?.aborted === true) throw leaseAborted(options, options.signal.reason);
    const result = await options.attempt();
    if (result.granted) return result;
    const waitedMs = Date.now() - started;
    const remainingMs = options.timeoutMs - waitedMs;
    if (remainingMs <= 0)
      throw new McpHostError(
        'STATE_LOCK_TIMEOUT',
        `${options.where}: the lease '${options.namespace}/${options.key}' is held by ${result.holderPid === undefined ? 'someone else' : `process ${result.holderPid}`} and was not released within ${options.timeoutMs} ms`,
        {
          details: {
            namespace: options.namespace,
            key: options.key,
            holderPid: result.holderPid,
            waitedMs,
            leaseTimeoutMs: options.timeoutMs,
          },
        },
      );
    const untilExpiryMs = Math.max(1, result.expiresAt - Date.now() + 1);
    let sleepMs = Math.min(remainingMs, untilExpiryMs);
    if (options.poll) {
      // Jitter keeps several waiters from polling in lock step.
      sleepMs = Math.min(sleepMs, Math.max(1, Math.round(pauseMs * (0.5 + Math.random()))));
      pauseMs = Math.min(pauseMs * 2, LEASE_POLL_MAX_MS);
    }
    await sleepOrWake(options, sleepMs);
  }
}

/** Resolves after `ms`, or at a release of the lease in this process; rejects on abort or close. */
function sleepOrWake(options: AcquireLeaseOptions, ms: number): Promise<void> {
  if (options.closing.signal.aborted) return Promise.reject(options.closing.error());
  if (options.signal?.aborted === true)
    return Promise.reject(leaseAborted(options, options.signal.reason));
  return new Promise<void>((resolve, reject) => {
    const cleanups: (() => void)[] = [];
    const finish = (outcome: () => void): void => {
      clearTimeout(timer);
      for (const cleanup of cleanups.splice(0)) cleanup();
      outcome();
    };
    const timer = setTimeout(() => finish(resolve), ms);
    cleanups.push(
      options.wakeups.wait(options.wakeName, () => finish(resolve)),
      onAbort(options.signal, (reason) => finish(() => reject(leaseAborted(options, reason)))),
      onAbort(options.closing.signal, () => finish(() => reject(options.closing.error()))),
    );
  });
}

function leaseAborted(options: AcquireLeaseOptions, reason: unknown): McpHostError {
  return new McpHostError(
    'ABORTED',
    `${options.where}: waiting for the lease '${options.namespace}/${options.key}' was cancelled`,
    { cause: reason },
  );
}

/**
 * The `Lease` object handed to a holder: its signal aborts at `expiresAt` (an unref'd timer, so a
 * held lease never keeps the process alive by itself) or at release; `release` runs `give` once.
 */
export function grantedLease(
  namespace: string,
  key: string,
  generation: number,
  expiresAt: number,
  give: () => Promise<void>,
): Lease {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new McpHostError('ABORTED', `the lease '${namespace}/${key}' expired`)),
    Math.max(0, expiresAt - Date.now()),
  );
  timer.unref?.();
  let released: Promise<void> | undefined;
  const release = (): Promise<void> => {
    if (released !== undefined) return released;
    clearTimeout(timer);
    const expired = controller.signal.aborted;
    if (!expired)
      controller.abort(new McpHostError('ABORTED', `the lease '${namespace}/${key}' was released`));
    released = expired ? Promise.resolve() : give();
    return released;
  };
  return {
    namespace,
    key,
    generation,
    expiresAt,
    signal: controller.signal,
    get held() {
      return !controller.signal.aborted && Date.now() < expiresAt;
    },
    release,
    [Symbol.asyncDispose]: release,
  };
}
