/**
 * The CLI's exit codes (the official MCP Inspector's map, so scripts can use either), and the one
 * mapping from an error to its exit code, its JSON form and its line of text. Every command's
 * failure goes through here.
 */
import { type ErrorCode } from '../errors/codes.js';
import { JsonRpcError } from '../errors/json-rpc-error.js';
import { aboutServer, McpHostError, type McpHostErrorOptions } from '../errors/mcp-host-error.js';
import { toMcpHostError } from '../errors/to-mcp-host-error.js';

export const ExitCode = {
  ok: 0,
  /** A usage or config error: bad option, unknown command, unset variable, invalid file. */
  usage: 1,
  /** Auth or input required (HTTP 401/403, `${input:…}` with no answer). */
  authRequired: 3,
  /** Unreachable: spawn failed, connect failed or timed out, the server is down. */
  unreachable: 4,
  /** The tool said `isError: true`, or there is no such tool (the payload is still printed). */
  toolError: 5,
  /**
   * `mcp-host agent` stopped before a final answer: its step limit (`--max-steps`) or its token
   * budget (`--max-tokens`) was reached.
   */
  noAnswer: 6,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * The exit code of a command that checked several servers (`servers status`, `doctor`): the worst
 * of theirs, worst meaning highest (5 tool error, 4 unreachable, 3 auth or input, 1 config), so
 * one rule gives the same code for the same config whatever the order of the servers; 0 when none
 * failed.
 */
export function worstExitCode(codes: Iterable<number>): ExitCode {
  let worst: number = ExitCode.ok;
  for (const code of codes) if (code > worst) worst = code;
  return worst as ExitCode;
}

/** The exit code of each error code; a code not listed exits `usage`. */
const byCode: Partial<Record<ErrorCode, ExitCode>> = {
  CONFIG_INVALID: ExitCode.usage,
  CONFIG_VARIABLE_UNSET: ExitCode.usage,
  CONFIG_READ_ONLY: ExitCode.usage,
  INVALID_ARGUMENT: ExitCode.usage,
  CONFIG_INPUT_REQUIRED: ExitCode.authRequired,
  SPAWN_FAILED: ExitCode.unreachable,
  CONNECT_FAILED: ExitCode.unreachable,
  CONNECT_TIMEOUT: ExitCode.unreachable,
  PROCESS_EXITED: ExitCode.unreachable,
  CONNECTION_CLOSED: ExitCode.unreachable,
  NOT_CONNECTED: ExitCode.unreachable,
  REQUEST_TIMEOUT: ExitCode.unreachable,
  KEEPALIVE_TIMEOUT: ExitCode.unreachable,
  SERVER_UNAVAILABLE: ExitCode.unreachable,
  HTTP_REQUEST_FAILED: ExitCode.unreachable,
  STREAM_INTERRUPTED: ExitCode.unreachable,
  PROTOCOL_VERSION_UNSUPPORTED: ExitCode.unreachable,
  TOOL_NOT_FOUND: ExitCode.toolError,
  TOOL_DENIED: ExitCode.toolError,
  TOOL_QUARANTINED: ExitCode.toolError,
  TOOL_ERROR: ExitCode.toolError,
};

export interface CliErrorOptions extends McpHostErrorOptions {
  /** The exit code, when it is not the one of `code` (see `byCode`). */
  exitCode?: ExitCode;
}

/**
 * A failure the CLI reports itself: an `McpHostError` (a code of the closed list, the server it is
 * about) with the exit code the command ends with: its code's, unless given (a server that is down
 * exits by its state, whatever the code of its last error).
 */
export class CliError extends McpHostError {
  override readonly name = 'CliError';
  readonly exitCode: ExitCode;

  constructor(code: ErrorCode, message: string, options: CliErrorOptions = {}) {
    const { exitCode, ...rest } = options;
    super(code, message, rest);
    this.exitCode = exitCode ?? byCode[code] ?? ExitCode.usage;
  }
}

/** A usage error: a bad argument or option value, INVALID_ARGUMENT (exit 1). */
export function usageError(message: string): CliError {
  return new CliError('INVALID_ARGUMENT', message);
}

/** The exit code for any thrown value. */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof CliError) return error.exitCode;
  const hostError = toMcpHostError(error);
  // The server answered the request with an error (no such resource, prompt or tool).
  if (hostError instanceof JsonRpcError) return ExitCode.toolError;
  if (hostError.code === 'HTTP_STATUS') {
    const status = hostError.details?.status;
    return status === 401 || status === 403 ? ExitCode.authRequired : ExitCode.unreachable;
  }
  if (hostError.code === 'SERVER_UNAVAILABLE' && hostError.details?.state === 'needs_auth')
    return ExitCode.authRequired;
  return byCode[hostError.code] ?? ExitCode.usage;
}

/** `{ code, message, server }` for the JSON error line. */
export function errorJsonOf(error: unknown): {
  code: string;
  message: string;
  server: string | null;
} {
  const hostError = toMcpHostError(error);
  const code = hostError instanceof JsonRpcError ? `JSONRPC_${hostError.code}` : hostError.code;
  return { code, message: hostError.message, server: hostError.serverName ?? null };
}

/**
 * The error as one line of text, naming its server once: an `McpHostError` names it itself; a
 * server's error answer (`JsonRpcError`) is its text as sent, so the server is named here.
 */
export function errorTextOf(error: unknown): string {
  const hostError = toMcpHostError(error);
  return hostError instanceof JsonRpcError
    ? aboutServer(hostError.serverName, hostError.message)
    : hostError.message;
}
