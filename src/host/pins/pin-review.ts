/**
 * The steps of one tool-pins review (see tool-pins.ts): hashing a listing, asking the policy about
 * what the stored pins do not cover, and applying the decisions to the stored pins (synchronously,
 * inside `store.update`). Platform-neutral; no state of its own.
 */
import type { Logger } from '../../internal/logger.js';
import type { Tool } from '../../protocol/types.js';
import { canonicalJson } from '../../state/canonical-json.js';
import { sha256Hex } from '../../state/sha256.js';
import {
  diffStored,
  storedDiffBase,
  writeRecord,
  type PinsRecord,
  type StoredDefinition,
  type StoredPins,
  type StoredTool,
} from './pin-record.js';
import type {
  PinChange,
  PinDecision,
  PinEvent,
  PinPolicy,
  PinReview,
  QuarantinedTool,
} from './pin-types.js';
import { diffToolDefinitions, pinnedDefinition, type PinnedDefinition } from './tool-diff.js';

/** A listed tool, hashed. */
export interface Listed {
  tool: Tool;
  name: string;
  stored: StoredDefinition;
}

/** Thrown inside `store.update` when the stored pins moved since the policy was asked. */
export const REVIEW_CONFLICT = new Error('tool pins: the stored pins moved; reviewing again');

/** What one review did, worked out inside `store.update`. */
export interface ReviewOutcome extends PinReview {
  record: StoredPins;
  events: PinEvent[];
}

/** The size limits of `ToolPinsOptions`, resolved. */
export interface ListingLimits {
  maxDefinitionChars: number;
  maxListingChars: number;
}

/** Hashes every listed tool; sets aside those that cannot be pinned and clashing duplicates. */
export async function hashListing(
  tools: readonly Tool[],
  limits: ListingLimits,
): Promise<{ listed: Listed[]; invalid: QuarantinedTool[] }> {
  const invalid: QuarantinedTool[] = [];
  // Canonicalise every tool first, then hash them all at once.
  const texts = tools.map((tool): string | undefined => {
    const name = (tool as { name?: unknown } | null)?.name;
    if (typeof name !== 'string' || name === '') {
      invalid.push(invalidTool(tool, 'the tool has no name'));
      return undefined;
    }
    try {
      return canonicalJson(pinnedDefinition(tool));
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      invalid.push(invalidTool(tool, `its definition cannot be pinned (${why})`));
      return undefined;
    }
  });
  const pins = await Promise.all(
    texts.map((text) => (text === undefined ? Promise.resolve(undefined) : sha256Hex(text))),
  );
  const byName = new Map<string, Listed[]>();
  let budget = limits.maxListingChars;
  tools.forEach((tool, index) => {
    const text = texts[index];
    const pin = pins[index];
    if (text === undefined || pin === undefined) return;
    const keep = text.length <= limits.maxDefinitionChars && text.length <= budget;
    if (keep) budget -= text.length;
    const stored: StoredDefinition = keep
      ? { pin, definition: JSON.parse(text) as PinnedDefinition }
      : { pin };
    const entry: Listed = { tool, name: tool.name, stored };
    const same = byName.get(tool.name);
    if (same === undefined) byName.set(tool.name, [entry]);
    else same.push(entry);
  });
  const listed: Listed[] = [];
  for (const [name, entries] of byName) {
    const distinct = new Set(entries.map((entry) => entry.stored.pin));
    // Identical duplicates are one tool; differing ones cannot be told apart when called.
    if (distinct.size === 1) listed.push(entries[0]!);
    else
      for (const entry of entries)
        invalid.push(
          invalidTool(
            entry.tool,
            `the name '${name}' is listed ${entries.length} times with different definitions`,
          ),
        );
  }
  return { listed, invalid };
}

/**
 * Asks the policy about every tool the stored pins do not cover and not yet decided. `ask` gets
 * the change's kind and the change itself to build (its diff is only worked out for a policy that
 * reads it: a built-in one decides on the kind).
 */
