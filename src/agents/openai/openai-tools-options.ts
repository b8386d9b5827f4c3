/**
 * What the two OpenAI adapters (Chat Completions and Responses) share: their options, the tool
 * set they are made from, and how a result reads when it is text (errors marked, so the model can
 * tell a failure from an answer: neither API has an error flag on a tool's output).
 */
import {
  createAgentToolset,
  type AgentToolset,
  type AgentToolsetOptions,
} from '../agent-toolset.js';
import type { ToolSource } from '../agent-toolset.js';
import { partsText, type ModelResultPart, type ModelToolResult } from '../model-result.js';

/** How the OpenAI tools are made: a tool set's options, with `provider` `openai-strict` by default. */
export interface OpenAIToolsOptions extends AgentToolsetOptions {
  /**
   * Sees every result before it is mapped, with the call it answers: its `truncated` flag (the
   * host's result budget cut it), its `error` (the host refused or could not make the call), its
   * `structured` content. The OpenAI message types have no place for these.
   */
  onResult?: (result: ModelToolResult, call: { id: string; name: string }) => void;
}

/** The tool set an OpenAI adapter maps: `openai-strict` unless the caller chose another provider. */
export function openaiToolset(source: ToolSource, options: OpenAIToolsOptions): AgentToolset {
  const { onResult: _onResult, ...rest } = options;
  return createAgentToolset(source, { ...rest, provider: options.provider ?? 'openai-strict' });
}

/** What starts the text of every failed call, so the model reads it as a failure. */
export const ERROR_MARKER = 'Error:';

/**
 * `text` as the model should read it: unchanged for a success, starting with `Error:` for a
 * failure (the host's own errors already do; a tool's `isError` text gets the prefix).
 */
export function markedText(result: ModelToolResult, text: string): string {
  if (!result.isError || text.startsWith(ERROR_MARKER)) return text;
  return `${ERROR_MARKER} ${text === '' ? 'the tool failed and said nothing more' : text}`;
}

/** `data` (base64) of type `mimeType` as a `data:` URL, the form both APIs take inline media in. */
export function dataUrl(mimeType: string, data: string): string {
  return `data:${mimeType};base64,${data}`;
}

/** A file part's name for the model: the last segment of its URI, else a generic one. */
export function fileName(part: Extract<ModelResultPart, { type: 'file' }>): string {
  const last = part.uri.split(/[/\\]/).pop()?.split(/[?#]/)[0] ?? '';
  return last === '' ? 'file.pdf' : last;
}

/** The parts as one text (see `partsText`), empty text parts left out. */
export function joinedText(parts: readonly ModelResultPart[]): string {
  return partsText(parts.filter((part) => part.type !== 'text' || part.text !== ''));
}
