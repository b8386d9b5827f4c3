import type { Tool } from '../../protocol/types.js';
import { compileAllowBlock, type NameMatcher } from '../catalogue/tool-filters.js';
import type { QuarantinedTool } from '../pins/pin-types.js';
import { DEFAULT_SERVER_OPTIONS, type HostServerDefinition } from '../server-definition.js';

/** The pin check's verdict on one listing: what may be offered, and what is held back. */
export interface ToolReview {
  allowed: Tool[];
  quarantined: readonly QuarantinedTool[];
}

/** Runs the pin check on a fresh listing of the server whose state is kept under `identity`. */
export type ToolReviewer = (identity: string, tools: Tool[]) => Promise<ToolReview>;

/**
 * A server's tools as last listed and reviewed (its static filter, then the pin check), with what
 * the pin check holds back and when the listing goes stale. A value: the server lists, reviews and
 * reports; this keeps the outcome and says when to list again.
 */
export class ServerTools {
  #tools: readonly Tool[] = [];
  /** The last listing, filtered, before the pin check: what `reviewAgain` reviews. */
  #listed: readonly Tool[] = [];
  #quarantined: ReadonlyMap<string, QuarantinedTool> = new Map();
  #fetchedAt = 0;
  #ttlMs: number | undefined;
  readonly #allowed: NameMatcher;

  /** `seed` (from a catalogue snapshot) is offered until the first real listing replaces it. */
  constructor(definition: HostServerDefinition, seed: readonly Tool[] | undefined) {
    this.#allowed = compileAllowBlock(definition.tools);
    if (seed !== undefined) this.#tools = seed;
  }

  /** The usable tools of the last listing. */
  get tools(): readonly Tool[] {
    return this.#tools;
  }

  /** The tools the pin check holds back, by original name, with the reason and diff. */
  get quarantined(): ReadonlyMap<string, QuarantinedTool> {
    return this.#quarantined;
  }

  /** The last listing after the static filter, before the pin check (empty before the first). */
  get listed(): readonly Tool[] {
    return this.#listed;
  }

  /** A fresh listing minus what the server's static allow/block lists leave out. */
  filter(listed: readonly Tool[]): Tool[] {
    return listed.filter((tool) => this.#allowed(tool.name));
  }

  /**
   * Takes a reviewed listing (`listed`: what was reviewed, filtered); returns the tools offered
   * before it.
   */
  replace(
    review: ToolReview,
    ttlMs: number | undefined,
    now: number = Date.now(),
    listed: readonly Tool[] = [...review.allowed, ...review.quarantined.map((held) => held.tool)],
  ): readonly Tool[] {
    const before = this.#tools;
    this.#listed = listed;
    this.#tools = review.allowed;
    this.#quarantined = new Map(review.quarantined.map((held) => [held.tool.name, held]));
    this.#fetchedAt = now;
    this.#ttlMs = ttlMs;
    return before;
  }

  /**
   * Takes a new review of the same listing (the stored pins changed, not the listing): the
   * listing's age stays as it was.
   */
  reviewed(review: ToolReview): void {
    this.#tools = review.allowed;
    this.#quarantined = new Map(review.quarantined.map((held) => [held.tool.name, held]));
  }

  /** Offers nothing any more; returns the tools offered before, or undefined if there were none. */
  clear(): readonly Tool[] | undefined {
    this.#listed = [];
    if (this.#tools.length === 0 && this.#quarantined.size === 0) return undefined;
    const before = this.#tools;
    this.#tools = [];
    this.#quarantined = new Map();
    return before;
  }

  /**
   * Whether the listing is older than it may be (stale-while-revalidate: it is still offered while
   * a fresh one is fetched): the server's own TTL hint; none while it promises list_changed; else
   * the definition's `toolsTtlMs` (default 5 minutes, 0 for never).
   */
  isStale(
    capabilities: { tools?: { listChanged?: boolean } } | undefined,
    definition: HostServerDefinition,
    now?: number,
  ): boolean {
    const ttl = effectiveToolsTtl(capabilities, this.#ttlMs, definition);
    // The clock is read only when a TTL applies (tools() asks every server on every call).
    return ttl !== undefined && (now ?? Date.now()) - this.#fetchedAt >= ttl;
  }
}

/**
 * How long a tool listing stays fresh (undefined: forever): the server's own hint; none while it
 * promises list_changed; else the configured TTL.
 */
export function effectiveToolsTtl(
  capabilities: { tools?: { listChanged?: boolean } } | undefined,
  hintTtlMs: number | undefined,
  definition: HostServerDefinition,
): number | undefined {
  // A server that promises list_changed is believed: the list is kept until it says so. A
  // positive ttlMs hint still bounds the age; ttlMs 0 (the v2 SDK's default) does not force a
  // relist on every read.
  if (capabilities?.tools?.listChanged === true)
    return hintTtlMs !== undefined && hintTtlMs > 0 ? hintTtlMs : undefined;
  if (hintTtlMs !== undefined) return hintTtlMs;
  const ttl = definition.toolsTtlMs ?? DEFAULT_SERVER_OPTIONS.toolsTtlMs;
  return ttl > 0 ? ttl : undefined;
}
