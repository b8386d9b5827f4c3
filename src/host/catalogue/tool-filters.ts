/**
 * Which tools a caller may see and call: per-server allow/block lists, per-agent permissions and
 * a dynamic filter, compiled once and applied the same way when listing and when calling (a hidden
 * tool cannot be called by naming it). Pure: no I/O.
 *
 * Globs: `*` matches any run of characters (`/` included), `?` exactly one character (a code
 * point), `\` makes the next character literal; everything else is literal and case-sensitive.
 * They are matched by a small greedy matcher, not a RegExp: its worst case is
 * O(name length × pattern length) for any pattern, where a backtracking RegExp such as
 * `^.*a.*a.*a.*b$` grows with a power of the name's length. Plain names are a Set lookup.
 */
import { McpHostError } from '../../errors/mcp-host-error.js';

/** Allow and block lists of globs. Block wins; an absent or empty allow list allows everything. */
export interface ToolFilterSpec {
  readonly allow?: readonly string[];
  readonly block?: readonly string[];
}

/** A compiled test of one name. */
export type NameMatcher = (name: string) => boolean;

const STAR = Symbol('*');
const ANY = Symbol('?');
type Token = string | typeof STAR | typeof ANY;

const SURROGATE = /[\ud800-\udfff]/;

function invalid(message: string): McpHostError {
  return new McpHostError('INVALID_ARGUMENT', message);
}

/** The tokens of a glob, one per code point, runs of `*` collapsed. */
function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  let escaped = false;
  for (const char of pattern) {
    if (escaped) {
      tokens.push(char);
      escaped = false;
    } else if (char === '\\') escaped = true;
    else if (char === '*') {
      if (tokens[tokens.length - 1] !== STAR) tokens.push(STAR);
    } else if (char === '?') tokens.push(ANY);
    else tokens.push(char);
  }
  if (escaped) tokens.push('\\'); // a trailing backslash stands for itself
  return tokens;
}

/**
 * Greedy wildcard matching with one backtracking point (the last `*`): each step either advances
 * in the name or moves the star's start one further, so the work is bounded by the product of
 * the two lengths.
 */
function matchTokens(tokens: readonly Token[], name: string): boolean {
  const text: ArrayLike<string> = SURROGATE.test(name) ? Array.from(name) : name;
  let p = 0;
  let t = 0;
  let star = -1;
  let starText = 0;
  while (t < text.length) {
    const token = tokens[p];
    if (token === ANY || (token !== undefined && token === text[t])) {
      p++;
      t++;
    } else if (token === STAR) {
      star = p++;
      starText = t;
    } else if (star !== -1) {
      p = star + 1;
      t = ++starText;
    } else return false;
  }
  while (tokens[p] === STAR) p++;
  return p === tokens.length;
}

/** One glob as a matcher. Throws `INVALID_ARGUMENT` when it is not a string. */
export function compileGlob(pattern: string): NameMatcher {
  return compileGlobs([pattern]);
}

/** True for a name any of the globs matches; false for none (an empty list matches nothing). */
export function compileGlobs(patterns: readonly string[]): NameMatcher {
  if (!Array.isArray(patterns)) throw invalid('tool filter: a pattern list must be an array');
  const exact = new Set<string>();
  const wild: Token[][] = [];
  let all = false;
  for (const pattern of patterns) {
    if (typeof pattern !== 'string') throw invalid('tool filter: every pattern must be a string');
    const tokens = tokenize(pattern);
    if (tokens.every((token) => typeof token === 'string')) exact.add(tokens.join(''));
    else if (tokens.length === 1 && tokens[0] === STAR) all = true;
    else wild.push(tokens);
  }
  if (all) return () => true;
  if (wild.length === 0) return (name) => exact.has(name);
  return (name) => exact.has(name) || wild.some((tokens) => matchTokens(tokens, name));
}

