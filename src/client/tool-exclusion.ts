/**
 * Why a listed tool cannot be called: the words and the error the client and the host both use
 * for a tool left out of a listing. Apart from listed-tools.ts, which only a connected client
 * loads, so that the host shares these few lines with it, not the listing code.
 */
import { McpHostError } from '../errors/mcp-host-error.js';

/** The reason a tool is excluded for a schema that cannot be used. */
export function unusable(label: 'inputSchema' | 'outputSchema', problem: string): string {
  return `its ${label} is unusable (${problem})`;
}

/** A call refused, unsent, because its tool is excluded (`reason`: why). */
export function excludedToolError(
  serverName: string | undefined,
  tool: string,
  reason: string,
): McpHostError {
  return new McpHostError('INVALID_ARGUMENT', `tool '${tool}' is excluded: ${reason}`, {
    serverName,
    tool,
  });
}
