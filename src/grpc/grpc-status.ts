/**
 * The one mapping from failures to gRPC statuses: each `McpHostError` code (docs/errors.md) to
 * the status code that says the most to a gRPC client, a JSON-RPC error from an MCP server to its
 * nearest status, and the API's own refusals (no token, unknown server, name taken, stdio not
 * permitted). Every status carries the host's code in its trailing metadata
 * (`mcp-host-error-code`), and a message that went through the redactor.
 */
import { Metadata, status, type StatusObject } from '@grpc/grpc-js';
import type { ErrorCode } from '../errors/codes.js';
import { JsonRpcError } from '../errors/json-rpc-error.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { redact, truncate } from '../errors/redact.js';

/** The trailing metadata key that carries the host's error code. */
export const ERROR_CODE_METADATA = 'mcp-host-error-code';

/** The gRPC status code of each host error code. */
export const GRPC_STATUS_OF: Readonly<Record<ErrorCode, status>> = {
  ABORTED: status.CANCELLED,
  REQUEST_TIMEOUT: status.DEADLINE_EXCEEDED,
  CONNECTION_CLOSED: status.UNAVAILABLE,
  NOT_CONNECTED: status.UNAVAILABLE,
  CONNECT_FAILED: status.UNAVAILABLE,
  CONNECT_TIMEOUT: status.UNAVAILABLE,
  KEEPALIVE_TIMEOUT: status.UNAVAILABLE,
  PROCESS_EXITED: status.UNAVAILABLE,
  SPAWN_FAILED: status.FAILED_PRECONDITION,
  MESSAGE_TOO_LARGE: status.RESOURCE_EXHAUSTED,
  INVALID_MESSAGE: status.INTERNAL,
  OUTBOUND_BUFFER_FULL: status.RESOURCE_EXHAUSTED,
  INVALID_ARGUMENT: status.INVALID_ARGUMENT,
  PROTOCOL_VERSION_UNSUPPORTED: status.FAILED_PRECONDITION,
  PROTOCOL_VIOLATION: status.INTERNAL,
  INPUT_ROUNDS_EXCEEDED: status.RESOURCE_EXHAUSTED,
  // The API has no way to answer a server's question later: the call cannot go on.
  INPUT_DEFERRED: status.FAILED_PRECONDITION,
  CAPABILITY_NOT_SUPPORTED: status.UNIMPLEMENTED,
  SCHEMA_TOO_DEEP: status.FAILED_PRECONDITION,
  SCHEMA_TOO_LARGE: status.FAILED_PRECONDITION,
  SCHEMA_INVALID: status.FAILED_PRECONDITION,
  HTTP_STATUS: status.UNAVAILABLE,
  HTTP_REQUEST_FAILED: status.UNAVAILABLE,
  SESSION_EXPIRED: status.UNAVAILABLE,
  // The server may have run it: not UNAVAILABLE, which tells a client a retry is safe.
  STREAM_INTERRUPTED: status.ABORTED,
  SERVER_UNAVAILABLE: status.UNAVAILABLE,
  QUEUE_FULL: status.RESOURCE_EXHAUSTED,
  TOOL_NOT_FOUND: status.NOT_FOUND,
  TASK_NOT_FOUND: status.NOT_FOUND,
  TOOL_DENIED: status.PERMISSION_DENIED,
  TOOL_NOT_LOADED: status.FAILED_PRECONDITION,
  INTERNAL: status.INTERNAL,
  STATE_LOCK_TIMEOUT: status.UNAVAILABLE,
  STATE_CORRUPT: status.DATA_LOSS,
  STATE_VERSION_UNSUPPORTED: status.FAILED_PRECONDITION,
  STATE_IO_FAILED: status.INTERNAL,
  STATE_CLOSED: status.FAILED_PRECONDITION,
  TOOL_QUARANTINED: status.FAILED_PRECONDITION,
  CONFIG_INVALID: status.INVALID_ARGUMENT,
  CONFIG_VARIABLE_UNSET: status.FAILED_PRECONDITION,
  CONFIG_INPUT_REQUIRED: status.FAILED_PRECONDITION,
  CONFIG_READ_ONLY: status.FAILED_PRECONDITION,
  EGRESS_REFUSED: status.PERMISSION_DENIED,
  // UNAUTHENTICATED stays the API's own refusal (no or wrong token): a server's login is a
  // precondition of the call, and its refusals a permission matter.
  AUTH_REQUIRED: status.FAILED_PRECONDITION,
  AUTH_FAILED: status.PERMISSION_DENIED,
  TOOL_ERROR: status.UNKNOWN,
  AUTH_LOGIN_REQUIRED: status.FAILED_PRECONDITION,
  AUTH_CLIENT_INVALID: status.FAILED_PRECONDITION,
  AUTH_REFRESH_FAILED: status.UNAVAILABLE,
  SKILL_VERIFICATION_FAILED: status.FAILED_PRECONDITION,
  SKILL_TOO_LARGE: status.RESOURCE_EXHAUSTED,
};

