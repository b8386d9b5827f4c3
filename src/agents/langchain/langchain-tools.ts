/**
 * The host's tools as LangChain tools (`@langchain/core` 1): one `DynamicStructuredTool` per tool
 * of an {@link AgentToolset}, with the normalised JSON schema as its schema and
 * `responseFormat: 'content_and_artifact'`. The content is the text, or, with media, LangChain
 * content blocks (media as base64 data blocks the chat model integrations turn into their native
 * form); the artifact is the whole {@link ModelToolResult} (truncation flag, host error, raw
 * result). A failed call becomes a `ToolMessage` with `status: 'error'`. Thin: every call goes through
 * `toolset.call`, with the abort signal of the run.
 */
import { ToolMessage } from '@langchain/core/messages';
import type { MessageContent } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { DynamicStructuredTool } from '@langchain/core/tools';
import type { ToolRunnableConfig } from '@langchain/core/tools';
import type { JSONSchema } from '@langchain/core/utils/json_schema';
import {
  createAgentToolset,
  type AgentTool,
  type AgentToolset,
  type AgentToolsetOptions,
  type ToolSource,
} from '../agent-toolset.js';
import { partsText, type ModelResultPart, type ModelToolResult } from '../model-result.js';
import type { SchemaProvider } from '../schemas/normalise-tool-schema.js';

/** How {@link langchainTools} makes its tools. */
export interface LangChainToolsOptions extends AgentToolsetOptions {
  /**
   * Whose schema rules the tools follow (default `openai`): `anthropic` for `ChatAnthropic`,
   * `gemini` for `ChatGoogleGenerativeAI`, `openai-strict` for a model bound with `strict: true`.
   */
  provider?: SchemaProvider;
}

/** A LangChain tool made by {@link langchainTools}: its output is content and a result artifact. */
export type LangChainTool = DynamicStructuredTool<
  JSONSchema,
  unknown,
  unknown,
  LangChainToolOutput
>;

/**
 * What a tool's function returns: the content blocks and the result (LangChain's
 * `content_and_artifact`), or, for a failed call made from a tool call, a `ToolMessage` with
 * `status: 'error'` as the content (LangChain passes a message through as it is).
 */
type LangChainToolOutput = [MessageContent | ToolMessage, ModelToolResult];

/**
 * The tools of `source` (an `McpHost`, or a view of one) as LangChain tools, for
 * `model.bindTools(tools)`, `createAgent({ tools })` or LangGraph's `ToolNode`. Invoked with a
 * tool call (`tool.invoke(toolCall)`), each returns a `ToolMessage` whose `artifact` is the
 * {@link ModelToolResult}; a call the host refused or the tool failed has `status: 'error'`.
 * A snapshot of the tools: call again to pick up tools that changed.
 */
export function langchainTools(
  source: ToolSource,
  options: LangChainToolsOptions = {},
): LangChainTool[] {
  const toolset = createAgentToolset(source, {
    ...options,
    provider: options.provider ?? 'openai',
  });
  return toolset.tools.map((tool) => langchainTool(toolset, tool));
}

function langchainTool(toolset: AgentToolset, tool: AgentTool): LangChainTool {
  return new DynamicStructuredTool<JSONSchema, unknown, unknown, LangChainToolOutput>({
    name: tool.name,
    description: tool.description,
    schema: tool.inputSchema,
    responseFormat: 'content_and_artifact',
    func: async (input: unknown, _runManager, config?: RunnableConfig) => {
      const result = await toolset.call(
        tool.name,
        input,
        config?.signal === undefined ? {} : { signal: config.signal },
      );
      const content = toLangChainContent(result.parts, toolset.provider);
      const toolCallId = (config as ToolRunnableConfig | undefined)?.toolCall?.id;
      if (!result.isError || toolCallId === undefined) return [content, result];
      return [
        new ToolMessage({
          status: 'error',
          content,
          artifact: result,
          tool_call_id: toolCallId,
          name: tool.name,
        }),
        result,
      ];
    },
  });
}

/**
 * A result's parts as LangChain content. Media go as LangChain's base64 data blocks
 * (`source_type: 'base64'`): the form `ChatOpenAI` and `ChatAnthropic` convert to their native
 * blocks inside a tool message in `@langchain/core` 1 (the newer
 * `{ type: 'image', data, mimeType }` blocks pass through them unconverted there). Links and the
 * media an integration would reject become their text.
 */
function toLangChainContent(
  parts: readonly ModelResultPart[],
  provider: SchemaProvider,
): MessageContent {
  // Text alone goes as a string: the one content every integration sends as it is (ChatOpenAI on
  // the Responses API turns any other tool message content into JSON text).
  if (parts.every((part) => part.type === 'text')) return partsText(parts);
  return parts.map((part) => {
    switch (part.type) {
      case 'text':
        return { type: 'text', text: part.text };
      case 'image':
        return { type: 'image', source_type: 'base64', mime_type: part.mimeType, data: part.data };
      case 'audio':
        // ChatOpenAI throws (failing the whole turn) on audio other than WAV and MP3.
        return isOpenAi(provider) && !OPENAI_AUDIO.has(part.mimeType)
          ? { type: 'text', text: partsText([part]) }
          : { type: 'audio', source_type: 'base64', mime_type: part.mimeType, data: part.data };
      case 'file':
        return {
          type: 'file',
          source_type: 'base64',
          mime_type: part.mimeType,
          data: part.data,
          // ChatOpenAI requires a file name.
          metadata: { filename: fileName(part.uri) },
        };
      case 'link':
        return { type: 'text', text: partsText([part]) };
    }
  });
}

const OPENAI_AUDIO = new Set(['audio/wav', 'audio/mp3']);

function isOpenAi(provider: SchemaProvider): boolean {
  return provider === 'openai' || provider === 'openai-strict';
}

/** The last segment of a resource URI, for a file block's name. */
function fileName(uri: string): string {
  const last = uri
    .split(/[/\\]/)
    .filter((segment) => segment !== '')
    .pop();
  return last === undefined || last.includes(':') ? 'resource' : last;
}
