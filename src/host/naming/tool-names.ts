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
import { assignWith, exposedWith, type NameAssignment } from './name-assignment.js';
import { Namer, type ToolNamingOptions, type ToolRef } from './namer.js';

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