function checkSpec(spec: ToolFilterSpec | undefined): ToolFilterSpec | undefined {
  if (spec !== undefined && (typeof spec !== 'object' || spec === null))
    throw invalid('tool filter: a spec must be an object with allow and block lists');
  for (const list of [spec?.allow, spec?.block])
    if (list !== undefined && !Array.isArray(list))
      throw invalid('tool filter: allow and block must be arrays of globs');
  return spec;
}

/** One spec as a test of a single name: block wins; an empty allow list allows all. */
export function compileAllowBlock(spec: ToolFilterSpec | undefined): NameMatcher {
  const checked = checkSpec(spec);
  if (checked === undefined) return () => true;
  const { allow, block } = checked;
  const allows = allow === undefined || allow.length === 0 ? undefined : compileGlobs(allow);
  const blocks = block === undefined ? undefined : compileGlobs(block);
  return (name) =>
    (blocks === undefined || !blocks(name)) && (allows === undefined || allows(name));
}

/** A per-agent test: `(exposed, qualified)`, where qualified is `server/tool` for an MCP tool. */
type AgentMatcher = (exposed: string, qualified: string | undefined) => boolean;

/**
 * A glob with a `/` is matched against `server/tool` (original tool name), any other against the
 * exposed name, so a native tool named `fs/x` is never taken for the fs server's `x`.
 */
function compileAgentSpec(spec: ToolFilterSpec | undefined): AgentMatcher {
  const checked = checkSpec(spec);
  if (checked === undefined) return () => true;
  const either = (patterns: readonly string[] | undefined) => {
    if (patterns === undefined || patterns.length === 0) return undefined;
    const exposed = compileGlobs(patterns.filter((p) => typeof p !== 'string' || !p.includes('/')));
    const qualified = compileGlobs(
      patterns.filter((p) => typeof p === 'string' && p.includes('/')),
    );
    return (name: string, pair: string | undefined) =>
      exposed(name) || (pair !== undefined && qualified(pair));
  };
  const allows = either(checked.allow);
  const blocks = either(checked.block);
  return (name, pair) =>
    (blocks === undefined || !blocks(name, pair)) && (allows === undefined || allows(name, pair));
}

function toMap<M>(
  record: Readonly<Record<string, ToolFilterSpec | undefined>> | undefined,
  what: string,
  compile: (spec: ToolFilterSpec | undefined) => M,
): Map<string, M> {
  const map = new Map<string, M>();
  if (record === undefined) return map;
  if (typeof record !== 'object' || record === null)
    throw invalid(`tool filter: ${what} must be an object keyed by name`);
  // Own entries only: a server or agent named `constructor` gets nothing from a prototype.
  for (const [key, spec] of Object.entries(record)) map.set(key, compile(spec));
  return map;
}

/**
 * The static per-server filter: `(server, tool) => boolean` over original tool names. A server
 * with no spec allows all its tools.
 */
export function compileToolFilter(
  specs: Readonly<Record<string, ToolFilterSpec | undefined>>,
): (server: string, tool: string) => boolean {
  const byServer = toMap(specs, 'the per-server specs', compileAllowBlock);
  return (server, tool) => byServer.get(server)?.(tool) ?? true;
}

/** A tool as access control sees it (the host's `HostTool` fits). */
export interface ToolAccessEntry {
  /** The exposed name. */
  readonly name: string;
  /** The tool's own name on its server. */
  readonly originalName: string;
  /** The server's key; undefined for a native tool. */
  readonly server?: string | undefined;
}

/** Who is asking. */
export interface ToolAccessContext {
  /** Keys the per-agent permissions. */
  readonly agent?: string | undefined;
  /** Anything the application wants its filter to see. */
  readonly run?: unknown;
}

/** What the dynamic filter is told. */
export interface ToolFilterContext extends ToolAccessContext {
  /** The tool's server; undefined for a native tool. */
  readonly server: string | undefined;
}

/** Decides per tool and caller; only `true` allows. A throw or rejection hides the tool. */
export type DynamicToolFilter<T extends ToolAccessEntry = ToolAccessEntry> = (
  tool: T,
  context: ToolFilterContext,
) => boolean | Promise<boolean>;

