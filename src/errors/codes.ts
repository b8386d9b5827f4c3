/**
 * The closed list of local failure codes, each with whether retrying the same operation can ever
 * help (`true` means never: fix the cause first). What each means is in code-docs.ts
 * (`errorCodes`, which the root entry exports), apart from this list, which every error carries:
 * a program that only opens a client does not load those texts.
 */
export const PERMANENT_CODES = {
  ABORTED: false,
  REQUEST_TIMEOUT: false,
  CONNECTION_CLOSED: false,
  NOT_CONNECTED: false,
  CONNECT_FAILED: false,
  CONNECT_TIMEOUT: false,
  KEEPALIVE_TIMEOUT: false,
  PROCESS_EXITED: false,
  SPAWN_FAILED: true,
  MESSAGE_TOO_LARGE: false,
  INVALID_MESSAGE: false,
  OUTBOUND_BUFFER_FULL: false,
  INVALID_ARGUMENT: true,
  PROTOCOL_VERSION_UNSUPPORTED: true,
  PROTOCOL_VIOLATION: false,
  INPUT_ROUNDS_EXCEEDED: false,
  INPUT_DEFERRED: false,
  CAPABILITY_NOT_SUPPORTED: true,
  SCHEMA_TOO_DEEP: true,
  SCHEMA_TOO_LARGE: true,
  SCHEMA_INVALID: true,
  HTTP_STATUS: false,
  HTTP_REQUEST_FAILED: false,
  SESSION_EXPIRED: false,
  STREAM_INTERRUPTED: false,
  SERVER_UNAVAILABLE: false,
  QUEUE_FULL: false,
  TOOL_NOT_FOUND: true,
  TASK_NOT_FOUND: true,
  TOOL_DENIED: true,
  TOOL_NOT_LOADED: false,
  INTERNAL: false,
  STATE_LOCK_TIMEOUT: false,
  STATE_CORRUPT: true,
  STATE_VERSION_UNSUPPORTED: true,
  STATE_IO_FAILED: false,
  STATE_CLOSED: true,
  TOOL_QUARANTINED: true,
  CONFIG_INVALID: true,
  CONFIG_VARIABLE_UNSET: true,
  CONFIG_INPUT_REQUIRED: true,
  CONFIG_READ_ONLY: true,
  EGRESS_REFUSED: true,
  AUTH_REQUIRED: false,
  AUTH_FAILED: false,
  TOOL_ERROR: false,
  AUTH_LOGIN_REQUIRED: true,
  AUTH_CLIENT_INVALID: true,
  AUTH_REFRESH_FAILED: false,
  SKILL_VERIFICATION_FAILED: false,
  SKILL_TOO_LARGE: true,
} as const satisfies Record<string, boolean>;

export type ErrorCode = keyof typeof PERMANENT_CODES;

export const ErrorCode = Object.fromEntries(
  Object.keys(PERMANENT_CODES).map((code) => [code, code]),
) as {
  readonly [K in ErrorCode]: K;
};

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(PERMANENT_CODES, value);
}
