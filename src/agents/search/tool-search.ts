/**
 * Tool search for large catalogues, for any provider over plain function calling: instead of the
 * whole catalogue, the model is offered a `search_tools` tool (and any pinned tools); each search
 * ranks the tool set by name, description and parameter names (BM25, see `SearchIndex`), answers
 * with one line per match, and *loads* the matches: from the next turn on, `tools()` offers them
 * with their full schemas, and the model calls them directly (no `call_tool` indirection, so each
 * call is validated against its own schema by the provider, and every host policy applies as
 * usual). A model that calls a tool it has not loaded is refused with an error result and the
 * tool is loaded, so its next attempt, made with the schema in view, goes through.
 *
 * One search state per tool set, so per view (a tool set is made from a host or a view).
 * Bounded: at most `maxLoaded` tools are loaded besides the pinned ones; loading more unloads the
 * least recently searched or called. `tools()` keeps the order tools were loaded in, so the tool
 * list grows at its end and a provider's prompt cache keeps its prefix.
 */
import { McpHostError } from '../../errors/mcp-host-error.js';
import { compileGlobs } from '../../host/catalogue/tool-filters.js';
import type { HostTool } from '../../host/host-tool.js';
import type { JsonObject } from '../../jsonrpc/message.js';
import { isObject } from '../../protocol/guards.js';
import type { AgentCallOptions, AgentTool, AgentToolset } from '../agent-toolset.js';
import { toModelError, type ModelToolResult } from '../model-result.js';
import { normaliseToolSchema } from '../schemas/normalise-tool-schema.js';
import { SearchIndex } from './search-index.js';

/** How a tool search is set up. */
export interface ToolSearchOptions {
  /**
   * Tools always offered, by exposed name or glob (`mcp__github__*`; `*` any run of characters,
   * `?` one, `\` makes the next literal). They are never unloaded.
   */
  pinned?: readonly string[];
  /** Matches one search returns and loads (1 to 50; default 8). */
  maxResults?: number;
  /** Tools loaded at once besides the pinned ones (at least `maxResults`; default 32). */
  maxLoaded?: number;
  /**
   * The tools already loaded, in load order (a previous search's `loaded`), to carry a
   * conversation over to a new tool set or process. Names no longer in the tool set are ignored.
   */
  loaded?: readonly string[];
  /** The search tool's name (default `search_tools`); it must not be a name in the tool set. */
  searchToolName?: string;
}

/** The defaults of {@link ToolSearchOptions}. */
export const DEFAULT_TOOL_SEARCH_OPTIONS = {
  maxResults: 8,
  maxLoaded: 32,
  searchToolName: 'search_tools',
} as const;

/** One tool a search found, as the model is told of it. */
export interface ToolMatch {
  /** The exposed name: what the model calls. */
  name: string;
  /** The first sentence of the description, at most 160 characters. */
  description: string;
  /** The names of the tool's top-level parameters, required ones first. */
  parameters: { name: string; required: boolean }[];
  /** The BM25 score (higher is better; only comparable within one search). */
  score: number;
}

const MAX_RESULTS_CAP = 50;
const MAX_DESCRIPTION_CHARS = 160;
/** How much of a description and how many parameter names are indexed (untrusted, unbounded). */
const MAX_INDEXED_DESCRIPTION_CHARS = 2_000;
const MAX_PARAMETERS = 64;
const MAX_PARAMETER_NAME_CHARS = 64;
/** How much of the query is echoed back to the model. */
const MAX_ECHOED_QUERY_CHARS = 100;
const PROVIDER_SAFE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const WEIGHTS = { name: 3, parameters: 1.5, description: 1 } as const;

/**
 * A tool set behind a search tool (see the module comment). Calls are safe to run in parallel;
 * the state is which tools are loaded.
 */
export class ToolSearch {
  /** The tool set searched, and that runs every call but the search's own. */
  readonly toolset: AgentToolset;
  /** The search tool, as `tools()` offers it. */
  readonly searchTool: AgentTool;
  readonly #maxResults: number;
  readonly #maxLoaded: number;
  readonly #index: SearchIndex;
  readonly #pinned: ReadonlySet<string>;
  /** Loaded tools (not pinned) in load order, each with the tick of its last use. */
  readonly #loaded = new Map<string, number>();
  #tick = 0;

