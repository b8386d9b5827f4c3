export { errorCodes, ErrorCode, isErrorCode } from './codes.js';
export {
  McpHostError,
  ProcessExitedError,
  isMcpHostError,
  MAX_ERROR_MESSAGE_CHARS,
  type ErrorContext,
  type McpHostErrorOptions,
  type ProcessExitedErrorOptions,
} from './mcp-host-error.js';
export {
  JsonRpcError,
  JsonRpcErrorCode,
  isJsonRpcError,
  type JsonRpcErrorOptions,
} from './json-rpc-error.js';
export { toMcpHostError } from './to-mcp-host-error.js';
export {
  Redactor,
  redactor,
  redact,
  addSecret,
  preview,
  truncate,
  MASK,
  MIN_SECRET_LENGTH,
} from './redact.js';
