/**
 * A tool result as a model should see it, before any provider's wire form: text joined, media kept
 * as media (never base64 pasted into text), links kept as links, `structuredContent` preferred when
 * the tool declares an output schema, errors and the result budget's cut made visible. Each
 * adapter maps these parts to its provider's native blocks. Pure.
 */
import type { McpHostError } from '../errors/mcp-host-error.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { resultTruncation, type ResultTruncation } from '../host/calls/result-budget.js';
import type { HostTool } from '../host/host-tool.js';
import { isObject } from '../protocol/guards.js';
import type { CallToolResult, ContentBlock } from '../protocol/types.js';

/** One part of a result for a model. `data` is base64, as MCP carries it. */
export type ModelResultPart =
  | { type: 'text'; text: string }
  | { type: 'image'; mimeType: string; data: string }
  | { type: 'audio'; mimeType: string; data: string }
  /** An embedded binary resource that is not an image or audio (a PDF, an archive). */
  | { type: 'file'; mimeType: string; data: string; uri: string }
  /** A `resource_link`: a URI the model (or the application) may read later. */
  | { type: 'link'; uri: string; name: string; mimeType?: string; description?: string };

/** A tool result for a model: what every adapter starts from. */
export interface ModelToolResult {
  /** The tool failed (its `isError`, or a call the host refused or could not complete). */
  isError: boolean;
  /** The parts in order; never empty (an empty result is one empty text part). */
  parts: ModelResultPart[];
  /**
   * Every part as text, joined by blank lines, for providers whose tool results are text only:
   * media and files become a short bracketed note (their bytes are in `parts`), links their URI.
   */
  text: string;
  /** The tool's `structuredContent`, when it declared an `outputSchema` and sent one. */
  structured?: JsonObject;
  /** Set when the host's result budget cut the result (the text also says so, for the model). */
  truncated?: ResultTruncation;
  /** The host's error when the call failed before or instead of a tool result. */
  error?: McpHostError;
  /** The result as the host returned it (undefined when the call failed). */
  raw?: CallToolResult;
}

/** `result` of `tool` as parts for a model (see {@link ModelToolResult}). */
export function toModelResult(result: CallToolResult, tool?: HostTool): ModelToolResult {
  const content: ContentBlock[] = Array.isArray(result.content) ? result.content : [];
  const structured =
    tool?.outputSchema !== undefined && isObject(result.structuredContent)
      ? result.structuredContent
      : undefined;
  const parts: ModelResultPart[] = [];
  if (structured !== undefined && result.isError !== true) {
    // The structured form is the one the tool promised; its text blocks repeat it (the spec asks
    // servers to), so only the media of `content` are kept beside it.
    parts.push({ type: 'text', text: JSON.stringify(structured) });
    for (const block of content) {
      const part = toPart(block);
      if (part !== undefined && part.type !== 'text') parts.push(part);
    }
  } else {
    for (const block of content) {
      const part = toPart(block);
      if (part !== undefined) parts.push(part);
    }
  }
  if (parts.length === 0) parts.push({ type: 'text', text: '' });
  const truncated = resultTruncation(result);
  return {
    isError: result.isError === true,
    parts,
    text: partsText(parts),
    ...(structured === undefined ? {} : { structured }),
    ...(truncated === undefined ? {} : { truncated }),
    raw: result,
  };
}

/** A failed call (refused, timed out, server gone) as an error result the model can read. */
export function toModelError(error: McpHostError): ModelToolResult {
  const text = `Error: ${error.message}`;
  return { isError: true, parts: [{ type: 'text', text }], text, error };
}

/** The parts as one text (see `ModelToolResult.text`). */
export function partsText(parts: readonly ModelResultPart[]): string {
  return parts.map(partText).join('\n\n');
}

function partText(part: ModelResultPart): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
    case 'audio':
      return `[${part.type} ${part.mimeType}, ${approximateBytes(part.data)} bytes]`;
    case 'file':
      return `[file ${part.uri} ${part.mimeType}, ${approximateBytes(part.data)} bytes]`;
    case 'link':
      return `[resource ${part.name}: ${part.uri}${part.mimeType === undefined ? '' : ` (${part.mimeType})`}]${part.description === undefined ? '' : ` ${part.description}`}`;
  }
}

function toPart(block: ContentBlock): ModelResultPart | undefined {
  if (!isObject(block)) return undefined;
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? { type: 'text', text: block.text } : undefined;
    case 'image':
    case 'audio':
      return typeof block.data === 'string' && typeof block.mimeType === 'string'
        ? { type: block.type, mimeType: block.mimeType, data: block.data }
        : undefined;
    case 'resource_link':
      return typeof block.uri === 'string'
        ? {
            type: 'link',
            uri: block.uri,
            name: typeof block.name === 'string' ? block.name : block.uri,
            ...(typeof block.mimeType === 'string' ? { mimeType: block.mimeType } : {}),
            ...(typeof block.description === 'string' ? { description: block.description } : {}),
          }
        : undefined;
    case 'resource':
      return resourcePart(block.resource);
    default:
      // A block type from a newer revision: its JSON, so nothing is silently lost.
      return { type: 'text', text: JSON.stringify(block) };
  }
}

function resourcePart(resource: unknown): ModelResultPart | undefined {
  if (!isObject(resource) || typeof resource.uri !== 'string') return undefined;
  const mimeType = typeof resource.mimeType === 'string' ? resource.mimeType : undefined;
  if (typeof resource.text === 'string') {
    return { type: 'text', text: `Resource ${resource.uri}:\n${resource.text}` };
  }
  if (typeof resource.blob !== 'string') return undefined;
  const type = mimeType ?? 'application/octet-stream';
  if (type.startsWith('image/')) return { type: 'image', mimeType: type, data: resource.blob };
  if (type.startsWith('audio/')) return { type: 'audio', mimeType: type, data: resource.blob };
  return { type: 'file', mimeType: type, data: resource.blob, uri: resource.uri };
}

/** The decoded size of base64 `data`, without decoding it. */
function approximateBytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}