export async function decideListing(
  identity: string,
  stored: PinsRecord,
  listed: readonly Listed[],
  decisions: Map<string, PinDecision>,
  ask: (kind: PinChange['kind'], change: () => PinChange) => Promise<PinDecision>,
): Promise<void> {
  for (const item of listed) {
    const entry = stored.tools.get(item.name);
    const kind = classify(stored, entry, item.stored.pin);
    if (kind === 'unchanged') continue;
    const key = decisionKey(kind, item.name, entry?.pin, item.stored.pin);
    if (decisions.has(key)) continue;
    // Held already: it stays held until approve() (or until it changes again); the policy is
    // not asked about the same definition at every listing.
    if (entry?.pending?.pin === item.stored.pin) {
      decisions.set(key, 'quarantine');
      continue;
    }
    const change = (): PinChange => {
      const previous =
        entry?.pin === undefined ? undefined : storedDiffBase(entry.pin, entry.definition);
      return {
        identity,
        kind,
        tool: item.tool,
        pin: item.stored.pin,
        ...(entry?.pin === undefined ? {} : { previousPin: entry.pin }),
        diff:
          previous === undefined
            ? diffToolDefinitions(undefined, item.tool)
            : diffStored(previous, item.stored),
      };
    };
    decisions.set(key, await ask(kind, change));
  }
}

/** The policy's decision about one change; a failing or confused policy quarantines. */
export async function askPolicy(
  policy: PinPolicy,
  logger: Logger,
  kind: PinChange['kind'],
  changeOf: () => PinChange,
): Promise<PinDecision> {
  if (policy === 'trust-on-first-use') return kind === 'changed' ? 'quarantine' : 'approve';
  if (policy === 'strict') return kind === 'first-listing' ? 'approve' : 'quarantine';
  const change = changeOf();
  try {
    const decision = await policy.decide(change);
    if (decision === 'approve' || decision === 'quarantine') return decision;
    logger.warn('tool pins: the policy answered neither approve nor quarantine', {
      identity: change.identity,
      tool: change.tool.name,
    });
  } catch (error) {
    logger.warn('tool pins: the policy failed; the tool is quarantined', {
      identity: change.identity,
      tool: change.tool.name,
      error: error instanceof Error ? error.message : String(error),
    });
  }
  return 'quarantine';
}

/** The synchronous heart of a review, run inside `store.update` on the stored pins. */
export function applyReview(
  identity: string,
  record: PinsRecord,
  listed: readonly Listed[],
  invalid: readonly QuarantinedTool[],
  decisions: ReadonlyMap<string, PinDecision>,
  final: boolean,
  options: { now: string; maxRemovedPins: number },
): ReviewOutcome {
  const { now } = options;
  const allowed: Tool[] = [];
  const quarantined: QuarantinedTool[] = [];
  const added: string[] = [];
  const changed: string[] = [];
  const removed: string[] = [];
  const events: PinEvent[] = [];
  // A tool held as invalid is still listed: its pin is not marked removed.
  const names = new Set<string>(invalid.map(({ tool }) => tool.name));
  for (const item of listed) {
    const { name, tool, stored } = item;
    names.add(name);
    const entry = record.tools.get(name);
    if (entry === undefined || entry.removedAt !== undefined) added.push(name);
    const kind = classify(record, entry, stored.pin);
    if (kind === 'unchanged') {
      // Pinned as listed; a pending change that was reverted is dropped.
      record.tools.set(name, { ...entry!, removedAt: undefined, pending: undefined });
      allowed.push(tool);
      continue;
    }
    if (kind === 'changed') changed.push(name);
    let decision = decisions.get(decisionKey(kind, name, entry?.pin, stored.pin));
    if (decision === undefined) {
      // The pins moved since the policy was asked: ask again, or hold the tool in the end.
      if (!final) throw REVIEW_CONFLICT;
      decision = 'quarantine';
    }
    const previous =
      entry?.pin === undefined ? undefined : storedDiffBase(entry.pin, entry.definition);
    // A first listing approved carries no diff: it is worked out only when something reads it.
    const diffOf = () =>
      previous === undefined ? diffToolDefinitions(undefined, tool) : diffStored(previous, stored);
    if (decision === 'approve') {
      record.tools.set(name, {
        pin: stored.pin,
        ...(stored.definition === undefined ? {} : { definition: stored.definition }),
        pinnedAt: now,
      });
      allowed.push(tool);
      events.push({
        type: 'pinned',
        identity,
        tool: name,
        pin: stored.pin,
        reason: kind,
        ...(previous === undefined ? {} : { diff: diffOf() }),
      });
      continue;
    }
    const diff = diffOf();
    const reason = kind === 'changed' ? 'changed' : 'new';
    const since = entry?.pending?.pin === stored.pin ? entry.pending.since : now;
    record.tools.set(name, {
      ...entry,
      removedAt: undefined,
      pending: { ...stored, reason, since },
    });
    quarantined.push({ tool, reason, pin: stored.pin, diff });
    if (entry?.pending?.pin !== stored.pin)
      events.push({ type: 'quarantined', identity, tool: name, pin: stored.pin, reason, diff });
  }
  for (const [name, entry] of record.tools) {
    if (names.has(name)) continue;
    const wasListed = entry.removedAt === undefined;
    if (wasListed) {
      removed.push(name);
      events.push({ type: 'removed', identity, tool: name });
    }
    if (entry.pin === undefined) record.tools.delete(name);
    else if (wasListed || entry.pending !== undefined)
      record.tools.set(name, {
        ...entry,
        // Kept by hash alone: enough to hold a changed comeback, and small.
        definition: undefined,
        removedAt: entry.removedAt ?? now,
        pending: undefined,
      });
  }
  evictRemoved(record, options.maxRemovedPins);
  return { record: writeRecord(record), allowed, quarantined, added, changed, removed, events };
}

