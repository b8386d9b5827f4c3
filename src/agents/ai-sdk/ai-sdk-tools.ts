/**
 * The host's tools (or a view's) as a Vercel AI SDK tool set: `generateText({ model, tools })` and
 * `streamText` offer them to the model and run what it calls through the host, so every host
 * policy applies. A thin mapping of an {@link AgentToolset}; each result reaches the model through
 * `toModelOutput` (`toAiSdkOutput`): text and media as `content` parts (images, audio and files as
 * `file` parts carrying their bytes, so each provider sends them in its native form), a failure as
 * `error-text`.
 */
import { jsonSchema, tool, type Tool, type ToolSet } from 'ai';
import type { JsonObject } from '../../jsonrpc/message.js';
import {
  createAgentToolset,
  type AgentTool,
  type AgentToolset,
  type AgentToolsetOptions,
  type ToolSource,
} from '../agent-toolset.js';
import { partsText, type ModelResultPart, type ModelToolResult } from '../model-result.js';

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

/** What an AI SDK tool's `toModelOutput` returns (the SDK's `ToolResultOutput`). */
export type AiSdkToolOutput = Awaited<ReturnType<NonNullable<Tool['toModelOutput']>>>;

type ContentOutput = Extract<AiSdkToolOutput, { type: 'content' }>;
type ContentPart = ContentOutput['value'][number];

/**
 * `result` as the AI SDK's model output: `error-text` (the result's text) when the call failed,
 * plain `text` when every part is text, else `content` with a `file` part per image, audio clip or
 * file (links as text: a `resource_link` URI is for the application to read, not for the provider
 * to fetch).
 */
export function toAiSdkOutput(result: ModelToolResult): AiSdkToolOutput {
  if (result.isError) return { type: 'error-text', value: result.text };
  if (result.parts.every((part) => part.type === 'text')) {
    return { type: 'text', value: result.text };
  }
  return { type: 'content', value: result.parts.map(toContentPart) };
}

function toContentPart(part: ModelResultPart): ContentPart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
    case 'audio':
      return { type: 'file', mediaType: part.mimeType, data: { type: 'data', data: part.data } };
    case 'file':
      return {
        type: 'file',
        mediaType: part.mimeType,
        data: { type: 'data', data: part.data },
        filename: fileName(part.uri),
      };
    case 'link':
      return { type: 'text', text: partsText([part]) };
  }
}

/** The last path segment of `uri` (what providers show as the file's name), else the URI. */
function fileName(uri: string): string {
  const last = uri
    .split(/[/\\]/)
    .filter((segment) => segment !== '')
    .pop();
  return last === undefined || last.includes(':') ? uri : last;
}
