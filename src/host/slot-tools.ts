import type { McpClient } from '../client/mcp-client.js';
import type { Logger } from '../internal/logger.js';
import type { Tool } from '../protocol/types.js';
import type { HostServerDefinition } from './host-options.js';
import type { QuarantinedTool } from './pin-types.js';
import type { ServerState } from './server-status.js';

export const DEFAULT_TOOLS_TTL_MS = 5 * 60_000;

/** States in which a server offers no tools (one restarting keeps its tools listed). */
export const TOOLLESS_STATES: ReadonlySet<ServerState> = new Set<ServerState>([
  'disabled',
  'idle',
  'needs_auth',
  'failed',
  'crash_loop',
  'closed',
]);

/** The pin check's verdict on one listing: what may be offered, and what is held back. */
export interface ToolReview {
  allowed: Tool[];
  quarantined: ReadonlyMap<string, QuarantinedTool>;
}

/** What a server's tool list needs of its slot. */
export interface ToolSource {
  readonly name: string;
  readonly definition: HostServerDefinition;
  readonly logger: Logger;
  /** The client while connected. */
  client(): McpClient | undefined;
  /** The slot's connection generation: a listing of an older one is dropped. */
  generation(): number;
  /** The pin check on a listing (after the static filter). */
  review(tools: Tool[]): Promise<ToolReview>;
  /** The list changed (reported to the host). */
  changed(before: readonly Tool[]): void;
}

/**
 * A server's tools as last listed and reviewed (static filter, then the pin check), kept while
 * fresh and refreshed in the background once older than their TTL (stale-while-revalidate).
 */
export class SlotTools {
  readonly #source: ToolSource;
  #tools: readonly Tool[] = [];
  #quarantined: ReadonlyMap<string, QuarantinedTool> = new Map();
  #fetchedAt = 0;
  #ttlMs: number | undefined;
  #refresh: Promise<void> | undefined;

  /** `seed` (from a catalogue snapshot) is offered until the first real listing replaces it. */
  constructor(source: ToolSource, seed: readonly Tool[] | undefined) {
    this.#source = source;
    if (seed !== undefined) this.#tools = seed;
  }

  /** The usable tools, refreshed in the background when stale. */
  get tools(): readonly Tool[] {
    this.#maybeRefresh();
    return this.#tools;
  }

  /** The usable tools, as they are (no refresh). */
  get current(): readonly Tool[] {
    return this.#tools;
  }

  /** The tools the pin check holds back, by original name, with the reason and diff. */
  get quarantined(): ReadonlyMap<string, QuarantinedTool> {
    return this.#quarantined;
  }

  /** Lists tools again now (bypassing the TTL) and reports what changed. */
  async refresh(): Promise<void> {
    const client = this.#source.client();
    if (client === undefined) return;
    const generation = this.#source.generation();
    const listing = await client.listTools();
    if (generation !== this.#source.generation()) return;
    await this.accept(listing.items, listing.ttlMs);
  }

  /** Takes a fresh listing: filtered, reviewed, then reported (unless the connection changed). */
  async accept(listed: Tool[], ttlMs: number | undefined): Promise<void> {
    const source = this.#source;
    const generation = source.generation();
    const allowed = listed.filter((tool) => staticallyAllowed(source.definition, tool.name));
    const review = await source.review(allowed);
    if (generation !== source.generation()) return;
    const before = this.#tools;
    this.#tools = review.allowed;
    this.#quarantined = review.quarantined;
    this.#fetchedAt = Date.now();
    this.#ttlMs = ttlMs;
    source.changed(before);
  }

  /** Offers nothing any more (a server down for good, or on purpose); reports it if it had tools. */
  clear(): void {
    if (this.#tools.length === 0 && this.#quarantined.size === 0) return;
    const before = this.#tools;
    this.#tools = [];
    this.#quarantined = new Map();
    this.#source.changed(before);
  }

  /** Stale-while-revalidate: a listing older than its TTL is refreshed in the background. */
  #maybeRefresh(): void {
    if (this.#refresh !== undefined) return;
    const client = this.#source.client();
    if (client === undefined) return;
    const capabilities = client.session?.capabilities as
      { tools?: { listChanged?: boolean } } | undefined;
    const ttl = effectiveToolsTtl(capabilities, this.#ttlMs, this.#source.definition);
    if (ttl === undefined || Date.now() - this.#fetchedAt < ttl) return;
    this.#refresh = this.refresh()
      .catch((error: unknown) =>
        this.#source.logger.warn(`server '${this.#source.name}': refreshing tools failed`, {
          error: String(error),
        }),
      )
      .finally(() => {
        this.#refresh = undefined;
      });
  }
}

/**
 * How long a tool listing stays fresh before it is refreshed in the background (undefined:
 * forever): the server's own hint; none while it promises list_changed; else the configured TTL.
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
  const ttl = definition.toolsTtlMs ?? DEFAULT_TOOLS_TTL_MS;
  return ttl > 0 ? ttl : undefined;
}

/** The definition's static allow/block lists, by original tool name; block wins. */
export function staticallyAllowed(definition: HostServerDefinition, tool: string): boolean {
  const filter = definition.tools;
  if (filter === undefined) return true;
  if (filter.block?.some((pattern) => globMatches(pattern, tool)) === true) return false;
  if (filter.allow === undefined || filter.allow.length === 0) return true;
  return filter.allow.some((pattern) => globMatches(pattern, tool));
}

const globCache = new Map<string, RegExp>();
function globMatches(pattern: string, name: string): boolean {
  let regex = globCache.get(pattern);
  if (regex === undefined) {
    const source = pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    regex = new RegExp(`^${source}$`, 's');
    globCache.set(pattern, regex);
  }
  return regex.test(name);
}
