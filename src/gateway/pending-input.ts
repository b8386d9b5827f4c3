import { randomBytes } from 'node:crypto';
import { McpHostError } from '../errors/mcp-host-error.js';

/** Bounds of a `PendingInputStore`. */
export interface PendingInputOptions {
  /** Calls that may wait for their client's input at once (default 256). */
  maxPending?: number;
  /** How long one waits for the client's retry before it is given up (default 10 minutes). */
  ttlMs?: number;
}

/** The defaults of `PendingInputOptions`. */
export const DEFAULT_PENDING_INPUT_OPTIONS = Object.freeze({
  maxPending: 256,
  ttlMs: 600_000,
});

/** What a store keeps: told when it is given up (expired, or the store closed). */
export interface PendingEntry {
  /** The entry is gone for good, with why; the store holds it no more. */
  expire(reason: McpHostError): void;
}

interface Slot<T> {
  entry: T;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The modern clients' calls that answered `input_required` and wait for the retry, each under an
 * unguessable `requestState` (24 random bytes, base64url). Bounded in count (`maxPending`: a call
 * beyond it is refused with `QUEUE_FULL`, those waiting keep their place) and in time (`ttlMs`: an
 * entry not taken by then is expired, its call given up). A state is single-use: `take` removes
 * it, so a replayed or unknown state finds nothing.
 */
export class PendingInputStore<T extends PendingEntry> {
  readonly #entries = new Map<string, Slot<T>>();
  readonly #maxPending: number;
  readonly #ttlMs: number;
  #closed = false;

  constructor(options: PendingInputOptions = {}) {
    this.#maxPending = options.maxPending ?? DEFAULT_PENDING_INPUT_OPTIONS.maxPending;
    this.#ttlMs = options.ttlMs ?? DEFAULT_PENDING_INPUT_OPTIONS.ttlMs;
    for (const [key, value] of Object.entries({
      maxPending: this.#maxPending,
      ttlMs: this.#ttlMs,
    }))
      if (!Number.isSafeInteger(value) || value < 1)
        throw new McpHostError('INVALID_ARGUMENT', `${key} must be a whole number of 1 or more`, {
          details: { [key]: value },
        });
  }

  /** Entries waiting now. */
  get size(): number {
    return this.#entries.size;
  }

  /** Keeps `entry` and gives its new `requestState`; `QUEUE_FULL` at the bound or once closed. */
  put(entry: T): string {
    if (this.#closed)
      throw new McpHostError('CONNECTION_CLOSED', 'the gateway is closed: no call can wait');
    if (this.#entries.size >= this.#maxPending)
      throw new McpHostError(
        'QUEUE_FULL',
        `the gateway holds ${this.#maxPending} calls waiting for their client's input already (maxPending)`,
        { details: { maxPending: this.#maxPending } },
      );
    const state = randomBytes(24).toString('base64url');
    const timer = setTimeout(() => {
      if (this.#entries.get(state)?.entry !== entry) return;
      this.#entries.delete(state);
      entry.expire(
        new McpHostError(
          'REQUEST_TIMEOUT',
          `the call waited for its client's input longer than ${this.#ttlMs} ms and was given up`,
          { details: { ttlMs: this.#ttlMs } },
        ),
      );
    }, this.#ttlMs);
    timer.unref();
    this.#entries.set(state, { entry, timer });
    return state;
  }

  /** The entry kept under `state`, removed from the store; undefined if unknown or expired. */
  take(state: unknown): T | undefined {
    if (typeof state !== 'string') return undefined;
    const slot = this.#entries.get(state);
    if (slot === undefined) return undefined;
    this.#entries.delete(state);
    clearTimeout(slot.timer);
    return slot.entry;
  }

  /** Expires every entry with `reason` and refuses new ones. Idempotent. */
  close(reason: McpHostError): void {
    this.#closed = true;
    const slots = [...this.#entries.values()];
    this.#entries.clear();
    for (const slot of slots) {
      clearTimeout(slot.timer);
      slot.entry.expire(reason);
    }
  }
}