  constructor(toolset: AgentToolset, options: ToolSearchOptions = {}) {
    const maxResults = options.maxResults ?? DEFAULT_TOOL_SEARCH_OPTIONS.maxResults;
    const maxLoaded = options.maxLoaded ?? DEFAULT_TOOL_SEARCH_OPTIONS.maxLoaded;
    const searchToolName = options.searchToolName ?? DEFAULT_TOOL_SEARCH_OPTIONS.searchToolName;
    if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > MAX_RESULTS_CAP)
      throw invalid(`maxResults must be an integer from 1 to ${MAX_RESULTS_CAP}`);
    if (!Number.isInteger(maxLoaded) || maxLoaded < maxResults)
      throw invalid('maxLoaded must be an integer no smaller than maxResults');
    if (options.pinned !== undefined && !Array.isArray(options.pinned))
      throw invalid('pinned must be an array of tool names or globs');
    if (typeof searchToolName !== 'string' || !PROVIDER_SAFE_NAME.test(searchToolName))
      throw invalid('searchToolName must match ^[a-zA-Z0-9_-]{1,64}$');
    if (toolset.get(searchToolName) !== undefined)
      throw invalid(
        `the tool set already has a tool named '${searchToolName}': choose another searchToolName`,
      );
    this.toolset = toolset;
    this.#maxResults = maxResults;
    this.#maxLoaded = maxLoaded;
    this.searchTool = searchTool(searchToolName, toolset, maxResults);
    const isPinned = compileGlobs(options.pinned ?? []);
    this.#pinned = new Set(toolset.tools.filter((t) => isPinned(t.name)).map((t) => t.name));
    this.#index = new SearchIndex(toolset.tools.map(indexFields));
    if (options.loaded !== undefined && !Array.isArray(options.loaded))
      throw invalid('loaded must be an array of tool names');
    for (const name of options.loaded ?? []) if (typeof name === 'string') this.#load(name);
  }

  /**
   * What to offer the model this turn: the search tool, the pinned tools (in tool set order),
   * then the loaded ones (in load order), each with its full schema.
   */
  tools(): AgentTool[] {
    const tools = [this.searchTool];
    for (const tool of this.toolset.tools) if (this.#pinned.has(tool.name)) tools.push(tool);
    for (const name of this.#loaded.keys()) tools.push(this.toolset.get(name)!);
    return tools;
  }

  /** The names of the loaded tools (pinned ones aside), in load order. */
  get loaded(): string[] {
    return [...this.#loaded.keys()];
  }

  /** The names of the pinned tools, in tool set order. */
  get pinned(): string[] {
    return this.toolset.tools.filter((t) => this.#pinned.has(t.name)).map((t) => t.name);
  }

  /**
   * The tools matching `query`, best first (at most `limit`, default `maxResults`). Loads
   * nothing: the search tool's call does.
   */
  search(query: string, limit: number = this.#maxResults): ToolMatch[] {
    return this.#index
      .search(typeof query === 'string' ? query : '', Math.min(limit, MAX_RESULTS_CAP))
      .map(({ index, score }) => toMatch(this.toolset.tools[index]!, score));
  }

  /**
   * Runs what the model called. The search tool is answered here (and loads its matches); a
   * pinned or loaded tool goes to `toolset.call` (so through the host); a tool of the set that
   * is not loaded is refused with an error result (`TOOL_NOT_LOADED`) and loaded, so the model can call it again with its schema in view; an unknown
   * name is a `TOOL_NOT_FOUND` error result. Throws only as `toolset.call` does (an abort, a
   * deferred input).
   */
  async call(
    name: string,
    args: unknown,
    options: AgentCallOptions = {},
  ): Promise<ModelToolResult> {
    if (name === this.searchTool.name) {
      if (options.signal?.aborted === true)
        throw new McpHostError('ABORTED', 'the tool search was aborted', {
          tool: name,
          cause: options.signal.reason,
        });
      return this.#answer(args);
    }
    if (this.#pinned.has(name) || this.#loaded.has(name)) {
      this.#load(name);
      return this.toolset.call(name, args, options);
    }
    const tool = this.toolset.get(name);
    if (tool === undefined) {
      return toModelError(
        new McpHostError(
          'TOOL_NOT_FOUND',
          `no tool is named '${name}': call ${this.searchTool.name} to find the tool you need`,
          { tool: name },
        ),
      );
    }
    this.#load(name);
    return toModelError(
      new McpHostError(
        'TOOL_NOT_LOADED',
        `tool '${name}' was not loaded, so it did not run; it is loaded now: call it again with arguments that match its parameters`,
        {
          tool: name,
          ...(tool.tool.server === undefined ? {} : { serverName: tool.tool.server }),
        },
      ),
    );
  }

  #answer(args: unknown): ModelToolResult {
    const query = queryOf(args);
    if (query === undefined || query.trim() === '') {
      return toModelError(
        new McpHostError(
          'INVALID_ARGUMENT',
          `${this.searchTool.name} needs a query: a few words saying what you want to do`,
          { tool: this.searchTool.name },
        ),
      );
    }
    const matches = this.search(query);
    for (const match of matches) this.#load(match.name);
    const echoed = JSON.stringify(Array.from(query).slice(0, MAX_ECHOED_QUERY_CHARS).join(''));
    const text =
      matches.length === 0
        ? `No tool matches ${echoed}. Search again with other words: the action, the thing it acts on, or the service's name.`
        : [
            matches.length === 1
              ? `1 tool matches ${echoed}. It is loaded: call it directly.`
              : `${matches.length} tools match ${echoed}, best first. They are loaded: call them directly.`,
            ...matches.map(matchLine),
          ].join('\n');
    return { isError: false, parts: [{ type: 'text', text }], text };
  }

  /** Loads `name` (or marks it used), unloading the least recently used past `maxLoaded`. */
  #load(name: string): void {
    if (this.toolset.get(name) === undefined || this.#pinned.has(name)) return;
    const tick = ++this.#tick;
    if (this.#loaded.has(name)) {
      this.#loaded.set(name, tick);
      return;
    }
    if (this.#loaded.size >= this.#maxLoaded) {
      let oldest: string | undefined;
      let oldestTick = Number.POSITIVE_INFINITY;
      for (const [loaded, used] of this.#loaded)
        if (used < oldestTick) [oldest, oldestTick] = [loaded, used];
      if (oldest !== undefined) this.#loaded.delete(oldest);
    }
    this.#loaded.set(name, tick);
  }
}

/** A search over `toolset` (see {@link ToolSearch}). Throws `INVALID_ARGUMENT` for bad options. */
export function createToolSearch(
  toolset: AgentToolset,
  options: ToolSearchOptions = {},
): ToolSearch {
  return new ToolSearch(toolset, options);
}

function invalid(message: string): McpHostError {
  return new McpHostError('INVALID_ARGUMENT', `tool search: ${message}`);
}

function searchTool(name: string, toolset: AgentToolset, maxResults: number): AgentTool {
  const description =
    `Find tools by what you want to do. ${toolset.tools.length} tools are available but not loaded; ` +
    `this returns up to ${maxResults} matches (name, what it does, parameters) and loads them, ` +
    'so you can call them from your next step. Search again whenever you need another tool.';
  const inputSchema: JsonObject = {
    type: 'object',
    properties: {
      query: {
        type: 'string',
        description:
          'What you want to do, in a few words: the action, the thing, the service (for example "create github issue").',
      },
    },
    required: ['query'],
    additionalProperties: false,
  };
  const normalised = normaliseToolSchema(name, inputSchema, toolset.provider);
  const tool: HostTool = { name, description, inputSchema, originalName: name };
  return {
    name,
    description,
    inputSchema: normalised.schema,
    strict: normalised.strict,
    diagnostics: normalised.diagnostics,
    tool,
  };
}

function indexFields(tool: AgentTool) {
  const host = tool.tool;
  return [
    {
      text: [tool.name, host.originalName, host.server ?? '', host.title ?? ''].join(' '),
      weight: WEIGHTS.name,
    },
    {
      text: parameters(tool)
        .map((p) => p.name)
        .join(' '),
      weight: WEIGHTS.parameters,
    },
    { text: tool.description.slice(0, MAX_INDEXED_DESCRIPTION_CHARS), weight: WEIGHTS.description },
  ];
}

function toMatch(tool: AgentTool, score: number): ToolMatch {
  return {
    name: tool.name,
    description: oneLine(tool.description),
    parameters: parameters(tool),
    score,
  };
}

/** The top-level parameters of the tool's original schema, required ones first. */
function parameters(tool: AgentTool): { name: string; required: boolean }[] {
  const schema = tool.tool.inputSchema;
  const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  const required = new Set(
    isObject(schema) && Array.isArray(schema.required)
      ? schema.required.filter((n): n is string => typeof n === 'string')
      : [],
  );
  const names = Object.keys(properties).slice(0, MAX_PARAMETERS);
  const cut = (name: string) => Array.from(name).slice(0, MAX_PARAMETER_NAME_CHARS).join('');
  return [
    ...names.filter((n) => required.has(n)).map((n) => ({ name: cut(n), required: true })),
    ...names.filter((n) => !required.has(n)).map((n) => ({ name: cut(n), required: false })),
  ];
}

/** The first sentence of `description` on one line, at most 160 characters. */
function oneLine(description: string): string {
  const flat = description
    .slice(0, 4 * MAX_DESCRIPTION_CHARS)
    .replace(/\s+/g, ' ')
    .trim();
  const end = flat.search(/[.!?](?:\s|$)/);
  const sentence = end === -1 ? flat : flat.slice(0, end + 1);
  const chars = Array.from(sentence);
  return chars.length <= MAX_DESCRIPTION_CHARS
    ? sentence
    : `${chars.slice(0, MAX_DESCRIPTION_CHARS - 1).join('')}…`;
}

/** `- name(required, optional?): description` */
function matchLine(match: ToolMatch): string {
  const params = match.parameters.map((p) => (p.required ? p.name : `${p.name}?`)).join(', ');
  return `- ${match.name}(${params})${match.description === '' ? '' : `: ${match.description}`}`;
}

/** The query of the search tool's arguments: an object (or its JSON text) with a string `query`. */
function queryOf(args: unknown): string | undefined {
  let value = args;
  if (typeof args === 'string') {
    try {
      value = JSON.parse(args);
    } catch {
      return undefined;
    }
  }
  return isObject(value) && typeof value.query === 'string' ? value.query : undefined;
}
