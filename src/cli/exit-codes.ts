/**
 * The CLI's exit codes (the official MCP Inspector's map, so scripts can use either), and the one
 * mapping from an error to its code and its JSON form. Every command's failure goes through here.
 */
import { JsonRpcError } from '../errors/json-rpc-error.js';
import { toMcpHostError } from '../errors/to-mcp-host-error.js';
import { type ErrorCode } from '../errors/codes.js';

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
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** A failure the CLI reports itself: a code for `{"error":{code}}`, an exit code, a server. */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly code: string;
  readonly exitCode: ExitCode;
  readonly server: string | undefined;

  constructor(
    code: string,
    message: string,
    options: { exitCode?: ExitCode; server?: string | undefined; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? {} : { cause: options.cause });
    this.code = code;
    this.exitCode = options.exitCode ?? ExitCode.usage;
    this.server = options.server;
  }
}

const byCode: Partial<Record<ErrorCode, ExitCode>> = {
  CONFIG_INVALID: ExitCode.usage,
  CONFIG_VARIABLE_UNSET: ExitCode.usage,
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
  PROTOCOL_VERSION_UNSUPPORTED: ExitCode.unreachable,
  TOOL_NOT_FOUND: ExitCode.toolError,
  TOOL_DENIED: ExitCode.toolError,
  TOOL_QUARANTINED: ExitCode.toolError,
};

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
  if (error instanceof CliError)
    return { code: error.code, message: error.message, server: error.server ?? null };
  const hostError = toMcpHostError(error);
  const code = hostError instanceof JsonRpcError ? `JSONRPC_${hostError.code}` : hostError.code;
  return { code, message: hostError.message, server: hostError.serverName ?? null };
}
