import { McpHostError } from '../../errors/mcp-host-error.js';
import type { Tool } from '../../protocol/types.js';
import type { HostTool, NativeTool } from '../host-tool.js';
import { ToolNames } from '../naming/tool-names.js';
import { type ToolNamingOptions } from '../naming/namer.js';

export type CatalogueEntry =
  { kind: 'mcp'; tool: HostTool } | { kind: 'native'; tool: HostTool; native: NativeTool };

/** The host's whole tool list changed: what was added, removed and changed, by exposed name. */
export interface ToolsChangedEvent {
  /** The server whose tools changed; undefined for native tools. */
  server: string | undefined;
  added: string[];
  removed: string[];
  changed: string[];
}

/**
 * The host's one tool list: each server's tools under their exposed names (see ToolNames) and
 * the native tools under their own, with the map back to where each lives. Rebuilt when a server's
 * tools change (each change returns what it did to the list, for the host to report); read (a Map
 * lookup) on every call.
 */
export class ToolCatalogue {
  readonly #names: ToolNames;
  /** Each server's tools, in the servers' places (see `place`), whatever order they arrive in. */
  readonly #servers = new Map<string, readonly Tool[]>();
  readonly #places = new Map<string, number>();
  readonly #natives = new Map<string, NativeTool>();
  #entries = new Map<string, CatalogueEntry>();
  #list: HostTool[] | undefined;

  constructor(naming?: ToolNamingOptions) {
    this.#names = new ToolNames(naming);
  }

  get(name: string): CatalogueEntry | undefined {
    return this.#entries.get(name);
  }

  /** The native tool registered under `name`. */
  native(name: string): NativeTool | undefined {
    return this.#natives.get(name);
  }

  list(): HostTool[] {
    this.#list ??= [...this.#entries.values()].map((entry) => entry.tool);
    return this.#list;
  }

  /**
   * Gives `server` its place in the list (the host's order of servers), before its tools arrive:
   * the list then reads the same (and names that collide resolve the same) whichever server
   * answers first. A server never placed goes after the placed ones, in arrival order.
   */
  place(server: string): void {
    if (!this.#places.has(server)) this.#places.set(server, this.#places.size);
  }

  /** Offers a server's tools (none: it leaves the list). */
  setServerTools(server: string, tools: readonly Tool[]): ToolsChangedEvent | undefined {
    if (tools.length === 0) this.#servers.delete(server);
    else if (this.#servers.has(server)) this.#servers.set(server, tools);
    else {
      this.#servers.set(server, tools);
      this.#sortServers();
    }
    return this.#rebuild(server);
  }

  removeServer(server: string): ToolsChangedEvent | undefined {
    this.#servers.delete(server);
    return this.#rebuild(server);
  }

  addNative(tool: NativeTool): ToolsChangedEvent | undefined {
    if (typeof tool.name !== 'string' || tool.name === '' || typeof tool.run !== 'function')
      throw new McpHostError('INVALID_ARGUMENT', 'a native tool needs a name and a run function');
    if (this.#natives.has(tool.name) || this.#entries.has(tool.name))
      throw new McpHostError('INVALID_ARGUMENT', `a tool named '${tool.name}' already exists`, {
        tool: tool.name,
      });
    this.#natives.set(tool.name, tool);
    return this.#rebuild(undefined);
  }

  /** Withdraws a native tool: what changed, or undefined when there was none of that name. */
  removeNative(name: string): ToolsChangedEvent | undefined {
    if (!this.#natives.delete(name)) return undefined;
    return this.#rebuild(undefined);
  }

  /** The name a quarantined tool would have (for telling a caller why it cannot call it). */
  quarantinedName(server: string, tool: string): string | undefined {
    try {
      return this.#names.exposedName(server, tool);
    } catch {
      return undefined;
    }
  }

  #sortServers(): void {
    const place = (name: string) => this.#places.get(name) ?? Number.MAX_SAFE_INTEGER;
    const sorted = [...this.#servers].sort(([a], [b]) => place(a) - place(b));
    this.#servers.clear();
    for (const [name, tools] of sorted) this.#servers.set(name, tools);
  }

  #rebuild(server: string | undefined): ToolsChangedEvent | undefined {
    const before = this.#entries;
    const pairs: { server: string; tool: string }[] = [];
    for (const [name, tools] of this.#servers)
      for (const tool of tools) pairs.push({ server: name, tool: tool.name });
    const assignment = this.#names.assign(pairs);
    const entries = new Map<string, CatalogueEntry>();
    for (const native of this.#natives.values()) {
      entries.set(native.name, {
        kind: 'native',
        native,
        tool: {
          name: native.name,
          ...(native.title === undefined ? {} : { title: native.title }),
          ...(native.description === undefined ? {} : { description: native.description }),
          inputSchema: native.inputSchema,
          ...(native.outputSchema === undefined ? {} : { outputSchema: native.outputSchema }),
          ...(native.annotations === undefined ? {} : { annotations: native.annotations }),
          originalName: native.name,
        },
      });
    }
    for (const [name, tools] of this.#servers) {
      for (const tool of tools) {
        const exposed = assignment.exposed(name, tool.name);
        if (exposed === undefined || entries.has(exposed)) continue;
        entries.set(exposed, { kind: 'mcp', tool: hostTool(exposed, name, tool) });
      }
    }
    this.#entries = entries;
    this.#list = undefined;
    const added: string[] = [];
    const removed: string[] = [];
    const changed: string[] = [];
    for (const [name, entry] of entries) {
      const old = before.get(name);
      if (old === undefined) added.push(name);
      else if (old.kind === 'mcp' && entry.kind === 'mcp' && !sameDefinition(old.tool, entry.tool))
        changed.push(name);
    }
    for (const name of before.keys()) if (!entries.has(name)) removed.push(name);
    if (added.length + removed.length + changed.length === 0) return undefined;
    return { server, added, removed, changed };
  }
}

function hostTool(exposed: string, server: string, tool: Tool): HostTool {
  return {
    name: exposed,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    server,
    originalName: tool.name,
  };
}

function sameDefinition(a: HostTool, b: HostTool): boolean {
  // The same listing object (a server that did not relist) is the common case: no stringify.
  if (
    a.inputSchema === b.inputSchema &&
    a.outputSchema === b.outputSchema &&
    a.annotations === b.annotations
  )
    return a.description === b.description && a.title === b.title;
  return (
    a.description === b.description &&
    a.title === b.title &&
    JSON.stringify(a.inputSchema) === JSON.stringify(b.inputSchema) &&
    JSON.stringify(a.outputSchema) === JSON.stringify(b.outputSchema) &&
    JSON.stringify(a.annotations) === JSON.stringify(b.annotations)
  );
}
