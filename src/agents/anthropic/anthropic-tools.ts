/**
 * The host's tools as Anthropic Messages tools, and the `tool_result` blocks that answer the
 * model's `tool_use` blocks: text as text blocks, images as `image` blocks (base64 source), PDFs
 * as `document` blocks, failures with `is_error: true`. Audio (which Messages cannot take), other
 * files and resource links become short bracketed notes in the text. Plain objects typed with
 * `@anthropic-ai/sdk`'s types: nothing of the SDK is loaded at run time.
 */
import type {
  Base64ImageSource,
  ContentBlock,
  ContentBlockParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlock,
  ToolUseBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import {
  createAgentToolset,
  type AgentCallOptions,
  type AgentTool,
  type AgentToolset,
  type AgentToolsetOptions,
  type ToolSource,
} from '../agent-toolset.js';
import { partsText, type ModelResultPart, type ModelToolResult } from '../model-result.js';

/** How the Anthropic tools are made: a tool set's options, with `provider` `anthropic` by default. */
export interface AnthropicToolsOptions extends AgentToolsetOptions {
  /**
   * Sees every result before it is mapped, with the `tool_use` it answers: its `truncated` flag
   * (the host's result budget cut it), its `error` (the host refused or could not make the call),
   * its `structured` content. A `tool_result` block has no place for these.
   */
  onResult?: (result: ModelToolResult, call: { id: string; name: string }) => void;
}

/** A block of `tool_result` content. */
type ToolResultContent = Exclude<ToolResultBlockParam['content'], string | undefined>[number];

/** The host's tools for the Messages API, and the one way to answer the model's `tool_use`s. */
export interface AnthropicTools {
  /** The tools, for `messages.create({ tools })`. */
  readonly tools: Tool[];
  /** The tool set they map (names, schemas, diagnostics). */
  readonly toolset: AgentToolset;
  /**
   * Runs one `tool_use` and returns the `tool_result` that answers it. Never throws for what the
   * model or a tool got wrong (an unknown tool, bad input, a refused or failed call come back
   * with `is_error: true`); throws only when `signal` aborts.
   */
  call(
    toolUse: ToolUseBlock | ToolUseBlockParam,
    options?: AgentCallOptions,
  ): Promise<ToolResultBlockParam>;
  /**
   * Runs every `tool_use` block of an assistant message's content at once and returns their
   * `tool_result` blocks in order: the content of the next `user` message.
   */
  callAll(
    content: ReadonlyArray<ContentBlock | ContentBlockParam>,
    options?: AgentCallOptions,
  ): Promise<ToolResultBlockParam[]>;
}

/**
 * The tools of `source` (an `McpHost` or a view) as Messages tools, offered under `anthropic`
 * schema rules unless `options.provider` says otherwise.
 */
export function anthropicTools(
  source: ToolSource,
  options: AnthropicToolsOptions = {},
): AnthropicTools {
  const { onResult, ...rest } = options;
  const toolset = createAgentToolset(source, {
    ...rest,
    provider: options.provider ?? 'anthropic',
  });
  const call = async (
    toolUse: ToolUseBlock | ToolUseBlockParam,
    callOptions: AgentCallOptions = {},
  ): Promise<ToolResultBlockParam> => {
    const result = await toolset.call(toolUse.name, toolUse.input, callOptions);
    onResult?.(result, { id: toolUse.id, name: toolUse.name });
    return anthropicToolResult(toolUse.id, result);
  };
  return {
    tools: toolset.tools.map(anthropicTool),
    toolset,
    call,
    async callAll(content, callOptions = {}) {
      const uses = content.filter(
        (block): block is ToolUseBlock | ToolUseBlockParam => block.type === 'tool_use',
      );
      return Promise.all(uses.map((toolUse) => call(toolUse, callOptions)));
    },
  };
}

/** The `tool_result` block that answers `tool_use` `id` with `result`. */
export function anthropicToolResult(id: string, result: ModelToolResult): ToolResultBlockParam {
  const content = resultContent(result);
  return {
    type: 'tool_result',
    tool_use_id: id,
    ...(content === undefined ? {} : { content }),
    ...(result.isError ? { is_error: true } : {}),
  };
}

/** `tool` as a Messages tool. */
export function anthropicTool(tool: AgentTool): Tool {
  return {
    name: tool.name,
    ...(tool.description === '' ? {} : { description: tool.description }),
    input_schema: { ...tool.inputSchema, type: 'object' },
  };
}

/**
 * The content of a result's `tool_result`: its text when it has no media Messages takes (none at
 * all when that is empty), else blocks, adjacent text (and notes for what it cannot take) joined
 * into one text block, empty text left out (the API refuses empty text blocks).
 */
function resultContent(result: ModelToolResult): ToolResultBlockParam['content'] {
  if (result.parts.every((part) => anthropicMedia(part) === undefined)) {
    const text = joinedText(result.parts);
    return text === '' ? undefined : text;
  }
  const blocks: ToolResultContent[] = [];
  let pending: ModelResultPart[] = [];
  const flush = (): void => {
    const text = joinedText(pending);
    pending = [];
    if (text !== '') blocks.push({ type: 'text', text });
  };
  for (const part of result.parts) {
    const block = anthropicMedia(part);
    if (block === undefined) {
      pending.push(part);
      continue;
    }
    flush();
    blocks.push(block);
  }
  flush();
  return blocks;
}

/** The parts as one text (see `partsText`), empty text parts left out. */
function joinedText(parts: readonly ModelResultPart[]): string {
  return partsText(parts.filter((part) => part.type !== 'text' || part.text !== ''));
}

/** `part` as a Messages content block when it is media the API takes. */
export function anthropicMedia(part: ModelResultPart): ToolResultContent | undefined {
  switch (part.type) {
    case 'image': {
      const mediaType = part.mimeType.toLowerCase();
      return isImageMediaType(mediaType)
        ? { type: 'image', source: { type: 'base64', media_type: mediaType, data: part.data } }
        : undefined;
    }
    case 'file':
      return part.mimeType === 'application/pdf'
        ? {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: part.data },
            title: part.uri,
          }
        : undefined;
    case 'text':
    case 'audio':
    case 'link':
      return undefined;
  }
}

const IMAGE_MEDIA_TYPES: ReadonlySet<string> = new Set<Base64ImageSource['media_type']>([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
]);

function isImageMediaType(type: string): type is Base64ImageSource['media_type'] {
  return IMAGE_MEDIA_TYPES.has(type);
}
