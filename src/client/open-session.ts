import { JsonRpcError } from '../errors/json-rpc-error.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import type { JsonRpcPeer } from '../jsonrpc/peer.js';
import {
  eraOf,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
  pickMutualVersion,
  type ProtocolEra,
} from '../protocol/versions.js';
import { isDiscoverResult, isInitializeResult, isObject } from '../protocol/guards.js';
import { McpErrorCode, McpMethod, MetaKey, MODERN_ERROR_CODES } from '../protocol/methods.js';
import {
  type ClientCapabilities,
  type DiscoverResult,
  type Implementation,
  type LoggingLevel,
  type ServerCapabilities,
} from '../protocol/types.js';
import { type JsonObject } from '../jsonrpc/message.js';

/** What opening a connection learnt about the server. */
export interface Session {
  era: ProtocolEra;
  version: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation | undefined;
  instructions: string | undefined;
  /** The modern `server/discover` result (with its cache hints), when there was one. */
  discover: DiscoverResult | undefined;
}

export interface OpenContext {
  serverName: string | undefined;
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  signal: AbortSignal | undefined;
  /**
   * Tells the transport which version the next request speaks, for transports that carry it out
   * of band (HTTP's `MCP-Protocol-Version`): the probed version for `server/discover`, none for
   * `initialize` (the header belongs to the requests after it).
   */
  setTransportVersion: (version: string | undefined) => void;
}

function where(serverName: string | undefined): string {
  return serverName === undefined ? '' : `server '${serverName}': `;
}

/** The `_meta` every modern request carries. */
export function modernMeta(
  version: string,
  context: Pick<OpenContext, 'clientInfo' | 'capabilities'>,
  logLevel?: LoggingLevel,
): JsonObject {
  const meta: JsonObject = {
    [MetaKey.ProtocolVersion]: version,
    [MetaKey.ClientCapabilities]: context.capabilities,
    [MetaKey.ClientInfo]: context.clientInfo,
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

export function unsupportedVersionError(
  serverName: string | undefined,
  theirs: readonly unknown[],
  ours: readonly string[],
): McpHostError {
  return new McpHostError(
    'PROTOCOL_VERSION_UNSUPPORTED',
    `${where(serverName)}no protocol version in common: the server supports ${
      theirs.length === 0 ? 'none it named' : theirs.map(String).join(', ')
    }; mcp-host supports ${ours.join(', ')}`,
    { serverName, details: { serverVersions: theirs.map(String), clientVersions: [...ours] } },
  );
}

/** Legacy era: `initialize`, check the version, then `notifications/initialized`. */
export async function openLegacy(
  peer: JsonRpcPeer,
  context: OpenContext,
  version: string,
): Promise<Session> {
  context.setTransportVersion(undefined);
  const result = await peer.request(
    McpMethod.Initialize,
    {
      protocolVersion: version,
      capabilities: context.capabilities,
      clientInfo: context.clientInfo,
    },
    // Never cancel initialize (the spec forbids it); the connect deadline still bounds it.
    { signal: context.signal, sendCancel: false, timeoutMs: Infinity },
  );
  if (!isInitializeResult(result)) {
    throw new McpHostError(
      'PROTOCOL_VIOLATION',
      `${where(context.serverName)}malformed initialize result`,
      {
        serverName: context.serverName,
        method: McpMethod.Initialize,
      },
    );
  }
  if (eraOf(result.protocolVersion) !== 'legacy') {
    throw unsupportedVersionError(
      context.serverName,
      [result.protocolVersion],
      LEGACY_PROTOCOL_VERSIONS,
    );
  }
  peer.notify(McpMethod.Initialized);
  return {
    era: 'legacy',
    version: result.protocolVersion,
    capabilities: result.capabilities,
    serverInfo: result.serverInfo,
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
    discover: undefined,
  };
}

/** How the `server/discover` probe ended. */
export type ProbeOutcome =
  | { kind: 'modern'; session: Session }
  | { kind: 'legacy'; reason: string }
  | { kind: 'died'; error: McpHostError };

/**
 * The stdio era probe of the 2026-07-28 versioning rules: `server/discover` with modern `_meta`.
 * A DiscoverResult, or a recognised modern error (-32022 with `supported`, which gets one retry
 * with a mutual version), means modern and never falls back. Any other error, a result that is not
 * a DiscoverResult (an empty `{}` is not), or no answer within `timeoutMs` means legacy. A server
 * that dies on the probe is reported as `died` so the caller can start it again.
 */
export async function probeModern(
  peer: JsonRpcPeer,
  context: OpenContext,
  timeoutMs: number,
  versions: readonly string[] = MODERN_PROTOCOL_VERSIONS,
): Promise<ProbeOutcome> {
  let version = versions[0]!;
  for (let attempt = 0; ; attempt++) {
    let result: unknown;
    context.setTransportVersion(version);
    try {
      result = await peer.request(
        McpMethod.Discover,
        { _meta: modernMeta(version, context) },
        { signal: context.signal, timeoutMs },
      );
    } catch (error) {
      const supported = supportedVersionsOf(error);
      if (supported !== undefined) {
        const mutual = pickMutualVersion(versions, supported);
        if (mutual === undefined || attempt > 0)
          throw unsupportedVersionError(context.serverName, supported, versions);
        version = mutual;
        continue;
      }
      if (error instanceof JsonRpcError) {
        if (MODERN_ERROR_CODES.includes(error.code)) throw error;
        return {
          kind: 'legacy',
          reason: `server/discover answered ${error.code} (${error.message})`,
        };
      }
      if (error instanceof McpHostError) {
        if (error.code === 'REQUEST_TIMEOUT')
          return { kind: 'legacy', reason: `no answer to server/discover in ${timeoutMs} ms` };
        if (error.code === 'PROCESS_EXITED' || error.code === 'CONNECTION_CLOSED')
          return { kind: 'died', error };
      }
      throw error;
    }
    if (!isDiscoverResult(result))
      return {
        kind: 'legacy',
        reason: 'server/discover returned something that is not a DiscoverResult',
      };
    const mutual = pickMutualVersion(versions, result.supportedVersions);
    if (mutual === undefined)
      throw unsupportedVersionError(context.serverName, result.supportedVersions, versions);
    const meta = isObject(result._meta) ? result._meta : {};
    const serverInfo = isObject(meta[MetaKey.ServerInfo])
      ? (meta[MetaKey.ServerInfo] as Implementation)
      : undefined;
    return {
      kind: 'modern',
      session: {
        era: 'modern',
        version: mutual,
        capabilities: result.capabilities,
        serverInfo,
        instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
        discover: result,
      },
    };
  }
}
