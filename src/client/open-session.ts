/**
 * Opening a session with one server, whichever era it speaks: the transport (with its HTTP+SSE
 * fallback), the era (pinned, cached, or probed with `server/discover` per the 2026-07-28
 * versioning rules), and the handshake of that era (`initialize`, or the discover result itself).
 */
import { JsonRpcError } from '../errors/json-rpc-error.js';
import { aboutServer, McpHostError, ProcessExitedError } from '../errors/mcp-host-error.js';
import type { Logger } from '../internal/logger.js';
import { deadlineSignal, linkSignals } from '../internal/signals.js';
import { JsonRpcPeer } from '../jsonrpc/peer.js';
import type { RequestHeaders, Transport } from '../jsonrpc/transport.js';
import { mcpPeerConventions } from '../protocol/conventions.js';
import { isDiscoverResult, isInitializeResult, isObject } from '../protocol/guards.js';
import { MODERN_ERROR_CODES, McpMethod, MetaKey } from '../protocol/methods.js';
import {
  modernMeta,
  supportedVersionsOf,
  unsupportedVersionError,
} from '../protocol/modern-meta.js';
import type {
  ClientCapabilities,
  DiscoverResult,
  Implementation,
  ServerCapabilities,
} from '../protocol/types.js';
import {
  eraOf,
  LATEST_LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
  pickMutualVersion,
  type ProtocolEra,
} from '../protocol/versions.js';
import { createTransport } from '../transport/create-transport.js';
import { isTransportDefinition } from '../transport/transport-definition.js';
import { DEFAULT_CLIENT_OPTIONS, type CachedEra, type McpClientOptions } from './client-options.js';
import type { ServerInput } from './server-input.js';

export interface ConnectedPeer {
  peer: JsonRpcPeer;
  transport: Transport;
  session: Session;
}

export interface ConnectRequest {
  options: McpClientOptions;
  clientInfo: Implementation;
  input: ServerInput;
  signal: AbortSignal | undefined;
  /** Wires a new peer (handlers, events) before it starts. */
  attach: (peer: JsonRpcPeer) => void;
  /** The extra headers of each message, for transports that carry headers (HTTP). */
  requestHeaders?: RequestHeaders;
  logger: Logger;
}

const ERA_NAMESPACE = 'era';

/**
 * Opens a session with the server: a pinned era or version is used as given; otherwise a cached
 * era is tried first (and re-probed if the assumption fails), and a fresh server is probed with
 * `server/discover` per the 2026-07-28 versioning rules. The probe costs one round trip in the
 * same process; a legacy server that refuses it by exiting (naming the probe as it goes, see
 * `refusedByExiting`) is started once more and opened with `initialize`, and one that crashed on
 * its own fails the connect with its exit error, started once.
 */
