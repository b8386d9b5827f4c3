/**
 * A tool result as the Vercel AI SDK hands it to a model (`toModelOutput`'s return value): text and
 * media as `content` parts (images, audio and files as `file` parts carrying their bytes, so each
 * provider sends them in its native form), a failure as `error-text`. Pure: imports only types of
 * `ai`, so nothing of the library is loaded here.
 */
import type { Tool } from 'ai';
import { partsText, type ModelResultPart, type ModelToolResult } from '../model-result.js';

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
