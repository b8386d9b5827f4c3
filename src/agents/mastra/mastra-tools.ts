/**
 * The host's tools (or a view's) as Mastra tools: `new Agent({ tools })` offers them to its model
 * and runs what it calls through the host, so every host policy applies. A thin mapping of an
 * {@link AgentToolset}.
 */
import { createTool, type Tool } from '@mastra/core/tools';
import type { JsonObject } from '../../jsonrpc/message.js';
import {
  createAgentToolset,
  type AgentTool,
  type AgentToolset,
  type AgentToolsetOptions,
  type ToolSource,
} from '../agent-toolset.js';
import type { ModelToolResult } from '../model-result.js';
import { toMastraOutput } from './to-mastra-output.js';

/**
 * How the tools are made. `provider` defaults to `openai` (plain function tools, no strict mode);
 * set it to the provider behind the agent's model (`gemini`, `anthropic`, or `openai-strict` for
 * OpenAI strict mode), so each tool's schema is in the form that provider accepts.
 */
export type MastraToolsOptions = AgentToolsetOptions;

/** One of the tools {@link mastraTools} makes: input an object, output the call's result. */
export type MastraTool = Tool<JsonObject, ModelToolResult>;

/**
 * The tools of `source` (an `McpHost`, or a view of one) as Mastra tools, keyed by the exposed tool
 * name (each tool's `id` too), for `new Agent({ tools })`. Each tool's JSON Schema is its input
 * schema (Mastra accepts JSON Schema as it is); its `execute` calls the tool through the host (the
 * run's `abortSignal` cancels it) and returns its {@link ModelToolResult} (so the run's tool
 * results carry `truncated`, `structured` and the host's `error`); its `toModelOutput` hands the
 * model text, images and audio as native media, and a failure (a refused call, an error result)
 * as an error text. A snapshot of the tools: call again to pick up tools that changed.
 */
export function mastraTools(
  source: ToolSource,
  options: MastraToolsOptions = {},
): Record<string, MastraTool> {
  const toolset = createAgentToolset(source, {
    ...options,
    provider: options.provider ?? 'openai',
  });
  const tools: Record<string, MastraTool> = {};
  for (const agentTool of toolset.tools) tools[agentTool.name] = mastraTool(toolset, agentTool);
  return tools;
}

function mastraTool(toolset: AgentToolset, agentTool: AgentTool): MastraTool {
  const { name, description, inputSchema, strict, tool: hostTool } = agentTool;
  return createTool({
    id: name,
    description,
    ...(hostTool.title === undefined ? {} : { title: hostTool.title }),
    inputSchema,
    ...(strict ? { strict: true } : {}),
    execute: (input, { abortSignal }) =>
      toolset.call(name, input, abortSignal === undefined ? {} : { signal: abortSignal }),
    // `output` is what `execute` returned.
    toModelOutput: (output) => toMastraOutput(output as ModelToolResult),
  }) as MastraTool;
}
