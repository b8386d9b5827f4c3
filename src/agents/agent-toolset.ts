/**
 * The adapter core: the host's tools (or a view's) as a provider-neutral set a model can be given.
 * Each tool has its exposed name, a description, its input schema normalised for one provider, and
 * a `call` that goes through `host.callTool`, so every host policy (filters, permissions,
 * approval, pins, budgets, metrics, events) applies to what a model calls. Every adapter
 * (`mcp-host/openai`, `mcp-host/anthropic`, ...) is a thin mapping of this set to its library.
 */
import { McpHostError } from '../errors/mcp-host-error.js';
import { toMcpHostError } from '../errors/to-mcp-host-error.js';
import type { JsonObject } from '../jsonrpc/message.js';
import type { HostCallOptions } from '../host/calls/call-pipeline.js';
import type { CallContext, HostTool } from '../host/host-tool.js';
import { isObject } from '../protocol/guards.js';
import type { CallToolResult, ProgressNotificationParams } from '../protocol/types.js';
import { toModelError, toModelResult, type ModelToolResult } from './model-result.js';
import { restoreArguments } from './restore-arguments.js';
import {
  normaliseToolSchema,
  type SchemaDiagnostic,
  type SchemaProvider,
} from './schemas/normalise-tool-schema.js';

/**
 * What a tool set is made from: an `McpHost`, or a view of one (`host.view(...)`). Anything with
 * these two methods will do (a test double, a wrapper that adds logging).
 */
export interface ToolSource {
  tools(context?: CallContext): HostTool[];
  callTool(name: string, args?: JsonObject, options?: HostCallOptions): Promise<CallToolResult>;
}

/** How a tool set is made. */
export interface AgentToolsetOptions {
  /**
   * Whose schema rules the tools are offered under. Each adapter has its own default (the OpenAI
   * ones `openai-strict`, Anthropic `anthropic`); set it to the provider behind a framework, for
   * example `gemini` for a LangChain or AI SDK agent that talks to Gemini.
   */
  provider?: SchemaProvider;
  /** Who is calling: the host's per-agent permissions and approval hook see it. */
  context?: CallContext;
  /** Only tools this returns true for are offered (after the host's own filters). */
  filter?: (tool: HostTool) => boolean;
  /** Idle timeout of each call (default: the host's). */
  timeoutMs?: number;
  /** Progress notifications of every call, with the tool's name. */
  onProgress?: (tool: string, progress: ProgressNotificationParams) => void;
}

/** One tool as a model is given it. */
export interface AgentTool {
  /** The exposed name: what the model sees and calls. */
  readonly name: string;
  /** The tool's description (its title when it has none; empty when it has neither). */
  readonly description: string;
  /** The input schema, normalised for the tool set's provider. */
  readonly inputSchema: JsonObject;
  /**
   * `openai-strict`: whether the schema meets strict mode (a tool that cannot is offered
   * non-strict, and a diagnostic says why); false for every other provider.
   */
  readonly strict: boolean;
  /** What the normaliser changed in this tool's schema, and why. */
  readonly diagnostics: readonly SchemaDiagnostic[];
  /** The tool as the host offers it (server, original name, annotations, output schema). */
  readonly tool: HostTool;
}

/** Per call: cancellation, and the input the server may ask for during it. */
export interface AgentCallOptions {
  signal?: AbortSignal;
  /** Modern era: handlers of the call's `input_required` rounds (see `CallOptions.input`). */
  input?: HostCallOptions['input'];
  /** Modern era: the next round of a call paused by `INPUT_DEFERRED` (see `CallOptions.resume`). */
  resume?: HostCallOptions['resume'];
}

/**
 * The tools of a host (or view) for one provider, and the one way to run what a model called.
 * A snapshot: make a new one (cheap) to pick up tools that changed since.
 */
export class AgentToolset {
  readonly provider: SchemaProvider;
  readonly tools: readonly AgentTool[];
  readonly #byName: ReadonlyMap<string, AgentTool>;
  readonly #source: ToolSource;
  readonly #options: AgentToolsetOptions;