export async function openSession(request: ConnectRequest): Promise<ConnectedPeer> {
  const { options } = request;
  const serverName = options.serverName;
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CLIENT_OPTIONS.connectTimeoutMs;
  const deadline = deadlineSignal(
    connectTimeoutMs,
    () =>
      new McpHostError('REQUEST_TIMEOUT', `connect timed out after ${formatMs(connectTimeoutMs)}`, {
        serverName,
      }),
  );
  const linked = linkSignals(request.signal, deadline.signal);
  const signal = linked.signal;
  const makeTransport = transportFactory(options.transport, serverName, request.logger);
  let current: { peer: JsonRpcPeer; transport: Transport } | undefined;
  const open = async (given?: Transport): Promise<{ peer: JsonRpcPeer; transport: Transport }> => {
    const transport = given ?? (await makeTransport());
    if (request.requestHeaders !== undefined) transport.setRequestHeaders?.(request.requestHeaders);
    const peer = new JsonRpcPeer(transport, {
      serverName,
      conventions: mcpPeerConventions,
      requestTimeoutMs: options.requestTimeoutMs,
      logger: request.logger,
    });
    request.attach(peer);
    current = { peer, transport };
    await peer.start({ signal });
    return current;
  };
  const context = (): OpenContext => ({
    serverName,
    clientInfo: request.clientInfo,
    capabilities: request.input.capabilities,
    signal,
    transport: current!.transport,
  });
  // Set once the session runs over the transport's fallback (the legacy HTTP+SSE transport).
  let fellBack = false;
  /**
   * `initialize`; a server that refuses it at the HTTP level (400/404/405) is tried once more over
   * the transport's fallback, as the Streamable HTTP backwards-compatibility rules say. If the
   * fallback fails to open too, the original refusal is what the caller sees.
   */
  const openLegacyOrFallback = async (version: string): Promise<Session> => {
    try {
      return await openLegacy(current!.peer, context(), version);
    } catch (error) {
      if (!isTransportRejection(error) || fellBack) throw error;
      const alternative = current!.transport.fallback?.();
      if (alternative === undefined) throw error;
      request.logger.info(
        aboutServer(
          serverName,
          `the server refused initialize at the HTTP level (${error.message}); trying its fallback transport`,
        ),
      );
      await current!.peer.close();
      try {
        await open(alternative);
      } catch (fallbackError) {
        if (signal.aborted) throw fallbackError;
        request.logger.info(
          aboutServer(serverName, `the fallback transport failed too: ${String(fallbackError)}`),
        );
        throw error;
      }
      fellBack = true;
      return openLegacy(current!.peer, context(), version);
    }
  };
  /**
   * Opens the first transport: its fallback straight away when the cache says the server needed
   * it last time (the unused primary is closed); the primary again if the fallback is refused.
   */
  const openCachedTransport = async (cached: CachedEra | undefined): Promise<void> => {
    const primary = await makeTransport();
    const alternative = cached?.transport === 'sse' ? primary.fallback?.() : undefined;
    if (alternative === undefined) {
      await open(primary);
      return;
    }
    try {
      await open(alternative);
      fellBack = true;
    } catch (error) {
      const refused =
        isTransportRejection(error) ||
        (error instanceof McpHostError && error.code === 'PROTOCOL_VIOLATION');
      if (!refused || signal.aborted) {
        await primary.close().catch(() => {});
        throw error;
      }
      request.logger.info(
        aboutServer(serverName, `cached transport 'sse' failed (${error.message}); probing again`),
      );
      await open(primary);
      return;
    }
    await primary.close();
  };
  try {
    const pinnedVersion = options.protocolVersion;
    const pinnedEra =
      pinnedVersion !== undefined
        ? eraOf(pinnedVersion)
        : options.era === 'auto'
          ? undefined
          : options.era;
    if (pinnedVersion !== undefined && pinnedEra === undefined) {
      throw new McpHostError('INVALID_ARGUMENT', `unknown protocol version '${pinnedVersion}'`, {
        serverName,
      });
    }
    const cached = pinnedEra === undefined ? await readCache(request) : undefined;
    const discoverTimeoutMs = options.discoverTimeoutMs ?? DEFAULT_CLIENT_OPTIONS.discoverTimeoutMs;
    await openCachedTransport(cached);
    let session: Session;
    if (pinnedEra === 'legacy') {
      session = await openLegacyOrFallback(pinnedVersion ?? LATEST_LEGACY_PROTOCOL_VERSION);
    } else if (pinnedEra === 'modern') {
      const outcome = await probeModern(
        current!.peer,
        context(),
        discoverTimeoutMs,
        pinnedVersion === undefined ? MODERN_PROTOCOL_VERSIONS : [pinnedVersion],
      );
      if (outcome.kind !== 'modern') {
        throw new McpHostError(
          'PROTOCOL_VERSION_UNSUPPORTED',
          `the era is pinned to modern but the server is not modern (${outcome.kind === 'legacy' ? outcome.reason : outcome.error.message})`,
          { serverName },
        );
      }
      session = outcome.session;
    } else {
      let legacyFirst: Session | undefined;
      if (fellBack) {
        // The cached fallback transport opened: only legacy servers speak it.
        legacyFirst = await openLegacy(current!.peer, context(), LATEST_LEGACY_PROTOCOL_VERSION);
      } else if (cached?.era === 'legacy') {
        try {
          legacyFirst = await openLegacyOrFallback(LATEST_LEGACY_PROTOCOL_VERSION);
        } catch (error) {
          // The cached assumption failed: a server that refuses initialize is probed afresh.
          if (!(error instanceof JsonRpcError)) throw error;
          request.logger.info(
            aboutServer(serverName, `cached era 'legacy' failed (${error.message}); probing again`),
          );
        }
      }
      if (legacyFirst !== undefined) {
        session = legacyFirst;
      } else {
        const outcome = await probeOrRefused(current!.peer, context(), discoverTimeoutMs);
        if (outcome.kind === 'modern') {
          session = outcome.session;
        } else {
          if (outcome.kind === 'died') {
            if (!restartable(options.transport)) throw outcome.error;
            if (!refusedByExiting(outcome.error)) {
              request.logger.info(
                aboutServer(
                  serverName,
                  `the server exited during the era probe without naming it: a crash, not a refusal; not starting it again`,
                ),
              );
              throw outcome.error;
            }
            request.logger.info(
              aboutServer(
                serverName,
                `the server exited on the era probe; starting it again as legacy`,
              ),
            );
            await current!.peer.close();
            await open();
          } else {
            request.logger.debug(aboutServer(serverName, `legacy server: ${outcome.reason}`));
          }
          session = await openLegacyOrFallback(LATEST_LEGACY_PROTOCOL_VERSION);
        }
      }
      const transport = fellBack ? 'sse' : undefined;
      if (
        cached?.era !== session.era ||
        cached.version !== session.version ||
        cached.transport !== transport
      )
        await writeCache(request, session, transport);
    }
    current!.transport.setProtocolVersion?.(session.version);
    return { peer: current!.peer, transport: current!.transport, session };
  } catch (error) {
    const closing = current?.peer.close().catch(() => {});
    if (
      signal.aborted &&
      !(error instanceof McpHostError && error.code === 'PROTOCOL_VERSION_UNSUPPORTED')
    ) {
      // Given up (the caller's signal, close(), or the connect deadline): fail now. A process
      // that ignores stdin EOF and SIGTERM takes the whole close ladder (seconds) to go; it runs
      // on, and McpClient.close() waits for it (`attach` gave it every peer).
      const reason: unknown = signal.reason;
      if (reason instanceof McpHostError) throw reason;
      throw new McpHostError('ABORTED', `connect was cancelled by the caller`, {
        serverName,
        cause: reason,
      });
    }
    await closing;
    throw error;
  } finally {
    deadline.cleanup();
    linked.cleanup();
  }
}

