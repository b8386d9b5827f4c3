/**
 * The host's tools (or a view's) as a Vercel AI SDK tool set: `generateText({ model, tools })` and
 * `streamText` offer them to the model and run what it calls through the host, so every host
 * policy applies. A thin mapping of an {@link AgentToolset}.
 */
import { jsonSchema, tool, type ToolSet } from 'ai';
import type { JsonObject } from '../../jsonrpc/message.js';
import {
  createAgentToolset,
  type AgentTool,
  type AgentToolset,
  type AgentToolsetOptions,
  type ToolSource,
} from '../agent-toolset.js';
import type { ModelToolResult } from '../model-result.js';
import { toAiSdkOutput } from './to-ai-sdk-output.js';

/**
 * How the tool set is made. `provider` defaults to `openai` (plain function tools, no strict
 * mode); set it to the provider behind your AI SDK model (`gemini` for `@ai-sdk/google`,
 * `anthropic` for `@ai-sdk/anthropic`, `openai-strict` for OpenAI strict mode), so each tool's
 * schema is in the form that provider accepts.
 */
export type AiSdkToolsOptions = AgentToolsetOptions;

/**
 * The tools of `source` (an `McpHost`, or a view of one) as an AI SDK `ToolSet`, keyed by the
 * exposed tool name. Each tool's `execute` calls the tool through the host (the run's
 * `abortSignal` cancels it) and returns its {@link ModelToolResult} (so `toolResults[].output`
 * carries `truncated`, `structured` and the host's `error`); its `toModelOutput` hands the model
 * text, images and audio as native media parts, and a failure (a refused call, an error result) as
 * `error-text`. A snapshot of the tools: call again to pick up tools that changed.
 */
export function aiSdkTools(source: ToolSource, options: AiSdkToolsOptions = {}): ToolSet {
  const toolset = createAgentToolset(source, {
    ...options,
    provider: options.provider ?? 'openai',
  });
  const tools: ToolSet = {};
  for (const agentTool of toolset.tools) tools[agentTool.name] = aiSdkTool(toolset, agentTool);
  return tools;
}

function aiSdkTool(toolset: AgentToolset, agentTool: AgentTool): ToolSet[string] {
  const { name, description, inputSchema, strict, tool: hostTool } = agentTool;
  return tool<JsonObject, ModelToolResult, Record<string, never>>({
    ...(description === '' ? {} : { description }),
    inputSchema: jsonSchema<JsonObject>(inputSchema),
    ...(strict ? { strict: true } : {}),
    metadata: {
      originalName: hostTool.originalName,
      ...(hostTool.server === undefined ? {} : { server: hostTool.server }),
    },
    execute: (args, { abortSignal }) =>
      toolset.call(name, args, abortSignal === undefined ? {} : { signal: abortSignal }),
    toModelOutput: ({ output }) => toAiSdkOutput(output),
  });
}
