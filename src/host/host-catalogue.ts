import { McpHostError } from '../errors/mcp-host-error.js';
import type { Tool } from '../protocol/types.js';
import type { HostTool, NativeTool } from './host-options.js';
import type { ServerSlot } from './server-slot.js';
import { ToolNames } from './tool-names.js';
import { type ToolNamingOptions } from './namer.js';

export type CatalogueEntry =
  | { kind: 'mcp'; tool: HostTool; slot: ServerSlot }
  | { kind: 'native'; tool: HostTool; native: NativeTool };

export interface CatalogueChange {
  server: string | undefined;
  added: string[];
  removed: string[];
  changed: string[];
}

type Fire = (change: CatalogueChange) => void;

/**
 * The host's one tool list: each server's tools under their exposed names (see ToolNames) and
 * the native tools under their own, with the map back to where each lives. Rebuilt when a server's
 * tools change; read (a Map lookup) on every call.
 */
export class HostCatalogue {
  readonly #names: ToolNames;
  readonly #servers = new Map<string, { slot: ServerSlot; tools: readonly Tool[] }>();
  readonly #natives = new Map<string, NativeTool>();
  readonly #promptNames: ToolNames;
  #entries = new Map<string, CatalogueEntry>();
  #list: HostTool[] | undefined;

  constructor(naming?: ToolNamingOptions) {
    this.#names = new ToolNames(naming);
    this.#promptNames = new ToolNames(naming);
  }

  get(name: string): CatalogueEntry | undefined {
    return this.#entries.get(name);
  }

  list(): HostTool[] {
    this.#list ??= [...this.#entries.values()].map((entry) => entry.tool);
    return this.#list;
  }

  setServerTools(slot: ServerSlot, tools: readonly Tool[], fire: Fire): void {
    if (tools.length === 0) this.#servers.delete(slot.name);
    else this.#servers.set(slot.name, { slot, tools });
    this.#rebuild(slot.name, fire);
  }

  removeServer(server: string, fire: Fire): void {
    this.#servers.delete(server);
    this.#rebuild(server, fire);
  }

  addNative(tool: NativeTool, fire: Fire): void {
    if (typeof tool.name !== 'string' || tool.name === '' || typeof tool.run !== 'function')
      throw new McpHostError('INVALID_ARGUMENT', 'a native tool needs a name and a run function');
    if (this.#natives.has(tool.name) || this.#entries.has(tool.name))
      throw new McpHostError('INVALID_ARGUMENT', `a tool named '${tool.name}' already exists`, {
        tool: tool.name,
      });
    this.#natives.set(tool.name, tool);
    this.#rebuild(undefined, fire);
  }

  removeNative(name: string, fire: Fire): boolean {
    if (!this.#natives.delete(name)) return false;
    this.#rebuild(undefined, fire);
    return true;
  }

  /**
   * Names a server's prompts (same scheme and collision rule as tools, in their own namespace) and
   * returns the exposed name of each, in order.
   */
  setPrompts(server: string, prompts: readonly string[]): (string | undefined)[] {
    this.#promptNames.setServer(server, prompts);
    return prompts.map((prompt) => this.#promptNames.exposed(server, prompt));
  }

  /** The name a quarantined tool would have (for telling a caller why it cannot call it). */
  quarantinedName(server: string, tool: string): string | undefined {
    try {
      return this.#names.exposedName(server, tool);
    } catch {
      return undefined;
    }
  }

  /** The server and original name behind an exposed prompt name. */
  resolvePrompt(name: string): { server: string; prompt: string } | undefined {
    const ref = this.#promptNames.resolve(name);
    return ref === undefined ? undefined : { server: ref.server, prompt: ref.tool };
  }

  #rebuild(server: string | undefined, fire: Fire): void {
    const before = this.#entries;
    const pairs: { server: string; tool: string }[] = [];
    for (const [name, { tools }] of this.#servers)
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
    for (const [name, { slot, tools }] of this.#servers) {
      for (const tool of tools) {
        const exposed = assignment.exposed(name, tool.name);
        if (exposed === undefined || entries.has(exposed)) continue;
        entries.set(exposed, { kind: 'mcp', slot, tool: hostTool(exposed, name, tool) });
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
    if (added.length + removed.length + changed.length > 0)
      fire({ server, added, removed, changed });
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