/** The status of a JSON-RPC error an MCP server answered with, by its code. */
function jsonRpcStatus(code: number): status {
  switch (code) {
    case -32602: // invalid params
      return status.INVALID_ARGUMENT;
    case -32601: // method not found
      return status.UNIMPLEMENTED;
    case -32002: // resource not found
      return status.NOT_FOUND;
    default:
      return status.UNKNOWN;
  }
}

/** The API's own refusals, beside the host's error codes. */
export type ApiRefusal =
  | 'UNAUTHENTICATED'
  | 'SERVER_NOT_FOUND'
  | 'SERVER_EXISTS'
  | 'STDIO_NOT_PERMITTED'
  | 'SLOW_CONSUMER'
  | 'BAD_REQUEST';

const REFUSAL_STATUS: Readonly<Record<ApiRefusal, status>> = {
  UNAUTHENTICATED: status.UNAUTHENTICATED,
  SERVER_NOT_FOUND: status.NOT_FOUND,
  SERVER_EXISTS: status.ALREADY_EXISTS,
  STDIO_NOT_PERMITTED: status.PERMISSION_DENIED,
  SLOW_CONSUMER: status.RESOURCE_EXHAUSTED,
  BAD_REQUEST: status.INVALID_ARGUMENT,
};

/** A refusal of the API itself, thrown inside a handler and answered as its status. */
export class ApiRefusalError extends Error {
  readonly refusal: ApiRefusal;

  constructor(refusal: ApiRefusal, message: string) {
    super(message);
    this.name = 'ApiRefusalError';
    this.refusal = refusal;
  }
}

/** The status (with metadata) of a refusal of the API itself; `details` must hold no secret. */
export function apiRefusal(refusal: ApiRefusal, details: string): Partial<StatusObject> {
  return statusWith(REFUSAL_STATUS[refusal], details, refusal);
}

/**
 * The status of any failure thrown by the host (or by the API's own code): an `McpHostError` by
 * its code, a `JsonRpcError` by its JSON-RPC code (`jsonrpc:<n>` in the metadata), anything else
 * INTERNAL; an `ApiRefusalError` as its refusal. The message is redacted and bounded.
 */
export function toGrpcStatus(error: unknown): Partial<StatusObject> {
  if (error instanceof ApiRefusalError) return apiRefusal(error.refusal, error.message);
  if (error instanceof McpHostError)
    return statusWith(GRPC_STATUS_OF[error.code], error.message, error.code);
  if (error instanceof JsonRpcError)
    return statusWith(jsonRpcStatus(error.code), error.message, `jsonrpc:${error.code}`);
  const message = error instanceof Error ? error.message : String(error);
  return statusWith(status.INTERNAL, `internal error: ${message}`, 'INTERNAL');
}

function statusWith(code: status, details: string, hostCode: string): Partial<StatusObject> {
  const metadata = new Metadata();
  metadata.set(ERROR_CODE_METADATA, hostCode);
  return { code, details: truncate(redact(details), 1024), metadata };
}
