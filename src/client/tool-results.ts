import { isObject, type CallToolResult, type Tool } from '../protocol/index.js';

/** Why a tool definition is unusable, or undefined when it is fine. */
export function toolProblem(tool: unknown): string | undefined {
  if (!isObject(tool) || typeof tool.name !== 'string' || tool.name === '') return 'it has no name';
  if (!isObject(tool.inputSchema)) return 'its inputSchema is not an object';
  if (tool.outputSchema !== undefined && !isObject(tool.outputSchema))
    return 'its outputSchema is not an object';
  return undefined;
}

/** Splits a listing into usable tools and the excluded ones, each with the reason. */
export function partitionTools(listed: unknown[]): {
  items: Tool[];
  excluded: { name: string; reason: string }[];
} {
  const items: Tool[] = [];
  const excluded: { name: string; reason: string }[] = [];
  for (const tool of listed) {
    const reason = toolProblem(tool);
    if (reason === undefined) items.push(tool as Tool);
    else
      excluded.push({
        name: isObject(tool) && typeof tool.name === 'string' ? tool.name : '<unnamed>',
        reason,
      });
  }
  return { items, excluded };
}

/** A tool result turned into an error result with a clear message: data for the model, not a throw. */
export function toolErrorResult(message: string, original: CallToolResult): CallToolResult {
  return { ...original, isError: true, content: [{ type: 'text', text: message }] };
}

/**
 * Checks a result against the tool's declared output: a tool with an `outputSchema` must return
 * `structuredContent` (unless the result is an error). Returns the result, or an error result
 * saying what is wrong.
 */
export function checkToolResult(tool: Tool | undefined, result: CallToolResult): CallToolResult {
  if (tool?.outputSchema === undefined || result.isError === true) return result;
  if (!isObject(result.structuredContent)) {
    return toolErrorResult(
      `tool '${tool.name}' declares an outputSchema but returned no structuredContent`,
      result,
    );
  }
  return result;
}
