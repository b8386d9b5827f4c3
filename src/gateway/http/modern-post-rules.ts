/**
 * The 2026-07-28 Streamable HTTP rules a session-less POST is held to before the gateway serves
 * it (SEP-2575's envelope over HTTP, SEP-2243's request headers), and the HTTP status of a modern
 * exchange's error answer. Pure functions: the listener reads the body, these judge it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { JsonRpcErrorCode } from '../../errors/json-rpc-error.js';
import { isJsonRpcRequest, type JsonRpcMessage } from '../../jsonrpc/message.js';
import { isObject } from '../../protocol/guards.js';
import {
  decodeHeaderValue,
  headerParamText,
  type HeaderParam,
} from '../../protocol/http-headers.js';
import { McpErrorCode, McpMethod, MetaKey } from '../../protocol/methods.js';
import { eraOf, MODERN_PROTOCOL_VERSIONS } from '../../protocol/versions.js';

/** Why a POST is refused: the HTTP status and the JSON-RPC error answered with the request's id. */
export interface PostRefusal {
  status: number;
  code: number;
  message: string;
  data?: unknown;
}

/** What the rules need to know of the gateway: a tool's `x-mcp-header` parameters, if it has any. */
export type ToolHeaderParams = (tool: string) => readonly HeaderParam[] | undefined;

/** The methods whose `Mcp-Name` header mirrors a body field, and that field. */
const NAME_FIELD: Readonly<Record<string, string>> = {
  [McpMethod.ToolsCall]: 'name',
  [McpMethod.PromptsGet]: 'name',
  [McpMethod.ResourcesRead]: 'uri',
  // The tasks extension (SEP-2663): the task's id, so intermediaries can route by it.
  [McpMethod.TasksGet]: 'taskId',
  [McpMethod.TasksUpdate]: 'taskId',
  [McpMethod.TasksCancel]: 'taskId',
};

/** Whether a message claims the modern era: its `_meta` names a protocol version. */
export function claimsModernEra(message: JsonRpcMessage): boolean {
  if (!('method' in message)) return false;
  const params = message.params;
  return isObject(params) && isObject(params._meta) && MetaKey.ProtocolVersion in params._meta;
}

/**
 * Judges one session-less message against the 2026-07-28 rules, in the spec's order; undefined
 * when it may be served. Legacy traffic (no modern claim in the body, no modern
 * `MCP-Protocol-Version` header) and notifications pass untouched.
 *
 * 1. The envelope: a request whose `MCP-Protocol-Version` header names a modern revision needs
 *    `_meta` with the protocol version and the client's capabilities (else 400, -32602).
 * 2. The version: the header must be present and equal the body's version (else 400, -32020).
 * 3. `Mcp-Method` must be present and equal the body's method, case and all (400, -32020), and
 *    `Mcp-Name` for `tools/call`, `prompts/get` (the name), `resources/read` (the URI) and the
 *    tasks extension's `tasks/get`, `tasks/update` and `tasks/cancel` (the `taskId`).
 * 4. For a `tools/call` of a tool with `x-mcp-header` parameters: each `Mcp-Param-{Name}` must be
 *    present when the argument is, absent when it is not, valid (its base64 form too) and equal
 *    to the argument (400, -32020).
 *
 * Header values are compared without surrounding whitespace, and in their `=?base64?...?=` form
 * once decoded.
 */
