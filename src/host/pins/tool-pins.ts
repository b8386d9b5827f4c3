/**
 * Tool pinning, the defence against a "rug pull": a server whose tools are trusted once and then
 * quietly change what they say or take. Platform-neutral.
 *
 * Each tool's behaviour-relevant definition (`pinnedDefinition`: name, title, description,
 * inputSchema, outputSchema, annotations; never `_meta`) has a pin: the SHA-256 of its RFC 8785
 * canonical JSON. `ToolPins` keeps, per server identity (`serverIdentity().key`), the pinned
 * definitions themselves (so a later change can be shown as a diff) in the state store, namespace
 * `pins`, and reviews every listing against them:
 *
 * - the first listing of an identity is pinned whole (trust on first use: a fresh host works);
 * - an unchanged tool is allowed;
 * - a changed tool is quarantined (the host hides it and refuses calls with `TOOL_QUARANTINED`,
 *   see `quarantinedError`) until `approve()` pins its new definition, or the policy approves it;
 * - a new tool is pinned and allowed under `trust-on-first-use`, held under `strict`;
 * - a removed tool keeps its pin (the hash alone), marked removed: if it comes back with another definition it is
 *   quarantined as changed instead of being trusted again as new (remove-then-re-add would
 *   otherwise launder any change under trust on first use). At most `maxRemovedPins` removed
 *   pins are kept per identity, the oldest dropped first, so renaming tools cannot grow the state
 *   without bound.
 *
 * A quarantined definition is stored too (as pending), so `approve()` works from any process that
 * shares the store (a command line beside a running host), and `approve(…, { pin })` pins only the
 * definition that was shown to whoever approved it.
 *
 * Concurrency: reviews and approvals of one identity by one `ToolPins` run one after another (a
 * policy never sees the same change twice). Every write is one `store.update` that re-checks the
 * stored pins it builds on; if another `ToolPins` or process changed them since they were read,
 * the review starts again (at most `MAX_REVIEW_ATTEMPTS` times; after that, any tool whose pin
 * moved again is quarantined, which is the safe side). No pin is ever lost to a race.
 */
import { McpHostError } from '../../errors/mcp-host-error.js';
import { Emitter } from '../../internal/emitter.js';
import type { Disposable } from '../../internal/disposable.js';
import { silentLogger, type Logger } from '../../internal/logger.js';
import type { Tool } from '../../protocol/types.js';
import { canonicalJson } from '../../state/canonical-json.js';
import { sha256Hex } from '../../state/sha256.js';
import type { StateStore } from '../../state/state-store.js';
import {
  diffStored,
  PINS_NAMESPACE,
  readRecord,
  storedDiffBase,
  writeRecord,
  type StoredPins,
} from './pin-record.js';
import {
  applyReview,
  askPolicy,
  decideListing,
  emptyOutcome,
  hashListing,
  isSteady,
  REVIEW_CONFLICT,
  type ReviewOutcome,
} from './pin-review.js';
import type { PinDecision, PinEvent, PinPolicy, PinRecord, PinReview } from './pin-types.js';
import { pinnedDefinition, type PinnedDefinition } from './tool-diff.js';

/** Default of `maxRemovedPins`. */
export const DEFAULT_MAX_REMOVED_PINS = 1_000;
/** Default of `maxDefinitionChars`: definitions longer than this are pinned by hash only. */
export const DEFAULT_MAX_DEFINITION_CHARS = 256 * 1024;
/** Default of `maxListingChars`. */
export const DEFAULT_MAX_LISTING_CHARS = 4 * 1024 * 1024;
/** How often a review is retried when another writer changed the same pins meanwhile. */
export const MAX_REVIEW_ATTEMPTS = 4;

/** The pin of a tool: SHA-256 (hex) of the canonical JSON of its `pinnedDefinition`. */
export async function toolPin(tool: Tool | PinnedDefinition): Promise<string> {
  return sha256Hex(canonicalJson(pinnedDefinition(tool)));
}