/**
 * Makes the transport of each attempt: from a definition (built afresh each time), a function, or
 * a transport instance (usable once: a second attempt needs a definition or a function).
 */
function transportFactory(
  transport: McpClientOptions['transport'],
  serverName: string | undefined,
  logger: Logger,
): () => Transport | Promise<Transport> {
  if (typeof transport === 'function') return transport;
  if (isTransportDefinition(transport))
    return () =>
      createTransport(transport, { ...(serverName === undefined ? {} : { serverName }), logger });
  let used = false;
  return () => {
    if (used)
      throw new McpHostError(
        'INVALID_ARGUMENT',
        'a transport instance can be opened once; pass a definition or a factory',
        { serverName },
      );
    used = true;
    return transport;
  };
}

/**
 * What a legacy server that cannot stand the probe says as it exits: the probe's method, or that
 * it expected `initialize` first (rmcp's `ExpectedInitializeRequest`, "expect initialized
 * request", …).
 */
const PROBE_REFUSAL =
  /server\/discover|expect(?:ed|s|ing)?[\s_-]*(?:an?\s+)?initiali[sz]ed?[\s_-]*request/i;

/**
 * Whether a server that went away during the era probe refused the probe by going (and so is
 * worth starting once more, as legacy): a network connection the server closed, or a process
 * that named the probe in its last words on stderr. A process that exited without naming it
 * crashed on its own (on start, say): starting it again would run its start-up twice and only
 * delay the same error.
 */
export function refusedByExiting(error: McpHostError): boolean {
  if (!(error instanceof ProcessExitedError)) return true;
  return PROBE_REFUSAL.test(error.stderrTail);
}

