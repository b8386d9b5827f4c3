/**
 * The names under which the host exposes MCP tools (and prompts) to a model: `mcp__{server}__{tool}`
 * by default, provider-safe (`^[a-zA-Z0-9_-]{1,64}$`), unique, and a pure function of the
 * (server, tool) pairs, so restarts and connect order never change them. Pure: no I/O.
 *
 * The collision rule: pairs whose names clash after sanitising form a group. If exactly one of
 * them needed no change (its plain name is its own spelling), it keeps the plain name; every other
 * member gets `_` and 8 hex digits of a hash of its original (server, tool) pair. An over-long name
 * is truncated and always gets the hash. With the default scheme and valid server keys, names of
 * different servers can never clash, so adding a server never renames another server's tools.
 */
import { McpHostError } from '../errors/mcp-host-error.js';
import { hash8 } from './name-hash.js';

/** How exposed names are built. */
export interface ToolNamingOptions {
  /** The first part of every name (default `mcp`); `''` for none (`{server}__{tool}`). */
  prefix?: string;
  /** Between prefix, server and tool (default `__`). Non-empty. */
  separator?: string;
  /**
   * Builds the name instead of prefix and separator. The result is still sanitised, bounded and
   * made unique; names of different servers may then clash (and are resolved by the same rule).
   */
  format?: (server: string, tool: string) => string;
  /**
   * Keep every name within `^[a-zA-Z0-9_-]{1,64}$` (default true). With false, names are only
   * kept non-empty, unique, bounded by `maxLength` and free of control characters, for a model that
   * accepts names such as the `mcp:{server}:{tool}` style.
   */
  providerSafe?: boolean;
  /** Longest exposed name, in UTF-16 code units (default 64; at most 64 when provider-safe). */
  maxLength?: number;
}

export const DEFAULT_TOOL_NAMING = {
  prefix: 'mcp',
  separator: '__',
  providerSafe: true,
  maxLength: 64,
} as const;

/** What a provider-safe name matches (OpenAI, Anthropic, Gemini and Bedrock all accept it). */
export const PROVIDER_SAFE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** `_` and 8 hex digits. */
export const HASH_SUFFIX_LENGTH = 9;

/** Shortest `maxLength` accepted: a hash suffix and one more character. */
const MIN_MAX_LENGTH = HASH_SUFFIX_LENGTH + 1;

/** Further hash seeds tried when a hashed name clashes with another name (practically never). */
const MAX_HASH_ATTEMPTS = 16;

/** A tool (or prompt) by its server key and its own name on that server. */
export interface ToolRef {
  readonly server: string;
  readonly tool: string;
}

/** Pairs that wanted the same name, and what each got. */
export interface NameCollision {
  /** The name they all wanted. */
  readonly name: string;
  /** Sorted by server, then tool. */
  readonly pairs: readonly (ToolRef & { readonly exposed: string })[];
}

export type ServerKeyProblemReason = 'empty' | 'separator' | 'too-long' | 'same-as-another';

/** A server key that cannot be used as a namespace; that server's tools get no names. */
export interface ServerKeyProblem {
  readonly server: string;
  readonly reason: ServerKeyProblemReason;
  readonly message: string;
  /** For `same-as-another`: the other keys that sanitise to the same namespace. */
  readonly others?: readonly string[];
}

/** The outcome of naming a set of pairs. */
export interface NameAssignment {
  /** Exposed name to pair, in (server, tool) order. */
  readonly names: ReadonlyMap<string, ToolRef>;
  /** Every clash and how it was resolved, in name order. Never silent. */
  readonly collisions: readonly NameCollision[];
  /** Servers left out, in server order. */
  readonly serverProblems: readonly ServerKeyProblem[];
  /** The exposed name of a pair, if it got one. */
  exposed(server: string, tool: string): string | undefined;
}

/** The provider-safe spelling of `text`: accents dropped, every other run of characters `_`. */
export function toProviderSafe(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^A-Za-z0-9_-]+/gu, '_');
}

