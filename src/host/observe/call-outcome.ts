/**
 * How a tool call ended, in the words metrics, audit records and traces share. Pure.
 */
import { isJsonRpcError } from '../../errors/json-rpc-error.js';
import { isMcpHostError } from '../../errors/mcp-host-error.js';

/**
 * - `ok`: the tool answered and its result is not an error;
 * - `tool_error`: the tool answered with `isError: true` (data, not a failure of mcp-host);
 * - `error`: a local failure (`McpHostError`) or an error response (`JsonRpcError`);
 * - `cancelled`: the caller's signal fired (`ABORTED`);
 * - `timeout`: no answer within the call's timeout (`REQUEST_TIMEOUT`).
 */
export type CallOutcome = 'ok' | 'tool_error' | 'error' | 'cancelled' | 'timeout';

/**
 * The server key under which metrics count native tools (registered on the host, not served by
 * an MCP server); parentheses keep it apart from configured server names.
 */
export const NATIVE_SERVER = '(native)';

export const CALL_OUTCOMES: readonly CallOutcome[] = [
  'ok',
  'tool_error',
  'error',
  'cancelled',
  'timeout',
];

/**
 * The outcome and error code of a call that threw. The code is the `McpHostError` code
 * (`SPAWN_FAILED`), `jsonrpc:<number>` for an error response (`jsonrpc:-32602`), or `UNKNOWN`
 * for anything else (which the host's normaliser should have turned into an `McpHostError`).
 */
export function classifyCallError(error: unknown): {
  outcome: 'error' | 'cancelled' | 'timeout';
  errorCode: string;
} {
  if (isMcpHostError(error)) {
    if (error.code === 'ABORTED') return { outcome: 'cancelled', errorCode: error.code };
    if (error.code === 'REQUEST_TIMEOUT') return { outcome: 'timeout', errorCode: error.code };
    return { outcome: 'error', errorCode: error.code };
  }
  if (isJsonRpcError(error)) return { outcome: 'error', errorCode: `jsonrpc:${error.code}` };
  return { outcome: 'error', errorCode: 'UNKNOWN' };
}
