import { McpHostError } from '../../errors/mcp-host-error.js';
import { compileGlobs, ToolAccess, type ToolFilterSpec } from '../catalogue/tool-filters.js';
import type { CallContext, HostTool } from '../host-tool.js';

/**
 * What one view of a host shows: a narrower toolset over the host's pooled connections (see
 * `McpHost.view`). Globs are the host's (see `permissions`): a glob with `/` is matched against
 * `server/tool` (the tool's own name), any other against the exposed name.
 */
export interface ViewOptions {
  /**
   * A label for errors and call events (`host.view('name')` uses the view's key). Default
   * `'unnamed'`.
   */
  name?: string;
  /**
   * Only these servers' tools, resources and prompts (default: every server). With `servers` set,
   * a native tool is in the view only when an `allow` glob without `/` matches its name.
   */
  servers?: readonly string[];
  /** Only tools one of these globs matches (absent or empty: every tool of the view's servers). */
  allow?: readonly string[];
  /** Never tools one of these globs matches (block wins over allow). */
  block?: readonly string[];
  /**
   * Per-agent permissions (`context.agent`), in the host's form: they apply after the host's own,
   * and a call needs both to allow it.
   */
  permissions?: Readonly<Record<string, ToolFilterSpec>>;
  /**
   * The largest result this view hands onward, in bytes of text; it applies when smaller than
   * the host's `maxResultBytes` (the host's marker and `_meta` flag show the cut). Absent or 0:
   * the host's budget alone.
   */
  maxResultBytes?: number;
}

function invalid(view: string, message: string): McpHostError {
  return new McpHostError('INVALID_ARGUMENT', `view '${view}': ${message}`, {
    details: { view },
  });
}

function stringList(view: string, key: string, list: unknown): readonly string[] | undefined {
  if (list === undefined) return undefined;
  if (!Array.isArray(list) || list.some((item) => typeof item !== 'string'))
    throw invalid(view, `${key} must be an array of strings`);
  return list as readonly string[];
}

/**
 * One view's rules, compiled once: which tools are in it (servers, allow, block), which of them
 * each agent may call (permissions), and its result budget. Used by the host's call pipeline
 * (after the host's own access checks) and by `HostView` when listing. Pure: no I/O.
 */
export class ViewAccess {
  /** The view's label, as errors name it. */
  readonly name: string;
  /** The view's budget, or undefined when it adds none. */
  readonly maxResultBytes: number | undefined;
  readonly #servers: ReadonlySet<string> | undefined;
  readonly #filter: ToolAccess<HostTool>;
  /** Native tools an `allow` glob names (used only when `servers` is set). */
  readonly #natives: (name: string) => boolean;
  readonly #permissions: ToolAccess<HostTool> | undefined;

  constructor(options: ViewOptions, name?: string) {
    if (typeof options !== 'object' || options === null)
      throw invalid(name ?? 'unnamed', 'options must be an object');
    const label = name ?? options.name ?? 'unnamed';
    if (typeof label !== 'string' || label === '')
      throw invalid(String(label), 'its name must be a non-empty string');
    this.name = label;
    const servers = stringList(label, 'servers', options.servers);
    this.#servers = servers === undefined ? undefined : new Set(servers);
    const allow = stringList(label, 'allow', options.allow);
    const block = stringList(label, 'block', options.block);
    const budget = options.maxResultBytes;
    if (budget !== undefined && !(Number.isSafeInteger(budget) && budget >= 0))
      throw invalid(label, 'maxResultBytes must be a whole number of bytes, 0 or more');
    this.maxResultBytes = budget === undefined || budget === 0 ? undefined : budget;
    try {
      this.#filter = new ToolAccess<HostTool>({
        agents: { '*': { allow, block } },
      });
      this.#natives = compileGlobs((allow ?? []).filter((glob) => !glob.includes('/')));
      this.#permissions =
        options.permissions === undefined
          ? undefined
          : new ToolAccess<HostTool>({ agents: options.permissions });
    } catch (error) {
      throw invalid(label, error instanceof McpHostError ? error.message : String(error));
    }
  }

  /** Whether the view lists this server (its resources, prompts and, filters allowing, tools). */
  hasServer(server: string): boolean {
    return this.#servers === undefined || this.#servers.has(server);
  }

  /** Whether the tool is in the view at all (servers, allow, block; not per-agent permissions). */
  includes(tool: HostTool): boolean {
    if (tool.server === undefined) {
      if (this.#servers !== undefined && !this.#natives(tool.name)) return false;
    } else if (!this.hasServer(tool.server)) return false;
    return this.#filter.checkStatic(tool) === undefined;
  }

  /** `TOOL_DENIED` naming the tool and the view when this caller may not call it here. */
  refusal(tool: HostTool, context: CallContext | undefined): McpHostError | undefined {
    if (!this.includes(tool)) return this.#denied(tool, `it is not in view '${this.name}'`);
    const agent = context?.agent;
    if (
      this.#permissions !== undefined &&
      this.#permissions.checkStatic(tool, agent === undefined ? {} : { agent }) !== undefined
    )
      return this.#denied(tool, `not permitted for agent '${agent ?? '*'}' in view '${this.name}'`);
    return undefined;
  }

  /** The tools of the list this caller may see here, in their order. */
  visible(tools: readonly HostTool[], context: CallContext | undefined): HostTool[] {
    return tools.filter((tool) => this.refusal(tool, context) === undefined);
  }

  #denied(tool: HostTool, reason: string): McpHostError {
    return new McpHostError('TOOL_DENIED', `tool '${tool.name}' was refused: ${reason}`, {
      serverName: tool.server,
      tool: tool.name,
      details: { reason, view: this.name },
    });
  }
}
