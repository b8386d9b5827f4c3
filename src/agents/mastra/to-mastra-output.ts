/**
 * A tool result as a Mastra tool's `toModelOutput` hands it to the model: Mastra's authored form
 * (the AI SDK v5 tool output: `content` with `media` parts for base64 media), which Mastra turns
 * into the form of whichever model specification the agent's model speaks, so images and audio
 * reach the model as native media. A failure is `error-text`. Pure; loads nothing of Mastra.
 */
import { partsText, type ModelResultPart, type ModelToolResult } from '../model-result.js';

/** What `toMastraOutput` returns: Mastra's (AI SDK v5's) tool output for the model. */
export type MastraToolOutput =
  | { type: 'text'; value: string }
  | { type: 'error-text'; value: string }
  | { type: 'content'; value: MastraContentPart[] };

/** A part of a `content` output: text, or base64 media with its IANA media type. */
export type MastraContentPart =
  { type: 'text'; text: string } | { type: 'media'; data: string; mediaType: string };

/**
 * `result` as Mastra's model output: `error-text` (the result's text) when the call failed, plain
 * `text` when every part is text, else `content` with a `media` part per image, audio clip or
 * file (links as text: a `resource_link` URI is for the application to read, not for the provider
 * to fetch).
 */
export function toMastraOutput(result: ModelToolResult): MastraToolOutput {
  if (result.isError) return { type: 'error-text', value: result.text };
  if (result.parts.every((part) => part.type === 'text')) {
    return { type: 'text', value: result.text };
  }
  return { type: 'content', value: result.parts.map(toContentPart) };
}

function toContentPart(part: ModelResultPart): MastraContentPart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
    case 'audio':
    case 'file':
      return { type: 'media', data: part.data, mediaType: part.mimeType };
    case 'link':
      return { type: 'text', text: partsText([part]) };
  }
}
