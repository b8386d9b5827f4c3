/**
 * The gateway's side of the 2026-07-28 request envelope: which requests are modern (their `_meta`
 * names a protocol version), checking that envelope, and the fields every modern result carries.
 */
import { JsonRpcError, JsonRpcErrorCode } from '../errors/json-rpc-error.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { isObject } from '../protocol/guards.js';
import { McpErrorCode, MetaKey } from '../protocol/methods.js';
import type { ClientCapabilities, Implementation } from '../protocol/types.js';
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS } from '../protocol/versions.js';

/** Every version the gateway speaks, newest first: what `server/discover` and -32022 list. */
export const GATEWAY_PROTOCOL_VERSIONS: readonly string[] = [
  ...MODERN_PROTOCOL_VERSIONS,
  ...LEGACY_PROTOCOL_VERSIONS,
];

/** What a modern request says about its client. */
export interface ModernEnvelope {
  version: string;
  capabilities: ClientCapabilities;
}

/** Whether a request is modern: its `_meta` carries a protocol version (of any value). */
export function isModernRequest(params: unknown): boolean {
  return isObject(params) && isObject(params._meta) && MetaKey.ProtocolVersion in params._meta;
}

/**
 * The envelope of a modern request: -32602 when a required field is missing or malformed (the
 * spec's answer to a malformed request), -32022 listing the versions the gateway speaks when its
 * version is not a modern one the gateway speaks (a legacy version too: those open with
 * `initialize`).
 */
export function modernEnvelope(params: unknown): ModernEnvelope {
  const meta = isObject(params) && isObject(params._meta) ? params._meta : {};
  const version = meta[MetaKey.ProtocolVersion];
  if (typeof version !== 'string')
    throw new JsonRpcError(
      JsonRpcErrorCode.InvalidParams,
      `the request's _meta needs '${MetaKey.ProtocolVersion}' (a string)`,
    );
  if (!(MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(version))
    throw new JsonRpcError(
      McpErrorCode.UnsupportedProtocolVersion,
      'Unsupported protocol version',
      {
        data: { supported: [...GATEWAY_PROTOCOL_VERSIONS], requested: version.slice(0, 64) },
      },
    );
  const capabilities = meta[MetaKey.ClientCapabilities];
  if (!isObject(capabilities))
    throw new JsonRpcError(
      JsonRpcErrorCode.InvalidParams,
      `the request's _meta needs '${MetaKey.ClientCapabilities}' (an object)`,
    );
  return { version, capabilities };
}

/**
 * A modern result: `resultType: "complete"`, the gateway's `serverInfo` in `_meta`, and with
 * `cache`, the caching hints (`ttlMs: 0`, `cacheScope: "private"`: what the gateway serves changes
 * with its servers and may differ per view, so no result is fresh beyond the moment).
 */
export function completeResult(
  result: JsonObject,
  serverInfo: Implementation,
  cache: boolean,
): JsonObject {
  const meta = isObject(result._meta) ? result._meta : {};
  return {
    ...result,
    resultType: 'complete',
    _meta: { ...meta, [MetaKey.ServerInfo]: { ...serverInfo } },
    ...(cache ? { ttlMs: 0, cacheScope: 'private' } : {}),
  };
}

/** The fields only a 2026-07-28 result carries (`_meta`'s server info aside). */
const MODERN_RESULT_FIELDS = ['resultType', 'ttlMs', 'cacheScope'] as const;

/**
 * A backend's result as a legacy client gets it: without the modern era's fields (`resultType`,
 * `ttlMs`, `cacheScope`, and the backend's own `serverInfo` in `_meta`, which is not the
 * gateway's), which a modern backend's results carry. Anything else, `_meta` included, is kept.
 */
export function legacyResult(result: JsonObject): JsonObject {
  const meta = isObject(result._meta) ? result._meta : undefined;
  const modern =
    MODERN_RESULT_FIELDS.some((field) => field in result) ||
    (meta !== undefined && MetaKey.ServerInfo in meta);
  if (!modern) return result;
  const legacy: JsonObject = { ...result };
  for (const field of MODERN_RESULT_FIELDS) delete legacy[field];
  if (meta !== undefined) {
    const { [MetaKey.ServerInfo]: _serverInfo, ...rest } = meta;
    if (Object.keys(rest).length === 0) delete legacy._meta;
    else legacy._meta = rest;
  }
  return legacy;
}
