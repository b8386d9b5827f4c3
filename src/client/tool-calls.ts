import { JsonRpcError } from '../errors/json-rpc-error.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import type { Logger } from '../internal/logger.js';
import { isObject } from '../protocol/guards.js';
import { McpErrorCode, McpMethod } from '../protocol/methods.js';
import { type CallToolResult } from '../protocol/types.js';
import { type JsonObject } from '../jsonrpc/message.js';
import type { CallOptions } from './client-types.js';
import type { ToolCatalog } from './tool-results.js';

export interface ToolCallContext {
  tools: ToolCatalog;
  logger: Logger;
  serverName: string | undefined;
  /** Sends `tools/call` with these params. */
  send: (params: JsonObject, options: CallOptions) => Promise<CallToolResult>;
  /** Lists the tools again (after a header mismatch). */
  relist: (signal: AbortSignal | undefined) => Promise<unknown>;
}

/**
 * Calls a tool. A result with `isError: true` is returned (it is data for the model), and so is
 * `structuredContent` that does not match the tool's `outputSchema` (as an error result); only
 * protocol, transport and timeout failures reject. A HeaderMismatch relists and tries once more.
 */
export function callTool(
  context: ToolCallContext,
  name: string,
  args: JsonObject,
  options: CallOptions,
): Promise<CallToolResult> {
  const { tools, serverName } = context;
  const where = (message: string): string =>
    serverName === undefined ? message : `server '${serverName}': ${message}`;
  const excluded = tools.excludedReason(name);
  if (excluded !== undefined) {
    return Promise.reject(
      new McpHostError('INVALID_ARGUMENT', where(`tool '${name}' is excluded: ${excluded}`), {
        serverName,
        tool: name,
      }),
    );
  }
  // One `.then` on the hot path; the schema check (async, lazily loaded) only for tools that declare an outputSchema.
  const checked = (result: CallToolResult): CallToolResult | Promise<CallToolResult> => {
    if (!isObject(result) || !Array.isArray(result.content)) {
      throw new McpHostError('PROTOCOL_VIOLATION', where(`malformed result from tool '${name}'`), {
        serverName,
        method: McpMethod.ToolsCall,
        tool: name,
      });
    }
    return tools.check(name, result);
  };
  const call = (): Promise<CallToolResult> => context.send({ name, arguments: args }, options);
  return call().then(checked, async (error: unknown) => {
    // HeaderMismatch: the tool's x-mcp-header annotations changed (or were never listed), so
    // the Mcp-Param-* headers were wrong. Relist, as the spec advises, and try once more.
    if (!(error instanceof JsonRpcError) || error.code !== McpErrorCode.HeaderMismatch) throw error;
    if (!tools.checksHeaderAnnotations) throw error;
    context.logger.info(where(`tool '${name}': header mismatch; relisting tools and retrying`));
    await context.relist(options.signal);
    return call().then(checked);
  });
}
