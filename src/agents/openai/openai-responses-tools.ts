/**
 * The host's tools as OpenAI Responses API function tools, and the `function_call_output` items
 * that answer what the model called. A function call's output takes text, images and files
 * natively: a text-only result is sent as a string, one with media as a list of `input_text`,
 * `input_image` (a `data:` URL) and `input_file` (PDFs) parts. Plain objects typed with the
 * `openai` package's types: nothing of `openai` is loaded at run time.
 */
import type {
  FunctionTool,
  ResponseFunctionCallOutputItem,
  ResponseFunctionToolCall,
  ResponseInputItem,
  ResponseOutputItem,
} from 'openai/resources/responses/responses';
import type { AgentCallOptions, AgentTool, AgentToolset, ToolSource } from '../agent-toolset.js';
import type { ModelResultPart, ModelToolResult } from '../model-result.js';
import {
  dataUrl,
  fileName,
  joinedText,
  markedText,
  openaiToolset,
  type OpenAIToolsOptions,
} from './openai-tools-options.js';

/** A `function_call_output` input item: what answers one function call. */
export type FunctionCallOutputItem = ResponseInputItem.FunctionCallOutput;

/** The host's tools for the Responses API, and the one way to answer the model's function calls. */
export interface OpenAIResponsesTools {
  /** The function tools, for `responses.create({ tools })` (`strict` per tool). */
  readonly tools: FunctionTool[];
  /** The tool set they map (names, schemas, diagnostics). */
  readonly toolset: AgentToolset;
  /**
   * Runs one function call and returns its output item. Never throws for what the model or a
   * tool got wrong (an unknown tool, bad arguments, a refused or failed call: the output's text
   * starts with `Error:`); throws only when `signal` aborts.
   */
  call(item: ResponseFunctionToolCall, options?: AgentCallOptions): Promise<FunctionCallOutputItem>;
  /**
   * Runs every `function_call` item of a response's `output` at once and returns their output
   * items, in order, to send as the next request's `input` (other items are left alone).
   */
  callAll(
    items: ReadonlyArray<ResponseOutputItem | ResponseInputItem>,
    options?: AgentCallOptions,
  ): Promise<FunctionCallOutputItem[]>;
}

/**
 * The tools of `source` (an `McpHost` or a view) as Responses API function tools, offered under
 * `openai-strict` schema rules unless `options.provider` says otherwise.
 */
export function openaiResponsesTools(
  source: ToolSource,
  options: OpenAIToolsOptions = {},
): OpenAIResponsesTools {
  const toolset = openaiToolset(source, options);
  const call = async (
    item: ResponseFunctionToolCall,
    callOptions: AgentCallOptions = {},
  ): Promise<FunctionCallOutputItem> => {
    const result = await toolset.call(item.name, item.arguments, callOptions);
    options.onResult?.(result, { id: item.call_id, name: item.name });
    return { type: 'function_call_output', call_id: item.call_id, output: responsesOutput(result) };
  };
  return {
    tools: toolset.tools.map(functionTool),
    toolset,
    call,
    async callAll(items, callOptions = {}) {
      const calls = items.filter(
        (item): item is ResponseFunctionToolCall => item.type === 'function_call',
      );
      return Promise.all(calls.map((item) => call(item, callOptions)));
    },
  };
}

/** `tool` as a Responses function tool (`strict` as the tool set decided). */
export function functionTool(tool: AgentTool): FunctionTool {
  return {
    type: 'function',
    name: tool.name,
    ...(tool.description === '' ? {} : { description: tool.description }),
    parameters: tool.inputSchema,
    strict: tool.strict,
  };
}

/**
 * The output of a call: its text when it has no media the API takes, else its parts, adjacent
 * text (and media it cannot take, as bracketed notes) joined into one `input_text`.
 */
export function responsesOutput(
  result: ModelToolResult,
): string | ResponseFunctionCallOutputItem[] {
  if (result.parts.every((part) => responsesMedia(part) === undefined)) {
    return markedText(result, joinedText(result.parts));
  }
  const items: ResponseFunctionCallOutputItem[] = [];
  let pending: ModelResultPart[] = [];
  const flush = (): void => {
    const joined = joinedText(pending);
    // The first item carries the error marker, so a failure reads as one from its start.
    const text = items.length === 0 ? markedText(result, joined) : joined;
    pending = [];
    if (text !== '') items.push({ type: 'input_text', text });
  };
  for (const part of result.parts) {
    const media = responsesMedia(part);
    if (media === undefined) {
      pending.push(part);
      continue;
    }
    flush();
    items.push(media);
  }
  flush();
  return items;
}

/** `part` as a function output item when it is media the API takes. */
export function responsesMedia(part: ModelResultPart): ResponseFunctionCallOutputItem | undefined {
  switch (part.type) {
    case 'image':
      return { type: 'input_image', image_url: dataUrl(part.mimeType, part.data) };
    case 'file':
      return part.mimeType === 'application/pdf'
        ? {
            type: 'input_file',
            filename: fileName(part),
            file_data: dataUrl(part.mimeType, part.data),
          }
        : undefined;
    case 'text':
    case 'audio':
    case 'link':
      return undefined;
  }
}