export interface ToolPinsOptions {
  /** Where pins live (namespace `pins`, one key per server identity). */
  store: StateStore;
  /** Default `trust-on-first-use`. */
  policy?: PinPolicy;
  /** Removed tools whose pins are kept per identity (default 1,000, the oldest dropped first). */
  maxRemovedPins?: number;
  /**
   * A definition whose canonical JSON is longer than this is pinned by its hash alone; a change
   * to it is still caught, but shown without a diff (default 256 Ki characters).
   */
  maxDefinitionChars?: number;
  /**
   * The definitions of one listing kept beyond this many characters in all (in listing order) are
   * pinned by hash alone, so a server cannot grow the state without bound (default 4 Mi
   * characters). Removed tools keep their pins by hash alone.
   */
  maxListingChars?: number;
  /** Receives policy failures and listener errors. Default: silent. */
  logger?: Logger;
  /** The clock, for tests. */
  now?: () => Date;
}

/** Reviews tool listings against their pins; see the file comment. */
export class ToolPins {
  readonly #store: StateStore;
  readonly #policy: PinPolicy;
  readonly #maxRemovedPins: number;
  readonly #maxDefinitionChars: number;
  readonly #maxListingChars: number;
  readonly #logger: Logger;
  readonly #now: () => Date;
  readonly #events: Emitter<PinEvent>;
  /** The tail of the work queued per identity. */
  readonly #queues = new Map<string, Promise<unknown>>();

  /** Every pin made, tool quarantined and tool removed, with its diff. */
  readonly onEvent: (listener: (event: PinEvent) => void) => Disposable;

