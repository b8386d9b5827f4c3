import { McpHostError, type ErrorContext } from './mcp-host-error.js';
import { JsonRpcError } from './json-rpc-error.js';

/**
 * The one normaliser used at every boundary catch: returns mcp-host's own errors unchanged and
 * wraps anything else as `INTERNAL` with the original as `cause`. Context fills in only what the
 * error does not already say.
 */
export function toMcpHostError(
  error: unknown,
  context: ErrorContext = {},
): McpHostError | JsonRpcError {
  if (error instanceof McpHostError || error instanceof JsonRpcError) return error;
  const message =
    error instanceof Error ? error.message : typeof error === 'string' ? error : 'Unknown error';
  return new McpHostError('INTERNAL', message, { ...context, cause: error });
}
