import { JsonRpcError, JsonRpcErrorCode } from '../errors/json-rpc-error.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { isObject } from '../protocol/guards.js';
import { McpMethod } from '../protocol/methods.js';

/** A `tools/call`'s tool name and arguments (its params checked: -32602). */
export function callParams(params: unknown): { name: string; args: JsonObject } {
  if (!isObject(params) || typeof params.name !== 'string')
    throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, "'tools/call' needs a tool name");
  const args = params.arguments ?? {};
  if (!isObject(args))
    throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'the arguments must be an object');
  return { name: params.name, args };
}

/** A `prompts/get`'s prompt name and arguments (its params checked: -32602). */
export function promptParams(params: unknown): { name: string; args: Record<string, string> } {
  if (!isObject(params) || typeof params.name !== 'string')
    throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, "'prompts/get' needs a name");
  const args = params.arguments ?? {};
  if (!isObject(args) || !Object.values(args).every((value) => typeof value === 'string'))
    throw new JsonRpcError(
      JsonRpcErrorCode.InvalidParams,
      "a prompt's arguments must be an object of strings",
    );
  return { name: params.name, args: args as Record<string, string> };
}

/** A `resources/read`'s URI (its params checked: -32602). */
export function resourceUri(params: unknown): string {
  if (!isObject(params) || typeof params.uri !== 'string')
    throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, "'resources/read' needs a uri");
  return params.uri;
}

/** The `progressToken` of a request's `_meta`, when it has a usable one. */
export function progressTokenOf(params: JsonObject): string | number | undefined {
  const token = isObject(params._meta) ? params._meta.progressToken : undefined;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/** The id of a URL-mode `elicitation/create` (whose completion the client may be told). */
export function urlElicitationId(
  method: string,
  params: JsonObject | undefined,
): string | undefined {
  return method === McpMethod.ElicitationCreate &&
    params?.mode === 'url' &&
    typeof params.elicitationId === 'string'
    ? params.elicitationId
    : undefined;
}