export function checkModernPost(
  headers: IncomingHttpHeaders,
  message: JsonRpcMessage,
  toolParams: ToolHeaderParams,
): PostRefusal | undefined {
  if (!isJsonRpcRequest(message)) return undefined;
  const headerVersion = headerOf(headers, 'mcp-protocol-version');
  const params = isObject(message.params) ? message.params : undefined;
  const meta = params !== undefined && isObject(params._meta) ? params._meta : undefined;
  const claimed = meta !== undefined && MetaKey.ProtocolVersion in meta;
  if (!claimed) {
    if (headerVersion === undefined || eraOf(headerVersion) !== 'modern') return undefined;
    return invalidParams(
      `a ${headerVersion} request needs '_meta' with '${MetaKey.ProtocolVersion}' and '${MetaKey.ClientCapabilities}'`,
    );
  }
  const bodyVersion = meta[MetaKey.ProtocolVersion];
  if (typeof bodyVersion !== 'string')
    return invalidParams(`the request's _meta needs '${MetaKey.ProtocolVersion}' (a string)`);
  if (headerVersion === undefined)
    return mismatch(`the MCP-Protocol-Version header is missing (the body says ${bodyVersion})`);
  if (headerVersion !== bodyVersion)
    return mismatch(
      `the MCP-Protocol-Version header (${headerVersion}) does not match the body's protocol version`,
    );
  // A version the gateway does not speak as modern is answered by the session (-32022, 400).
  if (!(MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(bodyVersion)) return undefined;
  if (!isObject(meta[MetaKey.ClientCapabilities]))
    return invalidParams(`the request's _meta needs '${MetaKey.ClientCapabilities}' (an object)`);
  const method = headerOf(headers, 'mcp-method');
  if (method === undefined) return mismatch('the Mcp-Method header is missing');
  if (method !== message.method)
    return mismatch(`the Mcp-Method header does not match the body's method '${message.method}'`);
  const field = NAME_FIELD[message.method];
  if (field === undefined) return undefined;
  const bodyName = params?.[field];
  const rawName = headerOf(headers, 'mcp-name');
  if (typeof bodyName === 'string') {
    if (rawName === undefined) return mismatch('the Mcp-Name header is missing');
    if (decodeHeaderValue(rawName) !== bodyName)
      return mismatch(`the Mcp-Name header does not match the body's params.${field}`);
  }
  if (message.method !== McpMethod.ToolsCall || typeof bodyName !== 'string') return undefined;
  const annotated = toolParams(bodyName);
  if (annotated === undefined) return undefined;
  for (const { header, path } of annotated) {
    const expected = headerParamText(params?.arguments, path);
    const raw = headerOf(headers, `mcp-param-${header.toLowerCase()}`);
    if (raw === undefined) {
      if (expected === undefined) continue;
      return mismatch(`the Mcp-Param-${header} header is missing`);
    }
    const received = decodeHeaderValue(raw);
    if (received === undefined)
      return mismatch(`the Mcp-Param-${header} header is not valid (bad base64)`);
    if (received !== expected)
      return mismatch(`the Mcp-Param-${header} header does not match the argument`);
  }
  return undefined;
}

/**
 * The HTTP status of a modern exchange's answer when it is one JSON-RPC error: 404 for a method
 * the gateway does not serve (-32601), 400 for an unsupported version (-32022), a header mismatch
 * (-32020), a missing client capability (-32021), a malformed request (-32600) or body (-32700);
 * 200 for anything else (a handler's own errors stay in-band).
 */
export function modernErrorStatus(message: JsonRpcMessage | undefined): number {
  if (message === undefined || !('error' in message) || !isObject(message.error)) return 200;
  switch (message.error.code) {
    case JsonRpcErrorCode.MethodNotFound:
      return 404;
    case JsonRpcErrorCode.ParseError:
    case JsonRpcErrorCode.InvalidRequest:
    case McpErrorCode.HeaderMismatch:
    case McpErrorCode.MissingRequiredClientCapability:
    case McpErrorCode.UnsupportedProtocolVersion:
      return 400;
    default:
      return 200;
  }
}

function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function invalidParams(message: string): PostRefusal {
  return { status: 400, code: JsonRpcErrorCode.InvalidParams, message };
}

function mismatch(message: string): PostRefusal {
  return { status: 400, code: McpErrorCode.HeaderMismatch, message: `Header mismatch: ${message}` };
}