  constructor(source: ToolSource, options: AgentToolsetOptions & { provider: SchemaProvider }) {
    this.provider = options.provider;
    this.#source = source;
    this.#options = options;
    const tools: AgentTool[] = [];
    for (const tool of source.tools(options.context)) {
      if (options.filter !== undefined && !options.filter(tool)) continue;
      tools.push(agentTool(tool, options.provider));
    }
    this.tools = tools;
    this.#byName = new Map(tools.map((tool) => [tool.name, tool]));
  }

  /** Every diagnostic of every tool, in tool order. */
  get diagnostics(): SchemaDiagnostic[] {
    return this.tools.flatMap((tool) => tool.diagnostics);
  }

  /** The tool the model knows as `name`. */
  get(name: string): AgentTool | undefined {
    return this.#byName.get(name);
  }

  /**
   * Runs the tool a model called, with the arguments it sent (an object, or the JSON text of
   * one, as most providers send it), and returns the result for the model. Never throws for
   * anything the model did or the tool or host refused: an unknown tool, arguments that are not
   * an object, a refused or failed call all come back as error results the model can read (the
   * host's error in `error`). Throws only when `signal` aborts the call, or with `INPUT_DEFERRED`
   * when an input handler deferred (the call is paused, not failed: see `CallOptions.resume`).
   */
  async call(
    name: string,
    args: unknown,
    options: AgentCallOptions = {},
  ): Promise<ModelToolResult> {
    const tool = this.#byName.get(name);
    if (tool === undefined) {
      return toModelError(
        new McpHostError('TOOL_NOT_FOUND', `no tool is named '${name}' in this tool set`, {
          tool: name,
        }),
      );
    }
    const parsed = parseArguments(args);
    if (parsed === undefined) {
      return toModelError(
        new McpHostError(
          'INVALID_ARGUMENT',
          `tool '${name}': the arguments are not a JSON object; call it again with an object`,
          {
            tool: name,
            ...(tool.tool.server === undefined ? {} : { serverName: tool.tool.server }),
          },
        ),
      );
    }
    const restored =
      this.provider === 'openai-strict' && tool.strict
        ? restoreArguments(parsed, tool.tool.inputSchema)
        : parsed;
    const { context, timeoutMs, onProgress } = this.#options;
    try {
      const result = await this.#source.callTool(name, restored, {
        ...(context === undefined ? {} : { context }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...(onProgress === undefined ? {} : { onProgress: (p) => onProgress(name, p) }),
        ...(options.input === undefined ? {} : { input: options.input }),
        ...(options.resume === undefined ? {} : { resume: options.resume }),
      });
      return toModelResult(result, tool.tool);
    } catch (error) {
      if (options.signal?.aborted === true) throw error;
      if (error instanceof McpHostError && error.code === 'INPUT_DEFERRED') throw error;
      const failure = toMcpHostError(error, { tool: name });
      if (failure instanceof McpHostError) return toModelError(failure);
      // The server answered the call with a JSON-RPC error (unknown tool, bad params): the model
      // can read it and try again.
      return toModelError(
        new McpHostError('TOOL_ERROR', `tool '${name}' failed: ${failure.message}`, {
          tool: name,
          cause: failure,
          ...(tool.tool.server === undefined ? {} : { serverName: tool.tool.server }),
        }),
      );
    }
  }
}

/** The tools of `source` for one provider (see {@link AgentToolset}). */
export function createAgentToolset(
  source: ToolSource,
  options: AgentToolsetOptions & { provider: SchemaProvider },
): AgentToolset {
  return new AgentToolset(source, options);
}

function agentTool(tool: HostTool, provider: SchemaProvider): AgentTool {
  const input = isObject(tool.inputSchema) ? tool.inputSchema : {};
  const normalised = normaliseToolSchema(tool.name, input, provider);
  return {
    name: tool.name,
    description: tool.description ?? tool.title ?? '',
    inputSchema: normalised.schema,
    strict: normalised.strict,
    diagnostics: normalised.diagnostics,
    tool,
  };
}

/** The arguments as an object: models send JSON text (OpenAI) or an object (Anthropic). */
function parseArguments(args: unknown): JsonObject | undefined {
  if (args === undefined || args === null || args === '') return {};
  if (typeof args === 'string') {
    try {
      const value: unknown = JSON.parse(args);
      return isObject(value) ? value : undefined;
    } catch {
      return undefined;
    }
  }
  return isObject(args) ? args : undefined;
}
