/** A tool result, resource contents or prompt messages as lines for a person. */
import type {
  CallToolResult,
  ContentBlock,
  GetPromptResult,
  ReadResourceResult,
  ResourceContents,
} from '../protocol/types.js';

/** The lines of a result's content: text as is, binaries summarised, links named. */
export function contentLines(blocks: readonly ContentBlock[]): string[] {
  return blocks.flatMap((block) => blockLines(block));
}

function blockLines(block: ContentBlock): string[] {
  switch (block.type) {
    case 'text':
      return [block.text];
    case 'image':
    case 'audio':
      return [`[${block.type} ${block.mimeType}, ${size(base64Bytes(block.data))}]`];
    case 'resource_link': {
      const title = typeof block.title === 'string' ? block.title : block.name;
      return [`[resource link] ${title} <${block.uri}>`];
    }
    case 'resource':
      return resourceLines(block.resource);
    default:
      return [JSON.stringify(block)];
  }
}

export function resourceLines(resource: ResourceContents): string[] {
  const contents = resource as { uri: string; mimeType?: string; text?: string; blob?: string };
  const head = `[resource ${contents.uri}${contents.mimeType ? `, ${contents.mimeType}` : ''}]`;
  if (typeof contents.text === 'string') return [head, contents.text];
  if (typeof contents.blob === 'string')
    return [`${head} ${size(base64Bytes(contents.blob))} binary`];
  return [head];
}

/** A tool result for a person; structured content (as JSON) when there is no content. */
export function toolResultLines(result: CallToolResult): string[] {
  const lines = contentLines(result.content ?? []);
  if (lines.length === 0 && result.structuredContent !== undefined)
    lines.push(JSON.stringify(result.structuredContent, null, 2));
  return lines;
}

export function readResultLines(result: ReadResourceResult): string[] {
  return result.contents.flatMap((contents) => resourceLines(contents));
}

export function promptLines(result: GetPromptResult): string[] {
  const lines = result.description ? [result.description, ''] : [];
  for (const message of result.messages)
    lines.push(`${message.role}:`, ...blockLines(message.content).map((line) => `  ${line}`));
  return lines;
}

function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