/**
 * Characters never allowed in a name, even when provider-safety is off: control characters, line
 * and paragraph separators, bidirectional overrides (they make a name read differently than it
 * is), and lone surrogates.
 */
const UNSAFE_CHARACTERS =
  /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]+|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/gu;

function toControlFree(text: string): string {
  return text.replace(UNSAFE_CHARACTERS, '_');
}

function hasUnsafeCharacter(text: string): boolean {
  UNSAFE_CHARACTERS.lastIndex = 0;
  const found = UNSAFE_CHARACTERS.test(text);
  UNSAFE_CHARACTERS.lastIndex = 0;
  return found;
}

export function isProviderSafeName(name: string): boolean {
  return PROVIDER_SAFE_NAME.test(name);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareRefs(a: ToolRef, b: ToolRef): number {
  return compare(a.server, b.server) || compare(a.tool, b.tool);
}

/** A name candidate before uniqueness is settled. */
interface Candidate {
  readonly ref: ToolRef;
  /** The whole sanitised name, not yet bounded. */
  readonly plain: string;
  /** The plain name needed no change at all. */
  readonly clean: boolean;
  /** Too long or empty: the plain name cannot be used. */
  readonly mustHash: boolean;
  /** What the hash suffix is appended to (already short enough). */
  readonly stem: string;
}

/** Options checked and completed, with the per-name arithmetic. */
class Namer {
  readonly prefix: string;
  readonly separator: string;
  readonly format: ((server: string, tool: string) => string) | undefined;
  readonly providerSafe: boolean;
  readonly maxLength: number;

  constructor(options: ToolNamingOptions = {}) {
    const invalid = (message: string) => new McpHostError('INVALID_ARGUMENT', message);
    this.providerSafe = options.providerSafe ?? DEFAULT_TOOL_NAMING.providerSafe;
    this.prefix = options.prefix ?? DEFAULT_TOOL_NAMING.prefix;
    this.separator = options.separator ?? DEFAULT_TOOL_NAMING.separator;
    this.format = options.format;
    this.maxLength = options.maxLength ?? DEFAULT_TOOL_NAMING.maxLength;
    if (typeof this.prefix !== 'string') throw invalid('tool naming: prefix must be a string');
    if (typeof this.separator !== 'string' || this.separator === '')
      throw invalid('tool naming: separator must be a non-empty string');
    if (this.format !== undefined && typeof this.format !== 'function')
      throw invalid('tool naming: format must be a function (server, tool) => string');
    const ceiling = this.providerSafe ? 64 : Number.MAX_SAFE_INTEGER;
    if (
      !Number.isInteger(this.maxLength) ||
      this.maxLength < MIN_MAX_LENGTH ||
      this.maxLength > ceiling
    )
      throw invalid(
        `tool naming: maxLength must be an integer from ${MIN_MAX_LENGTH} to ${this.providerSafe ? 64 : 'any'}`,
      );
    const fixed = this.prefix + this.separator;
    if (this.providerSafe && fixed !== toProviderSafe(fixed))
      throw invalid(
        'tool naming: with providerSafe, prefix and separator may use only A-Z, a-z, 0-9, _ and -',
      );
    if (!this.providerSafe && hasUnsafeCharacter(fixed))
      throw invalid('tool naming: prefix and separator may not contain control characters');
  }

  clean(text: string): string {
    return this.providerSafe ? toProviderSafe(text) : toControlFree(text);
  }

  /** `prefix + separator + server + separator` (the default scheme), or '' with `format`. */
  head(server: string): string {
    if (this.format !== undefined) return '';
    const prefix = this.prefix === '' ? '' : this.prefix + this.separator;
    return prefix + this.clean(server) + this.separator;
  }

  /** Why a server key cannot be a namespace, ignoring other keys; undefined when it can. */
  serverProblem(server: string): Omit<ServerKeyProblem, 'others'> | undefined {
    const cleaned = this.clean(server);
    if (cleaned === '')
      return { server, reason: 'empty', message: 'a server key must be non-empty' };
    if (this.format !== undefined) return undefined;
    const sep = this.separator;
    if ((cleaned + sep).indexOf(sep) !== cleaned.length)
      return {
        server,
        reason: 'separator',
        message: `server key ${JSON.stringify(server)} contains the tool-name separator ${JSON.stringify(sep)} (or ends with part of it), so its tool names would be ambiguous`,
      };
    const room = this.maxLength - this.head(server).length;
    if (room < MIN_MAX_LENGTH)
      return {
        server,
        reason: 'too-long',
        message: `server key ${JSON.stringify(server)} is too long: its tool names would exceed ${this.maxLength} characters`,
      };
    return undefined;
  }

  candidate(ref: ToolRef): Candidate {
    let raw: string;
    let head: string;
    let tail: string;
    if (this.format === undefined) {
      head = this.head(ref.server);
      raw = (this.prefix === '' ? '' : this.prefix + this.separator) + ref.server + this.separator;
      raw += ref.tool;
      tail = this.clean(ref.tool);
    } else {
      const formatted = this.format(ref.server, ref.tool);
      if (typeof formatted !== 'string')
        throw new McpHostError('INVALID_ARGUMENT', 'tool naming: format must return a string', {
          serverName: ref.server,
          tool: ref.tool,
        });
      head = '';
      raw = formatted;
      tail = this.clean(formatted);
    }
    const plain = head + tail;
    const mustHash = plain.length > this.maxLength || plain === '';
    const stem = head + truncate(tail, this.maxLength - HASH_SUFFIX_LENGTH - head.length);
    return { ref, plain, clean: plain === raw && !mustHash, mustHash, stem };
  }

  hashed(candidate: Candidate, attempt: number): string {
    return `${candidate.stem}_${hash8(JSON.stringify([candidate.ref.server, candidate.ref.tool]), attempt)}`;
  }
}

/** The first `length` code units of `text`, never ending in half a surrogate pair. */
function truncate(text: string, length: number): string {
  if (text.length <= length) return text;
  const cut = text.slice(0, Math.max(0, length));
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/**
 * The exposed name of one pair when it clashes with nothing: the plain name, or the hashed one
 * when the plain name is too long (or empty). Throws `INVALID_ARGUMENT` for bad options or a server
 * key that cannot be a namespace.
 */
export function exposedName(server: string, tool: string, options?: ToolNamingOptions): string {
  return exposedWith(new Namer(options), server, tool);
}

function exposedWith(namer: Namer, server: string, tool: string): string {
  if (typeof server !== 'string' || typeof tool !== 'string')
    throw new McpHostError('INVALID_ARGUMENT', 'tool naming: server and tool must be strings');
  const problem = namer.serverProblem(server);
  if (problem !== undefined)
    throw new McpHostError('INVALID_ARGUMENT', problem.message, { serverName: server });
  const candidate = namer.candidate({ server, tool });
  return candidate.mustHash ? namer.hashed(candidate, 0) : candidate.plain;
}

/**
 * Why each of these server keys cannot be a namespace (empty, contains the separator, too long,
 * or sanitises to the same namespace as another key), in server order; empty when all can. A host
 * can call it before adding a server, to refuse the key instead of losing two servers' tools.
 */
export function serverKeyProblems(
  servers: Iterable<string>,
  options?: ToolNamingOptions,
): ServerKeyProblem[] {
  return findServerProblems(new Namer(options), [...new Set(servers)].sort(compare));
}

function findServerProblems(namer: Namer, sortedServers: readonly string[]): ServerKeyProblem[] {
  const problems = new Map<string, ServerKeyProblem>();
  const byNamespace = new Map<string, string[]>();
  for (const server of sortedServers) {
    if (typeof server !== 'string')
      throw new McpHostError('INVALID_ARGUMENT', 'tool naming: a server key must be a string');
    const problem = namer.serverProblem(server);
    if (problem !== undefined) {
      problems.set(server, problem);
      continue;
    }
    // With `format`, the name alone keeps servers apart (clashes are resolved like any other).
    if (namer.format !== undefined) continue;
    const namespace = namer.clean(server);
    const group = byNamespace.get(namespace);
    if (group === undefined) byNamespace.set(namespace, [server]);
    else group.push(server);
  }
  for (const [namespace, group] of byNamespace) {
    if (group.length < 2) continue;
    for (const server of group)
      problems.set(server, {
        server,
        reason: 'same-as-another',
        message: `server keys ${group.map((s) => JSON.stringify(s)).join(', ')} all become the namespace ${JSON.stringify(namespace)}; rename all but one`,
        others: group.filter((other) => other !== server),
      });
  }
  return [...problems.values()].sort((a, b) => compare(a.server, b.server));
}

/**
 * Names every pair: a pure function of the set of pairs (order and duplicates do not matter).
 * Throws `INVALID_ARGUMENT` for bad options or a pair that is not two strings.
 */
export function assignNames(pairs: Iterable<ToolRef>, options?: ToolNamingOptions): NameAssignment {
  return assignWith(new Namer(options), pairs);
}

function assignWith(namer: Namer, pairs: Iterable<ToolRef>): NameAssignment {
  const byServer = new Map<string, Set<string>>();
  for (const pair of pairs) {
    if (typeof pair?.server !== 'string' || typeof pair.tool !== 'string')
      throw new McpHostError(
        'INVALID_ARGUMENT',
        'tool naming: every pair needs a string server and a string tool',
      );
    let tools = byServer.get(pair.server);
    if (tools === undefined) byServer.set(pair.server, (tools = new Set()));
    tools.add(pair.tool);
  }
  const servers = [...byServer.keys()].sort(compare);
  const serverProblems = findServerProblems(namer, servers);
  const excluded = new Set(serverProblems.map((problem) => problem.server));

  // Candidates in (server, tool) order, grouped by the plain name they want.
  const candidates: Candidate[] = [];
  const wanted = new Map<string, Candidate[]>();
  for (const server of servers) {
    if (excluded.has(server)) continue;
    for (const tool of [...byServer.get(server)!].sort(compare)) {
      const candidate = namer.candidate({ server, tool });
      candidates.push(candidate);
      if (candidate.mustHash) continue;
      const group = wanted.get(candidate.plain);
      if (group === undefined) wanted.set(candidate.plain, [candidate]);
      else group.push(candidate);
    }
  }

  const exposed = new Map<Candidate, string>();
  const plainNames = new Set<string>();
  const hashed: Candidate[] = [];
  const clashes = new Map<string, Set<Candidate>>();
  for (const [name, group] of wanted) {
    const keeper =
      group.length === 1 ? group[0] : onlyOne(group.filter((candidate) => candidate.clean));
    for (const candidate of group) {
      if (candidate === keeper) {
        exposed.set(candidate, name);
        plainNames.add(name);
      } else hashed.push(candidate);
    }
    if (group.length > 1) clashes.set(name, new Set(group));
  }
  for (const candidate of candidates) if (candidate.mustHash) hashed.push(candidate);

  // Hashed names that clash with a plain name or with each other move to the next seed, all of
  // them (so the outcome does not depend on order); a plain name is never moved.
  const holders = new Map<string, Candidate>();
  for (const [candidate, name] of exposed) holders.set(name, candidate);
  const attempts = new Map<Candidate, number>();
  let pending = hashed;
  for (let round = 0; pending.length > 0; round++) {
    if (round === MAX_HASH_ATTEMPTS)
      throw new McpHostError('INTERNAL', 'tool naming: could not make hashed names unique');
    const byName = new Map<string, Candidate[]>();
    for (const candidate of pending) {
      const name = namer.hashed(candidate, attempts.get(candidate) ?? 0);
      const group = byName.get(name);
      if (group === undefined) byName.set(name, [candidate]);
      else group.push(candidate);
    }
    const next: Candidate[] = [];
    for (const [name, group] of byName) {
      const holder = holders.get(name);
      if (holder === undefined && group.length === 1) {
        exposed.set(group[0]!, name);
        holders.set(name, group[0]!);
        continue;
      }
      const clash = clashes.get(name) ?? new Set<Candidate>();
      if (holder !== undefined) clash.add(holder);
      for (const candidate of group) {
        clash.add(candidate);
        attempts.set(candidate, (attempts.get(candidate) ?? 0) + 1);
        next.push(candidate);
      }
      clashes.set(name, clash);
    }
    pending = next;
  }

  const names = new Map<string, ToolRef>();
  const byPair = new Map<string, Map<string, string>>();
  for (const candidate of candidates) {
    const name = exposed.get(candidate)!;
    const { server, tool } = candidate.ref;
    names.set(name, candidate.ref);
    let tools = byPair.get(server);
    if (tools === undefined) byPair.set(server, (tools = new Map<string, string>()));
    tools.set(tool, name);
  }
  const collisions: NameCollision[] = [...clashes]
    .sort(([a], [b]) => compare(a, b))
    .map(([name, group]) => ({
      name,
      pairs: [...group]
        .sort((a, b) => compareRefs(a.ref, b.ref))
        .map((candidate) => ({ ...candidate.ref, exposed: exposed.get(candidate)! })),
    }));
  return {
    names,
    collisions,
    serverProblems,
    exposed: (server, tool) => byPair.get(server)?.get(tool),
  };
}

function onlyOne<T>(items: readonly T[]): T | undefined {
  return items.length === 1 ? items[0] : undefined;
}

/**
 * The exposed names of one host's tools (use a second instance for prompts: they follow the same
 * scheme). It keeps the current pairs per server and recomputes every name from them on each
 * change, so names depend only on the pairs, never on the order of changes.
 */
export class ToolNames {
  readonly #namer: Namer;
  readonly #pairs = new Map<string, ReadonlySet<string>>();
  #assignment: NameAssignment = assignWith(new Namer(), []);

  constructor(options?: ToolNamingOptions) {
    this.#namer = new Namer(options);
  }

  /** The current names, clashes and server problems. */
  get assignment(): NameAssignment {
    return this.#assignment;
  }

  /** Replaces every pair. */
  assign(pairs: Iterable<ToolRef>): NameAssignment {
    const next = new Map<string, Set<string>>();
    for (const pair of pairs) {
      let tools = next.get(pair?.server);
      if (tools === undefined) next.set(pair?.server, (tools = new Set()));
      tools.add(pair?.tool);
    }
    return this.#replace(next);
  }

  /** Replaces one server's tools (an empty list keeps the server with no tools). */
  setServer(server: string, tools: Iterable<string>): NameAssignment {
    const next = new Map(this.#pairs);
    next.set(server, new Set(tools));
    return this.#replace(next);
  }

  /** Forgets one server's tools. */
  deleteServer(server: string): NameAssignment {
    const next = new Map(this.#pairs);
    next.delete(server);
    return this.#replace(next);
  }

  /** The exposed name of a pair, if it has one. */
  exposed(server: string, tool: string): string | undefined {
    return this.#assignment.exposed(server, tool);
  }

  /**
   * The name one pair gets when it clashes with nothing (see `exposedName`), with this instance's
   * options; it does not record the pair.
   */
  exposedName(server: string, tool: string): string {
    return exposedWith(this.#namer, server, tool);
  }

  /** The pair behind an exposed name. */
  resolve(name: string): ToolRef | undefined {
    return this.#assignment.names.get(name);
  }

  #replace(next: Map<string, ReadonlySet<string>>): NameAssignment {
    const assignment = assignWith(this.#namer, pairsOf(next));
    this.#pairs.clear();
    for (const [server, tools] of next) this.#pairs.set(server, tools);
    this.#assignment = assignment;
    return assignment;
  }
}

function* pairsOf(map: ReadonlyMap<string, ReadonlySet<string>>): Generator<ToolRef> {
  for (const [server, tools] of map) for (const tool of tools) yield { server, tool };
}
