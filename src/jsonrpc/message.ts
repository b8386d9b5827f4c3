/** JSON-RPC 2.0 message shapes and cheap guards. No MCP knowledge lives here. */

export type RequestId = string | number;

export type JsonObject = { [key: string]: unknown };

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: JsonObject | unknown[];
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonObject | unknown[];
}

export interface JsonRpcSuccessResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: unknown;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccessResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

function hasValidParams(value: JsonObject): boolean {
  return value.params === undefined || typeof value.params === 'object';
}

export function isJsonRpcRequest(value: unknown): value is JsonRpcRequest {
  return (
    isObject(value) &&
    value.jsonrpc === '2.0' &&
    typeof value.method === 'string' &&
    isRequestId(value.id) &&
    hasValidParams(value)
  );
}

export function isJsonRpcNotification(value: unknown): value is JsonRpcNotification {
  return (
    isObject(value) &&
    value.jsonrpc === '2.0' &&
    typeof value.method === 'string' &&
    !('id' in value) &&
    hasValidParams(value)
  );
}

export function isJsonRpcErrorObject(value: unknown): value is JsonRpcErrorObject {
  return isObject(value) && typeof value.code === 'number' && typeof value.message === 'string';
}

export function isJsonRpcSuccessResponse(value: unknown): value is JsonRpcSuccessResponse {
  return (
    isObject(value) &&
    value.jsonrpc === '2.0' &&
    isRequestId(value.id) &&
    'result' in value &&
    !('error' in value) &&
    !('method' in value)
  );
}

export function isJsonRpcErrorResponse(value: unknown): value is JsonRpcErrorResponse {
  return (
    isObject(value) &&
    value.jsonrpc === '2.0' &&
    (value.id === null || isRequestId(value.id)) &&
    isJsonRpcErrorObject(value.error) &&
    !('result' in value) &&
    !('method' in value)
  );
}

export function isJsonRpcResponse(value: unknown): value is JsonRpcResponse {
  return isJsonRpcSuccessResponse(value) || isJsonRpcErrorResponse(value);
}

export function isJsonRpcMessage(value: unknown): value is JsonRpcMessage {
  return isJsonRpcRequest(value) || isJsonRpcNotification(value) || isJsonRpcResponse(value);
}
