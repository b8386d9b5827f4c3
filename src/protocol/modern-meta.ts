/**
 * The modern era's request metadata (2026-07-28): every request carries its protocol version, the
 * client's capabilities and identity in `_meta`, and a server that speaks another version says so
 * with an UnsupportedProtocolVersion (-32022) error listing the versions it supports. Pure.
 */
import { JsonRpcError } from '../errors/json-rpc-error.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { isObject } from './guards.js';
import { McpErrorCode, MetaKey } from './methods.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from './types.js';

/** Who the client is and what it can do, as every modern request says. */
export interface ClientIdentity {
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
}

/** The `_meta` every modern request carries. */
export function modernMeta(
  version: string,
  client: ClientIdentity,
  logLevel?: LoggingLevel,
): JsonObject {
  const meta: JsonObject = {
    [MetaKey.ProtocolVersion]: version,
    [MetaKey.ClientCapabilities]: client.capabilities,
    [MetaKey.ClientInfo]: client.clientInfo,
  };
  if (logLevel !== undefined) meta[MetaKey.LogLevel] = logLevel;
  return meta;
}

/** Request params with the modern `_meta` merged in (the caller's own `_meta` keys kept). */
export function withModernMeta(params: JsonObject | undefined, meta: JsonObject): JsonObject {
  const own = isObject(params?._meta) ? params._meta : undefined;
  return { ...params, _meta: own === undefined ? meta : { ...own, ...meta } };
}

/** The versions a -32022 error says the server supports, if it is one. */
export function supportedVersionsOf(error: unknown): string[] | undefined {
  if (!(error instanceof JsonRpcError) || error.code !== McpErrorCode.UnsupportedProtocolVersion)
    return undefined;
  const supported = isObject(error.data) ? error.data.supported : undefined;
  return Array.isArray(supported)
    ? supported.filter((v): v is string => typeof v === 'string')
    : [];
}

/** `PROTOCOL_VERSION_UNSUPPORTED`, naming both sides' versions. */
export function unsupportedVersionError(
  serverName: string | undefined,
  theirs: readonly unknown[],
  ours: readonly string[],
): McpHostError {
  return new McpHostError(
    'PROTOCOL_VERSION_UNSUPPORTED',
    `no protocol version in common: the server supports ${
      theirs.length === 0 ? 'none it named' : theirs.map(String).join(', ')
    }; mcp-host supports ${ours.join(', ')}`,
    { serverName, details: { serverVersions: theirs.map(String), clientVersions: [...ours] } },
  );
}
