import { McpHostError } from '../../errors/mcp-host-error.js';
import type { Logger } from '../../internal/logger.js';
import type { CallContext, HostTool } from '../host-tool.js';
import { ToolAccess, type ToolFilterSpec } from './tool-filters.js';

/** What decides which tools a caller may see and call. */
export interface CallerViewOptions {
  /**
   * Per-agent permissions (`context.agent`): allow and block globs over exposed names, or over
   * `server/tool` for a glob containing `/`; block wins; the key `*` applies to agents not listed
   * and to callers without one.
   */
  permissions?: Readonly<Record<string, ToolFilterSpec>>;
  /** Per tool and caller; a filter that throws hides the tool (and is logged). */
  filter?: (tool: HostTool, context: CallContext | undefined) => boolean;
}

/**
 * The tools a caller may see, and why a call is refused: per-agent permissions, then the host
 * filter, applied the same way when listing and when calling, so a hidden tool cannot be called
 * by naming it.
 */
export class CallerView {
  readonly #access: ToolAccess<HostTool> | undefined;
  readonly #filter: CallerViewOptions['filter'];
  readonly #logger: Logger;

  constructor(options: CallerViewOptions, logger: Logger) {
    this.#access =
      options.permissions === undefined
        ? undefined
        : new ToolAccess<HostTool>({ agents: options.permissions });
    this.#filter = options.filter;
    this.#logger = logger;
  }

  /** Whether anything can hide a tool (when nothing can, `visible` is the list itself). */
  get filters(): boolean {
    return this.#access !== undefined || this.#filter !== undefined;
  }

  /** The tools this caller may see, in their order. */
  visible(tools: HostTool[], context: CallContext | undefined): HostTool[] {
    if (!this.filters) return tools;
    return tools.filter((tool) => this.#why(tool, context) === undefined);
  }

  /** `TOOL_DENIED` when this caller may not call `tool`, else undefined. */
  refusal(tool: HostTool, context: CallContext | undefined): McpHostError | undefined {
    if (!this.filters) return undefined;
    const why = this.#why(tool, context);
    return why === undefined ? undefined : deniedError(tool, why);
  }

  #why(tool: HostTool, context: CallContext | undefined): string | undefined {
    const access = this.#access;
    if (
      access !== undefined &&
      access.checkStatic(tool, context?.agent === undefined ? {} : { agent: context.agent }) !==
        undefined
    )
      return `not permitted for agent '${context?.agent ?? '*'}'`;
    const filter = this.#filter;
    if (filter === undefined) return undefined;
    try {
      return filter(tool, context) ? undefined : 'hidden from this caller by the host filter';
    } catch (error) {
      this.#logger.warn(`host: the tool filter threw on '${tool.name}'; the tool is hidden`, {
        error: String(error),
      });
      return 'hidden from this caller by the host filter';
    }
  }
}

/** `TOOL_DENIED`: a call refused before it was sent, with the reason in `details.reason`. */
export function deniedError(tool: HostTool, reason: string, cause?: unknown): McpHostError {
  return new McpHostError('TOOL_DENIED', `tool '${tool.name}' was refused: ${reason}`, {
    serverName: tool.server,
    tool: tool.name,
    details: { reason },
    ...(cause === undefined ? {} : { cause }),
  });
}