export interface ToolAccessOptions<T extends ToolAccessEntry = ToolAccessEntry> {
  /** Per server key, over original tool names. */
  servers?: Readonly<Record<string, ToolFilterSpec | undefined>>;
  /**
   * Per agent, over exposed names, or over `server/tool` (original tool name) for a glob that
   * contains `/` (native tools have no such form). The key `*` applies
   * to agents not listed and to callers with no agent; with no entry for a caller, the agent
   * layer allows everything.
   */
  agents?: Readonly<Record<string, ToolFilterSpec | undefined>>;
  /** Applied last, only to tools the static layers allow. */
  filter?: DynamicToolFilter<T>;
}

/** Which layer hid a tool. */
export type AccessDenial =
  | { readonly by: 'server'; readonly server: string }
  | { readonly by: 'agent'; readonly agent: string | undefined }
  | { readonly by: 'filter'; readonly error?: unknown };

/** Every layer of tool access, compiled once. */
export class ToolAccess<T extends ToolAccessEntry = ToolAccessEntry> {
  readonly #servers: Map<string, NameMatcher>;
  readonly #agents: Map<string, AgentMatcher>;
  readonly #filter: DynamicToolFilter<T> | undefined;

  constructor(options: ToolAccessOptions<T> = {}) {
    this.#servers = toMap(options.servers, 'servers', compileAllowBlock);
    this.#agents = toMap(options.agents, 'agents', compileAgentSpec);
    if (options.filter !== undefined && typeof options.filter !== 'function')
      throw invalid('tool filter: filter must be a function');
    this.#filter = options.filter;
  }

  /**
   * Why the tool is hidden from this caller, or undefined when it is not. Synchronous unless the
   * dynamic filter returns a promise.
   */
  check(
    entry: T,
    context: ToolAccessContext = {},
  ): AccessDenial | undefined | Promise<AccessDenial | undefined> {
    const denial = this.checkStatic(entry, context);
    if (denial !== undefined || this.#filter === undefined) return denial;
    let verdict: boolean | Promise<boolean>;
    try {
      verdict = this.#filter(entry, {
        agent: context.agent,
        server: entry.server,
        run: context.run,
      });
    } catch (error) {
      return { by: 'filter', error };
    }
    if (!isPromiseLike(verdict)) return verdict === true ? undefined : { by: 'filter' };
    return Promise.resolve(verdict).then(
      (allowed) => (allowed === true ? undefined : { by: 'filter' as const }),
      (error: unknown) => ({ by: 'filter' as const, error }),
    );
  }

  /** The server and agent layers only (never calls the dynamic filter). */
  checkStatic(entry: T, context: ToolAccessContext = {}): AccessDenial | undefined {
    const { server } = entry;
    if (server !== undefined && this.#servers.get(server)?.(entry.originalName) === false)
      return { by: 'server', server };
    const agent = context.agent;
    const permits =
      (agent === undefined ? undefined : this.#agents.get(agent)) ?? this.#agents.get('*');
    if (permits === undefined) return undefined;
    const qualified = server === undefined ? undefined : `${server}/${entry.originalName}`;
    return permits(entry.name, qualified) ? undefined : { by: 'agent', agent };
  }

  /** Whether this caller may see and call the tool. */
  allows(entry: T, context?: ToolAccessContext): boolean | Promise<boolean> {
    const denial = this.check(entry, context);
    return isPromiseLike(denial)
      ? denial.then((result) => result === undefined)
      : denial === undefined;
  }

  /** The entries this caller may see, in their order. */
  visible(entries: readonly T[], context?: ToolAccessContext): T[] | Promise<T[]> {
    const verdicts = entries.map((entry) => this.allows(entry, context));
    if (!verdicts.some(isPromiseLike))
      return entries.filter((_entry, index) => verdicts[index] === true);
    return Promise.all(verdicts.map(async (verdict) => verdict)).then((resolved) =>
      entries.filter((_entry, index) => resolved[index]),
    );
  }
}

function isPromiseLike<V>(value: V | Promise<V> | PromiseLike<V>): value is PromiseLike<V> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
