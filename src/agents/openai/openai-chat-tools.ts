/**
 * The host's tools as OpenAI Chat Completions function tools, and the tool messages that answer
 * what the model called. Chat Completions tool messages carry text only, so a result's media go
 * to the model in one `user` message after the tool messages (images as `image_url` parts with
 * `data:` URLs, WAV and MP3 audio as `input_audio`, PDFs as `file` parts), and each tool message
 * says what follows. Plain objects typed with the `openai` package's types: nothing of `openai`
 * is loaded at run time.
 */
import type {
  ChatCompletionContentPart,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import { McpHostError } from '../../errors/mcp-host-error.js';
import type { AgentCallOptions, AgentTool, AgentToolset, ToolSource } from '../agent-toolset.js';
import { toModelError, type ModelResultPart, type ModelToolResult } from '../model-result.js';
import {
  dataUrl,
  fileName,
  joinedText,
  markedText,
  openaiToolset,
  type OpenAIToolsOptions,
} from './openai-tools-options.js';

/** The host's tools for Chat Completions, and the one way to answer the model's tool calls. */
export interface OpenAIChatTools {
  /** The function tools, for `chat.completions.create({ tools })` (`strict` per tool). */
  readonly tools: ChatCompletionFunctionTool[];
  /** The tool set they map (names, schemas, diagnostics). */
  readonly toolset: AgentToolset;
  /**
   * Runs one tool call and returns the messages that answer it: its `tool` message, then, when
   * the result has media, a `user` message carrying them. Never throws for what the model or a
   * tool got wrong (an unknown tool, bad arguments, a refused or failed call: the tool message
   * starts with `Error:`); throws only when `signal` aborts.
   */
  call(
    toolCall: ChatCompletionMessageToolCall,
    options?: AgentCallOptions,
  ): Promise<ChatCompletionMessageParam[]>;
  /**
   * Runs every function tool call of an assistant message at once and returns the messages to
   * append after it: one `tool` message per call, in the calls' order, then at most one `user`
   * message with the media of all of them (the API wants the tool messages right after the
   * assistant message). Custom tool calls are left to the caller.
   */
  callAll(
    toolCalls: readonly ChatCompletionMessageToolCall[] | null | undefined,
    options?: AgentCallOptions,
  ): Promise<ChatCompletionMessageParam[]>;
}

/** One answered call: its tool message, and the media parts that go in the `user` message. */
export interface ChatAnswer {
  message: ChatCompletionToolMessageParam;
  media: ChatCompletionContentPart[];
  id: string;
  name: string;
}

/**
 * The tools of `source` (an `McpHost` or a view) as Chat Completions function tools, offered under
 * `openai-strict` schema rules unless `options.provider` says otherwise.
 */
export function openaiChatTools(
  source: ToolSource,
  options: OpenAIToolsOptions = {},
): OpenAIChatTools {
  const toolset = openaiToolset(source, options);
  const answer = async (
    toolCall: ChatCompletionMessageToolCall,
    callOptions: AgentCallOptions,
  ): Promise<ChatAnswer> => {
    const name = toolCall.type === 'function' ? toolCall.function.name : toolCall.custom.name;
    const result =
      toolCall.type === 'function'
        ? await toolset.call(name, toolCall.function.arguments, callOptions)
        : toModelError(
            new McpHostError(
              'TOOL_NOT_FOUND',
              `'${name}' is a custom tool; this tool set has function tools only`,
              { tool: name },
            ),
          );
    options.onResult?.(result, { id: toolCall.id, name });
    return chatAnswer(toolCall.id, name, result);
  };
  return {
    tools: toolset.tools.map(chatTool),
    toolset,
    async call(toolCall, callOptions = {}) {
      return chatMessages([await answer(toolCall, callOptions)]);
    },
    async callAll(toolCalls, callOptions = {}) {
      const calls = (toolCalls ?? []).filter((toolCall) => toolCall.type === 'function');
      return chatMessages(
        await Promise.all(calls.map((toolCall) => answer(toolCall, callOptions))),
      );
    },
  };
}

/**
 * The answer to call `id` of tool `name`: a tool message with the result's text (failures
 * marked), and its media (images, PDFs, audio the API takes) for the user message after it.
 */
export function chatAnswer(id: string, name: string, result: ModelToolResult): ChatAnswer {
  const media = result.parts.flatMap(chatMedia);
  // The media go in the user message; the rest (text, links, media the API cannot take as
  // bracketed notes) is the tool message's text.
  const rest = result.parts.filter((part) => chatMedia(part).length === 0);
  let text = markedText(result, joinedText(rest));
  if (media.length > 0) {
    text += `${text === '' ? '' : '\n\n'}[${media.length === 1 ? 'an attachment follows' : `${media.length} attachments follow`} in the next user message, under this call's id ${id}]`;
  }
  return { message: { role: 'tool', tool_call_id: id, content: text }, media, id, name };
}

/** `tool` as a Chat Completions function tool (`strict` as the tool set decided). */
export function chatTool(tool: AgentTool): ChatCompletionFunctionTool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description === '' ? {} : { description: tool.description }),
      parameters: tool.inputSchema,
      strict: tool.strict,
    },
  };
}

/** The tool messages in order, then one `user` message with every call's media, labelled. */
export function chatMessages(answers: readonly ChatAnswer[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = answers.map((answer) => answer.message);
  const content: ChatCompletionContentPart[] = [];
  for (const answer of answers) {
    if (answer.media.length === 0) continue;
    content.push({ type: 'text', text: `Attachments of tool call ${answer.id} (${answer.name}):` });
    content.push(...answer.media);
  }
  if (content.length > 0) out.push({ role: 'user', content });
  return out;
}

/** `part` as Chat Completions user content, when it is media the API takes (else none). */
export function chatMedia(part: ModelResultPart): ChatCompletionContentPart[] {
  switch (part.type) {
    case 'image':
      return [{ type: 'image_url', image_url: { url: dataUrl(part.mimeType, part.data) } }];
    case 'audio': {
      const format = AUDIO_FORMATS[part.mimeType.toLowerCase()];
      return format === undefined
        ? []
        : [{ type: 'input_audio', input_audio: { data: part.data, format } }];
    }
    case 'file':
      return part.mimeType === 'application/pdf'
        ? [
            {
              type: 'file',
              file: { filename: fileName(part), file_data: dataUrl(part.mimeType, part.data) },
            },
          ]
        : [];
    case 'text':
    case 'link':
      return [];
  }
}

/** The audio types `input_audio` takes, by MIME type. */
const AUDIO_FORMATS: Readonly<Record<string, 'wav' | 'mp3'>> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/vnd.wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
};
