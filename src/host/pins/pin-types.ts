/** The public types of tool pinning (tool-pins.ts): policy, review, events. */
import type { Tool } from '../../protocol/types.js';
import type { QuarantineReason } from './quarantined-error.js';
import type { ToolDiff } from './tool-diff.js';

/** What the policy is asked about. */
export interface PinChange {
  identity: string;
  /**
   * `first-listing`: the identity has no pins yet; `new`: the tool has never been pinned for it;
   * `changed`: its definition differs from its pin.
   */
  kind: 'first-listing' | 'new' | 'changed';
  tool: Tool;
  /** The pin of the listed definition. */
  pin: string;
  /** For `changed`: the pin it had. */
  previousPin?: string;
  /** From the pinned definition to the listed one (for a new tool, one `added` change). */
  diff: ToolDiff;
}

export type PinDecision = 'approve' | 'quarantine';

/**
 * `trust-on-first-use` (default): approve the first listing and new tools, quarantine changes.
 * `strict`: approve the first listing, quarantine new tools and changes. Or an object whose
 * `decide` is asked about every first-listing, new and changed tool (unchanged ones are allowed
 * without asking); if it throws or answers anything else, the tool is quarantined. A definition it
 * quarantined is not asked about again: it stays held until `ToolPins.approve()`, or until the
 * server changes it again. `decide` must not wait for `approve()` or `review()` of the same
 * identity on the same `ToolPins`: they queue behind the review that is asking.
 */
export type PinPolicy =
  | 'trust-on-first-use'
  | 'strict'
  | { decide(change: PinChange): Promise<PinDecision> | PinDecision };

export interface QuarantinedTool {
  tool: Tool;
  reason: QuarantineReason;
  /** The pin of the held definition, for `approve(…, { pin })`; undefined when `invalid`. */
  pin: string | undefined;
  diff: ToolDiff;
}

export interface PinReview {
  /** Tools that may be shown and called, in listing order. */
  allowed: Tool[];
  /** Tools to hide, whose calls fail with `quarantinedError`. */
  quarantined: QuarantinedTool[];
  /** Names listed now that were not listed at the previous review (all of them at the first). */
  added: string[];
  /** Names whose definition differs from their pin (approved by the policy or quarantined). */
  changed: string[];
  /** Names listed at the previous review and not now. */
  removed: string[];
}

/**
 * What `ToolPins.onEvent` reports, after the change is stored: a definition pinned (first listing,
 * new tool, change approved by the policy, or `approve()`), a definition quarantined (once per
 * held definition; an `invalid` tool, which is never stored, at every review that lists it), a
 * tool no longer listed (once).
 */
export type PinEvent =
  | {
      type: 'pinned';
      identity: string;
      tool: string;
      pin: string;
      reason: 'first-listing' | 'new' | 'changed' | 'approved';
      /** For `changed` and `approved`: from the previous pin, when there was one. */
      diff?: ToolDiff;
    }
  | {
      type: 'quarantined';
      identity: string;
      tool: string;
      pin: string | undefined;
      reason: QuarantineReason;
      diff: ToolDiff;
    }
  | { type: 'removed'; identity: string; tool: string };

/** One tool's stored pin and pending definition, as `entries()` shows them. */
export interface PinRecord {
  name: string;
  /** The pinned hash; undefined for a new tool held for approval. */
  pin: string | undefined;
  pinnedAt: string | undefined;
  /** Set when the tool was no longer listed. */
  removedAt: string | undefined;
  /** A quarantined definition waiting for approval. */
  pending: { pin: string; reason: 'changed' | 'new'; since: string } | undefined;
}
