/** Cheap shape checks for what servers send: proportional to what the caller needs, no schema library. */
import type {
  CreateTaskResult,
  DiscoverResult,
  InitializeResult,
  InputRequiredResult,
  Tool,
} from './types.js';
import type { JsonObject } from '../jsonrpc/message.js';

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A `server/discover` result must name versions and capabilities: an empty `{}` is not one. */
export function isDiscoverResult(value: unknown): value is DiscoverResult {
  return (
    isObject(value) &&
    Array.isArray(value.supportedVersions) &&
    value.supportedVersions.every((version) => typeof version === 'string') &&
    isObject(value.capabilities)
  );
}

export function isInitializeResult(value: unknown): value is InitializeResult {
  return (
    isObject(value) &&
    typeof value.protocolVersion === 'string' &&
    isObject(value.capabilities) &&
    isObject(value.serverInfo) &&
    typeof value.serverInfo.name === 'string'
  );
}

export function isInputRequiredResult(value: unknown): value is InputRequiredResult {
  return isObject(value) && value.resultType === 'input_required';
}

/**
 * A task handle answered in place of a result (`resultType: "task"`, SEP-2663): what a
 * `callTool(..., { task: true })` may return instead of a `CallToolResult`.
 */
export function isCreateTaskResult(value: unknown): value is CreateTaskResult {
  return (
    isObject(value) &&
    value.resultType === 'task' &&
    typeof value.taskId === 'string' &&
    value.taskId !== '' &&
    typeof value.status === 'string'
  );
}

/** A tool definition with a name and an object input schema. */
export function isTool(value: unknown): value is Tool {
  return (
    isObject(value) &&
    typeof value.name === 'string' &&
    value.name !== '' &&
    isObject(value.inputSchema)
  );
}
