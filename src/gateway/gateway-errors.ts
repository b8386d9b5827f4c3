/**
 * How the gateway's failures look to its client (the one mapping of this surface): which become a
 * JSON-RPC error, which a tool error result the model can read.
 */
import { JsonRpcError, JsonRpcErrorCode } from '../errors/json-rpc-error.js';
import { aboutServer } from '../errors/mcp-host-error.js';
import { toMcpHostError } from '../errors/to-mcp-host-error.js';
import { McpErrorCode } from '../protocol/methods.js';
import type { CallToolResult } from '../protocol/types.js';

/** Refusals that mean "no such tool here": the client is told as for an unknown tool. */
const UNKNOWN_TOOL_CODES = new Set(['TOOL_NOT_FOUND', 'TOOL_DENIED']);

/**
 * A `tools/call` that failed. A tool the client cannot see (unknown, or outside its view) is the
 * spec's error, -32602 (thrown). Anything else (the server down, crashed, timed out, answering
 * with an error; a quarantined tool; a full queue) is a tool result with `isError: true` whose text
 * names the server and the reason: data for the model, not a failure of the gateway.
 */
export function toolCallFailure(error: unknown, tool: string): CallToolResult {
  const local = toMcpHostError(error);
  if (local instanceof JsonRpcError)
    return errorResult(
      `${aboutServer(local.serverName, local.message)} (JSON-RPC error ${local.code})`,
    );
  if (UNKNOWN_TOOL_CODES.has(local.code))
    throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, `Unknown tool: ${tool}`, {
      data: { tool },
    });
  return errorResult(`${local.code}: ${local.message}`);
}

/**
 * A backend's refusal a modern client gets as the JSON-RPC error it is, not as a tool result:
 * -32021 (a client capability the call needs was not declared; its `data` names it), which the
 * client can act on by declaring it. Undefined for any other failure.
 */
export function modernRefusal(error: unknown): JsonRpcError | undefined {
  const local = toMcpHostError(error);
  if (
    !(local instanceof JsonRpcError) ||
    local.code !== McpErrorCode.MissingRequiredClientCapability
  )
    return undefined;
  return new JsonRpcError(local.code, aboutServer(local.serverName, local.message), {
    data: local.data,
  });
}

/** Local failures a skills request (`skills/get`, a directory read) answers with -32602. */
const SKILL_INVALID_PARAMS = new Set(['INVALID_ARGUMENT', 'CAPABILITY_NOT_SUPPORTED']);

/**
 * A failed `resources/read`, `prompts/get` or skills request as a JSON-RPC error: the server's own
 * error passed on (its code, its message prefixed with the server's name), an unknown resource
 * -32002 (-32602 in the modern era, which retired -32002, and so does a server's own -32002
 * passed on), an unknown prompt -32602, a skill no server (or several) serves, or a directory
 * read of a server without them, -32602 with the reason; any other local failure -32603 with its
 * message (which names the server).
 */
export function toRequestError(
  error: unknown,
  kind: 'resource' | 'prompt' | 'skill',
  era: 'legacy' | 'modern' = 'legacy',
): JsonRpcError {
  const notFound =
    era === 'modern' ? JsonRpcErrorCode.InvalidParams : McpErrorCode.ResourceNotFound;
  const local = toMcpHostError(error);
  if (local instanceof JsonRpcError)
    return new JsonRpcError(
      local.code === McpErrorCode.ResourceNotFound ? notFound : local.code,
      aboutServer(local.serverName, local.message),
      { data: local.data },
    );
  if (kind === 'skill' && SKILL_INVALID_PARAMS.has(local.code))
    return new JsonRpcError(JsonRpcErrorCode.InvalidParams, local.message, { data: local.details });
  if (local.code === 'INVALID_ARGUMENT')
    return kind === 'resource'
      ? new JsonRpcError(notFound, 'Resource not found', { data: local.details })
      : new JsonRpcError(JsonRpcErrorCode.InvalidParams, local.message, { data: local.details });
  return new JsonRpcError(JsonRpcErrorCode.InternalError, `${local.code}: ${local.message}`);
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