/** Whether a fresh transport can be made for a second attempt (not a one-off instance). */
function restartable(transport: McpClientOptions['transport']): boolean {
  return typeof transport === 'function' || isTransportDefinition(transport);
}

async function readCache(request: ConnectRequest): Promise<CachedEra | undefined> {
  const { stateStore, identity, serverName } = request.options;
  if (stateStore === undefined || identity === undefined) return undefined;
  try {
    const value = await stateStore.get<CachedEra>(ERA_NAMESPACE, identity);
    return value !== undefined &&
      eraOf(value.version) === value.era &&
      (value.transport === undefined || value.transport === 'sse')
      ? value
      : undefined;
  } catch (error) {
    request.logger.warn(aboutServer(serverName, `could not read the era cache`), {
      error: String(error),
    });
    return undefined;
  }
}

/**
 * The era probe over any transport: a probe the server refused at the HTTP level (400/404/405
 * with no JSON-RPC error body) means a legacy server, or one that does not speak this transport;
 * `initialize` tells which.
 */
async function probeOrRefused(
  peer: JsonRpcPeer,
  context: OpenContext,
  timeoutMs: number,
): Promise<ProbeOutcome> {
  try {
    return await probeModern(peer, context, timeoutMs);
  } catch (error) {
    if (!isTransportRejection(error)) throw error;
    return { kind: 'legacy', reason: `server/discover was refused (${error.message})` };
  }
}

async function writeCache(
  request: ConnectRequest,
  session: Session,
  transport: CachedEra['transport'],
): Promise<void> {
  const { stateStore, identity, serverName } = request.options;
  if (stateStore === undefined || identity === undefined) return;
  try {
    await stateStore.set(ERA_NAMESPACE, identity, {
      era: session.era,
      version: session.version,
      ...(transport === undefined ? {} : { transport }),
    } satisfies CachedEra);
  } catch (error) {
    request.logger.warn(aboutServer(serverName, `could not write the era cache`), {
      error: String(error),
    });
  }
}

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
   * Told which version the next request speaks, when it carries the version out of band (HTTP's
   * `MCP-Protocol-Version`): the probed version for `server/discover`, none for `initialize` (the
   * header belongs to the requests after it).
   */
  transport: Transport;
}

/** Legacy era: `initialize`, check the version, then `notifications/initialized`. */
export async function openLegacy(
  peer: JsonRpcPeer,
  context: OpenContext,
  version: string,
): Promise<Session> {
  context.transport.setProtocolVersion?.(undefined);
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
    throw new McpHostError('PROTOCOL_VIOLATION', `malformed initialize result`, {
      serverName: context.serverName,
      method: McpMethod.Initialize,
    });
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
 * a DiscoverResult (an empty `{}` is not), no answer within `timeoutMs`, or (over HTTP) a response
 * stream that closed without an answer means legacy. A server that goes away during the probe
 * is reported as `died`, for the caller to judge (`refusedByExiting`).
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
    context.transport.setProtocolVersion?.(version);
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
        // The server is there (it opened the stream) and closed it without an answer.
        if (error.code === 'STREAM_INTERRUPTED')
          return { kind: 'legacy', reason: `server/discover's response stream closed unanswered` };
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

/**
 * The statuses that mean "this server does not speak that transport here": per the Streamable
 * HTTP backwards-compatibility rules, a POST refused with a 4xx sends the client to the legacy
 * HTTP+SSE transport. 401 and 403 are about credentials, never about the transport, so they are
 * left out, and so are statuses that say the request was understood (409, 413, 429, …).
 */
export const TRANSPORT_REJECTION_STATUSES: readonly number[] = [400, 404, 405];

/** True for an HTTP_STATUS failure whose status means the server refused the transport itself. */
export function isTransportRejection(error: unknown): error is McpHostError {
  if (!(error instanceof McpHostError) || error.code !== 'HTTP_STATUS') return false;
  const status = error.details?.status;
  return typeof status === 'number' && TRANSPORT_REJECTION_STATUSES.includes(status);
}

/** `2 s` for whole seconds, else `1500 ms`. */
function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