  constructor(options: ToolPinsOptions) {
    if (typeof options?.store?.update !== 'function')
      throw new McpHostError('INVALID_ARGUMENT', 'ToolPins: store must be a StateStore');
    const policy = options.policy ?? 'trust-on-first-use';
    if (
      policy !== 'trust-on-first-use' &&
      policy !== 'strict' &&
      typeof (policy as { decide?: unknown })?.decide !== 'function'
    )
      throw new McpHostError(
        'INVALID_ARGUMENT',
        "ToolPins: policy must be 'trust-on-first-use', 'strict' or an object with decide()",
      );
    this.#store = options.store;
    this.#policy = policy;
    this.#maxRemovedPins = checkCount(
      'maxRemovedPins',
      options.maxRemovedPins,
      DEFAULT_MAX_REMOVED_PINS,
    );
    this.#maxDefinitionChars = checkCount(
      'maxDefinitionChars',
      options.maxDefinitionChars,
      DEFAULT_MAX_DEFINITION_CHARS,
    );
    this.#maxListingChars = checkCount(
      'maxListingChars',
      options.maxListingChars,
      DEFAULT_MAX_LISTING_CHARS,
    );
    this.#logger = options.logger ?? silentLogger;
    this.#now = options.now ?? (() => new Date());
    this.#events = new Emitter<PinEvent>((error) =>
      this.#logger.error('tool pins: an event listener threw', { error: String(error) }),
    );
    this.onEvent = this.#events.event;
  }

  /**
   * Reviews a server's listing against its pins, records the outcome (new pins, pending
   * definitions, removals) in one atomic update, and says which tools may be used.
   */
  async review(identity: string, tools: readonly Tool[]): Promise<PinReview> {
    checkIdentity(identity);
    if (!Array.isArray(tools))
      throw new McpHostError('INVALID_ARGUMENT', 'ToolPins.review: tools must be an array');
    return this.#queue(identity, () => this.#review(identity, tools));
  }

  /**
   * Pins the quarantined definition of `toolName`, so the next review allows it. With `pin`, only
   * if that is the held definition's pin (the one that was shown); approving a definition that is
   * already pinned with that pin does nothing. Throws `INVALID_ARGUMENT` when nothing (or another
   * definition) is held. Resolves to the pin now in force.
   */
  async approve(
    identity: string,
    toolName: string,
    options: { pin?: string } = {},
  ): Promise<string> {
    checkIdentity(identity);
    return this.#queue(identity, async () => {
      let event: PinEvent | undefined;
      let result = '';
      await this.#store.update<StoredPins>(PINS_NAMESPACE, identity, (current) => {
        const record = readRecord(current, identity);
        const entry = record.tools.get(toolName);
        const pending = entry?.pending;
        if (pending !== undefined && (options.pin === undefined || options.pin === pending.pin)) {
          const before =
            entry?.pin === undefined ? undefined : storedDiffBase(entry.pin, entry.definition);
          record.tools.set(toolName, {
            pin: pending.pin,
            ...(pending.definition === undefined ? {} : { definition: pending.definition }),
            pinnedAt: this.#now().toISOString(),
          });
          result = pending.pin;
          event = {
            type: 'pinned',
            identity,
            tool: toolName,
            pin: pending.pin,
            reason: 'approved',
            ...(before === undefined ? {} : { diff: diffStored(before, pending) }),
          };
          return writeRecord(record);
        }
        if (pending === undefined && entry?.pin !== undefined && options.pin === entry.pin) {
          result = entry.pin;
          return current;
        }
        throw new McpHostError(
          'INVALID_ARGUMENT',
          pending === undefined
            ? `ToolPins.approve: tool '${toolName}' of '${identity}' is not quarantined`
            : `ToolPins.approve: the quarantined definition of tool '${toolName}' of '${identity}' is not the one approved (its pin is ${pending.pin})`,
          { tool: toolName, details: { identity, pin: pending?.pin, expectedPin: options.pin } },
        );
      });
      if (event !== undefined) this.#events.fire(event);
      return result;
    });
  }

  /** What is stored for an identity, tool by tool (sorted by name). */
  async entries(identity: string): Promise<PinRecord[]> {
    checkIdentity(identity);
    const record = readRecord(
      await this.#store.get<StoredPins>(PINS_NAMESPACE, identity),
      identity,
    );
    return [...record.tools]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, entry]) => ({
        name,
        pin: entry.pin,
        pinnedAt: entry.pinnedAt,
        removedAt: entry.removedAt,
        pending:
          entry.pending === undefined
            ? undefined
            : { pin: entry.pending.pin, reason: entry.pending.reason, since: entry.pending.since },
      }));
  }

  /** Forgets every pin of an identity: its next listing is a first listing again. */
  async forget(identity: string): Promise<void> {
    checkIdentity(identity);
    return this.#queue(identity, () => this.#store.delete(PINS_NAMESPACE, identity));
  }

  /** Runs `task` after everything queued before it for the same identity. */
  #queue<R>(identity: string, task: () => Promise<R>): Promise<R> {
    const run = (this.#queues.get(identity) ?? Promise.resolve()).then(task);
    const tail = run.then(
      () => {},
      () => {},
    );
    this.#queues.set(identity, tail);
    void tail.then(() => {
      if (this.#queues.get(identity) === tail) this.#queues.delete(identity);
    });
    return run;
  }

  async #review(identity: string, tools: readonly Tool[]): Promise<PinReview> {
    const { listed, invalid } = await hashListing(tools, {
      maxDefinitionChars: this.#maxDefinitionChars,
      maxListingChars: this.#maxListingChars,
    });
    const decisions = new Map<string, PinDecision>();
    for (let attempt = 1; ; attempt++) {
      const final = attempt >= MAX_REVIEW_ATTEMPTS;
      const stored = readRecord(
        await this.#store.get<StoredPins>(PINS_NAMESPACE, identity),
        identity,
      );
      let outcome: Omit<ReviewOutcome, 'record'> | undefined;
      if (isSteady(stored, listed, invalid)) {
        // Nothing to record (the common case): no write, and for a file store no lock.
        outcome = { ...emptyOutcome(), allowed: listed.map(({ tool }) => tool) };
      } else {
        await decideListing(identity, stored, listed, decisions, (kind, change) =>
          askPolicy(this.#policy, this.#logger, kind, change),
        );
        try {
          await this.#store.update<StoredPins>(PINS_NAMESPACE, identity, (current) => {
            const record = readRecord(current, identity);
            const applied = applyReview(identity, record, listed, invalid, decisions, final, {
              now: this.#now().toISOString(),
              maxRemovedPins: this.#maxRemovedPins,
            });
            outcome = applied;
            return applied.record;
          });
        } catch (error) {
          if (error === REVIEW_CONFLICT) continue;
          throw error;
        }
      }
      const result = outcome!;
      for (const held of invalid) {
        result.quarantined.push(held);
        result.events.push({
          type: 'quarantined',
          identity,
          tool: held.tool.name,
          pin: undefined,
          reason: 'invalid',
          diff: held.diff,
        });
      }
      for (const event of result.events) this.#events.fire(event);
      return {
        allowed: result.allowed,
        quarantined: result.quarantined,
        added: result.added,
        changed: result.changed,
        removed: result.removed,
      };
    }
  }
}

function checkIdentity(identity: unknown): asserts identity is string {
  if (typeof identity !== 'string' || identity === '')
    throw new McpHostError('INVALID_ARGUMENT', 'ToolPins: the identity must be a non-empty string');
}

function checkCount(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0)
    throw new McpHostError('INVALID_ARGUMENT', `ToolPins: ${name} must be a non-negative integer`);
  return value;
}