/** Drops the oldest removed pins beyond `maxRemovedPins`. */
function evictRemoved(record: PinsRecord, maxRemovedPins: number): void {
  const gone = [...record.tools].filter(([, entry]) => entry.removedAt !== undefined);
  if (gone.length <= maxRemovedPins) return;
  gone.sort(([, a], [, b]) =>
    a.removedAt! < b.removedAt! ? -1 : a.removedAt! > b.removedAt! ? 1 : 0,
  );
  for (const [name] of gone.slice(0, gone.length - maxRemovedPins)) record.tools.delete(name);
}

/**
 * True when the stored pins already say everything this listing would record: every listed tool
 * pinned as listed and listed before (nothing held, nothing to clear), and every other stored tool
 * already marked removed.
 */
export function isSteady(
  record: PinsRecord,
  listed: readonly Listed[],
  invalid: readonly QuarantinedTool[],
): boolean {
  if (!record.exists) return false;
  const names = new Set<string>(invalid.map(({ tool }) => tool.name));
  for (const { name, stored } of listed) {
    const entry = record.tools.get(name);
    if (entry?.pin !== stored.pin || entry.pending !== undefined || entry.removedAt !== undefined)
      return false;
    names.add(name);
  }
  for (const [name, entry] of record.tools)
    if (!names.has(name) && (entry.removedAt === undefined || entry.pending !== undefined))
      return false;
  return true;
}

export function emptyOutcome(): Omit<ReviewOutcome, 'record'> {
  return { allowed: [], quarantined: [], added: [], changed: [], removed: [], events: [] };
}

function classify(
  record: PinsRecord,
  entry: StoredTool | undefined,
  pin: string,
): 'unchanged' | 'first-listing' | 'new' | 'changed' {
  if (entry?.pin === pin) return 'unchanged';
  if (entry?.pin !== undefined) return 'changed';
  return record.exists ? 'new' : 'first-listing';
}

function decisionKey(
  kind: string,
  name: string,
  previousPin: string | undefined,
  pin: string,
): string {
  return `${kind}\u0000${previousPin ?? ''}\u0000${pin}\u0000${name}`;
}

function invalidTool(tool: Tool, why: string): QuarantinedTool {
  return {
    tool,
    reason: 'invalid',
    pin: undefined,
    diff: { changes: [], truncated: false, summary: `not pinnable: ${why}`.slice(0, 400) },
  };
}
