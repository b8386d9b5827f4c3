import { JsonRpcError, McpHostError } from '../errors/index.js';
import type { Disposable } from '../internal/disposable.js';
import type { Logger } from '../internal/logger.js';
import { JsonRpcPeer } from '../jsonrpc/peer.js';
import type { RequestHeaders, Transport } from '../jsonrpc/transport.js';
import {
  eraOf,
  LATEST_LEGACY_PROTOCOL_VERSION,
  mcpPeerConventions,
  MODERN_PROTOCOL_VERSIONS,
  type Implementation,
} from '../protocol/index.js';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_DISCOVER_TIMEOUT_MS,
  type CachedEra,
  type McpClientOptions,
} from './client-options.js';
import { openLegacy, probeModern, type OpenContext, type Session } from './open-session.js';
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
  attach: (peer: JsonRpcPeer) => Disposable[];
  /** The extra headers of each message, for transports that carry headers (HTTP). */
  requestHeaders?: RequestHeaders;
  logger: Logger;
}

const ERA_NAMESPACE = 'era';

/**
 * Opens a session with the server: a pinned era or version is used as given; otherwise a cached
 * era is tried first (and re-probed if the assumption fails), and a fresh server is probed with
 * `server/discover` per the 2026-07-28 versioning rules. The probe costs one round trip in the
 * same process; a legacy server that dies on it is started once more and opened with `initialize`.
 */
export async function connectSession(request: ConnectRequest): Promise<ConnectedPeer> {
  const { options } = request;
  const serverName = options.serverName;
  const deadline = new AbortController();
  const timer = setTimeout(
    () =>
      deadline.abort(
        new McpHostError('REQUEST_TIMEOUT', `${where(serverName)}connect timed out`, {
          serverName,
        }),
      ),
    options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
  );
  const signal =
    request.signal === undefined
      ? deadline.signal
      : AbortSignal.any([request.signal, deadline.signal]);
  const makeTransport = transportFactory(options.transport, serverName);
  let current: { peer: JsonRpcPeer; transport: Transport } | undefined;
  const open = async (): Promise<{ peer: JsonRpcPeer; transport: Transport }> => {
    const transport = makeTransport();
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
    setTransportVersion: (version) => current?.transport.setProtocolVersion?.(version),
  });
  try {
    const pinnedVersion = options.protocolVersion;
    const pinnedEra =
      pinnedVersion !== undefined
        ? eraOf(pinnedVersion)
        : options.era === 'auto'
          ? undefined
          : options.era;
    if (pinnedVersion !== undefined && pinnedEra === undefined) {
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `${where(serverName)}unknown protocol version '${pinnedVersion}'`,
        { serverName },
      );
    }
    const cached = pinnedEra === undefined ? await readCache(request) : undefined;
    const discoverTimeoutMs = options.discoverTimeoutMs ?? DEFAULT_DISCOVER_TIMEOUT_MS;
    let { peer } = await open();
    let session: Session;
    if (pinnedEra === 'legacy') {
      session = await openLegacy(peer, context(), pinnedVersion ?? LATEST_LEGACY_PROTOCOL_VERSION);
    } else if (pinnedEra === 'modern') {
      const outcome = await probeModern(
        peer,
        context(),
        discoverTimeoutMs,
        pinnedVersion === undefined ? MODERN_PROTOCOL_VERSIONS : [pinnedVersion],
      );
      if (outcome.kind !== 'modern') {
        throw new McpHostError(
          'PROTOCOL_VERSION_UNSUPPORTED',
          `${where(serverName)}the era is pinned to modern but the server is not modern (${outcome.kind === 'legacy' ? outcome.reason : outcome.error.message})`,
          { serverName },
        );
      }
      session = outcome.session;
    } else {
      let legacyFirst: Session | undefined;
      if (cached?.era === 'legacy') {
        try {
          legacyFirst = await openLegacy(peer, context(), LATEST_LEGACY_PROTOCOL_VERSION);
        } catch (error) {
          // The cached assumption failed: a server that refuses initialize is probed afresh.
          if (!(error instanceof JsonRpcError)) throw error;
          request.logger.info(
            `${where(serverName)}cached era 'legacy' failed (${error.message}); probing again`,
          );
        }
      }
      if (legacyFirst !== undefined) {
        session = legacyFirst;
      } else {
        const outcome = await probeModern(peer, context(), discoverTimeoutMs);
        if (outcome.kind === 'modern') {
          session = outcome.session;
        } else {
          if (outcome.kind === 'died') {
            if (typeof options.transport !== 'function') throw outcome.error;
            request.logger.info(
              `${where(serverName)}the server exited on the era probe; starting it again as legacy`,
            );
            await peer.close();
            ({ peer } = await open());
          } else {
            request.logger.debug(`${where(serverName)}legacy server: ${outcome.reason}`);
          }
          session = await openLegacy(peer, context(), LATEST_LEGACY_PROTOCOL_VERSION);
        }
      }
      if (cached?.era !== session.era || cached.version !== session.version)
        await writeCache(request, session);
    }
    current!.transport.setProtocolVersion?.(session.version);
    return { peer, transport: current!.transport, session };
  } catch (error) {
    await current?.peer.close().catch(() => {});
    if (
      signal.aborted &&
      !(error instanceof McpHostError && error.code === 'PROTOCOL_VERSION_UNSUPPORTED')
    ) {
      const reason: unknown = signal.reason;
      if (reason instanceof McpHostError) throw reason;
      throw new McpHostError('ABORTED', `${where(serverName)}connect was cancelled by the caller`, {
        serverName,
        cause: reason,
      });
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function transportFactory(
  transport: McpClientOptions['transport'],
  serverName: string | undefined,
): () => Transport {
  if (typeof transport === 'function') return transport;
  let used = false;
  return () => {
    if (used)
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `${where(serverName)}a transport instance can be opened once; pass a factory`,
      );
    used = true;
    return transport;
  };
}

async function readCache(request: ConnectRequest): Promise<CachedEra | undefined> {
  const { stateStore, identity, serverName } = request.options;
  if (stateStore === undefined || identity === undefined) return undefined;
  try {
    const value = await stateStore.get<CachedEra>(ERA_NAMESPACE, identity);
    return value !== undefined && eraOf(value.version) === value.era ? value : undefined;
  } catch (error) {
    request.logger.warn(`${where(serverName)}could not read the era cache`, {
      error: String(error),
    });
    return undefined;
  }
}

async function writeCache(request: ConnectRequest, session: Session): Promise<void> {
  const { stateStore, identity, serverName } = request.options;
  if (stateStore === undefined || identity === undefined) return;
  try {
    await stateStore.set(ERA_NAMESPACE, identity, {
      era: session.era,
      version: session.version,
    } satisfies CachedEra);
  } catch (error) {
    request.logger.warn(`${where(serverName)}could not write the era cache`, {
      error: String(error),
    });
  }
}

function where(serverName: string | undefined): string {
  return serverName === undefined ? '' : `server '${serverName}': `;
}
