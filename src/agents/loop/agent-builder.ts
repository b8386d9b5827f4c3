/**
 * The fluent way to make an agent: `agent().model(m).system('...').stdio('fs', 'npx', [...])
 * .tool(t).maxSteps(10).build()`. Each method sets one `AgentOptions` field (the server methods
 * add one server); `build()` is `createAgent` of what was set.
 */
import { McpHostError } from '../../errors/mcp-host-error.js';
import type { CallContext, NativeTool } from '../../host/host-tool.js';
import type { McpHost } from '../../host/mcp-host.js';
import type { HostServerDefinition } from '../../host/server-definition.js';
import type { HostView } from '../../host/views/host-view.js';
import type { ViewOptions } from '../../host/views/view-access.js';
import type { StdioDefinition } from '../../transport/transport-definition.js';
import type { ModelClient } from '../models/model-client.js';
import type { ToolSearchOptions } from '../search/tool-search.js';
import { createAgent, type Agent, type AgentOptions } from './agent.js';
import type { AgentElicitationHandler, AgentSamplingOptions } from './agent-input.js';

/** Settings of a stdio server besides its command and arguments. */
export interface StdioServerOptions
  extends
    Omit<HostServerDefinition, 'name' | 'transport'>,
    Pick<StdioDefinition, 'env' | 'publicEnv' | 'cwd'> {}

/** Builds an agent step by step (see {@link agent}). */
export class AgentBuilder {
  readonly #options: Partial<AgentOptions> & {
    tools: NativeTool[];
    servers: HostServerDefinition[];
  } = { tools: [], servers: [] };

  /** The model that answers. */
  model(model: ModelClient): this {
    this.#options.model = model;
    return this;
  }

  /** The system prompt. */
  system(prompt: string): this {
    this.#options.system = prompt;
    return this;
  }

  /** A stdio MCP server the agent starts (and stops on `close()`). */
  stdio(
    name: string,
    command: string,
    args: readonly string[] = [],
    options: StdioServerOptions = {},
  ): this {
    const { env, publicEnv, cwd, ...server } = options;
    const transport: StdioDefinition = {
      type: 'stdio',
      command,
      args: [...args],
      ...(env === undefined ? {} : { env }),
      ...(publicEnv === undefined ? {} : { publicEnv }),
      ...(cwd === undefined ? {} : { cwd }),
    };
    return this.server({ ...server, name, transport });
  }

  /** Any MCP server the agent connects (and closes on `close()`): stdio, HTTP, WebSocket. */
  server(definition: HostServerDefinition): this {
    this.#options.servers.push(definition);
    return this;
  }

  /** A host the caller owns: the agent uses its tools and leaves it open. */
  host(host: McpHost): this {
    this.#options.host = host;
    return this;
  }

  /** Narrows the tools to a view (see `AgentOptions.view`). */
  view(view: HostView | ViewOptions | string): this {
    this.#options.view = view;
    return this;
  }

  /** A native tool beside the MCP tools. */
  tool(tool: NativeTool): this {
    this.#options.tools.push(tool);
    return this;
  }

  /** Who is calling, for the host's permissions and approval hook. */
  context(context: CallContext): this {
    this.#options.context = context;
    return this;
  }

  /** Model calls per run. */
  maxSteps(steps: number): this {
    this.#options.maxSteps = steps;
    return this;
  }

  /** Tool calls run per step. */
  maxToolCallsPerStep(calls: number): this {
    this.#options.maxToolCallsPerStep = calls;
    return this;
  }

  /** Idle timeout of each tool call. */
  callTimeoutMs(ms: number): this {
    this.#options.callTimeoutMs = ms;
    return this;
  }

  /** Token budget of a run. */
  maxTokens(tokens: number): this {
    this.#options.maxTokens = tokens;
    return this;
  }

  /** Tool search instead of the whole catalogue (see `AgentOptions.toolSearch`). */
  toolSearch(options: boolean | ToolSearchOptions = true): this {
    this.#options.toolSearch = options;
    return this;
  }

  /** Answers servers' sampling requests, behind an approval hook (see `AgentOptions.sampling`). */
  sampling(options: AgentSamplingOptions): this {
    this.#options.sampling = options;
    return this;
  }

  /** Answers servers' questions for a person (see `AgentOptions.elicitation`). */
  elicitation(handler: AgentElicitationHandler): this {
    this.#options.elicitation = handler;
    return this;
  }

  /** The agent. Throws `INVALID_ARGUMENT` without a model, or for bad settings. */
  build(): Agent {
    const { tools, servers, model, ...rest } = this.#options;
    if (model === undefined)
      throw new McpHostError('INVALID_ARGUMENT', 'agent: call .model(...) before .build()');
    return createAgent({
      ...rest,
      model,
      ...(tools.length === 0 ? {} : { tools: [...tools] }),
      ...(servers.length === 0 ? {} : { servers: [...servers] }),
    });
  }
}

/** A new agent builder: `agent().model(m).stdio(name, command, args).build()`. */
export function agent(): AgentBuilder {
  return new AgentBuilder();
}
