import { McpHostError } from '../errors/mcp-host-error.js';
import { deadlineSignal, linkSignals } from '../internal/signals.js';
import type { JsonRpcPeer } from '../jsonrpc/peer.js';
import type { Transport } from '../jsonrpc/transport.js';
import { isObject } from '../protocol/guards.js';
import { type ClientCapabilities, type Implementation } from '../protocol/types.js';
import { openLegacy, type Session } from './open-session.js';

export interface RecoveryContext {
  peer: JsonRpcPeer;
  transport: Transport;
  session: Session;
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  serverName: string | undefined;
  /** Bounds one re-initialisation. */
  timeoutMs: number;
  /** Aborted when the client closes. */
  closeSignal: AbortSignal;
}

/**
 * Recovers a legacy HTTP session the server forgot (it answered 404 to a request carrying the
 * session id): one fresh `initialize` however many requests failed at once, then each failed
 * request is sent once more. A request that fails the same way again, a pagination continuation
 * (its cursor belonged to the old session) and a failed re-initialisation all surface as typed
 * errors. The transport already ignores a late 404 for an older session.
 */
export class SessionRecovery {
  readonly #context: RecoveryContext;
  /** Counts re-initialisations: a request sent before the latest one just retries. */
  #generation = 0;
  #pending: Promise<void> | undefined;

  constructor(context: RecoveryContext) {
    this.#context = context;
  }

  get generation(): number {
    return this.#generation;
  }

  /** Resolves once no re-initialisation is under way (requests wait rather than race it). */
  get settled(): Promise<void> | undefined {
    return this.#pending;
  }

  /**
   * Called with the error of a request sent in `generation`: resolves when the request should be
   * sent once more, rejects (with `error` or the re-initialisation's failure) when it should not.
   */
  async recover(
    error: unknown,
    generation: number,
    method: string,
    params: unknown,
  ): Promise<void> {
    if (!(error instanceof McpHostError) || error.code !== 'SESSION_EXPIRED') throw error;
    if (isObject(params) && params.cursor !== undefined) throw error;
    if (generation !== this.#generation) return;
    this.#pending ??= this.#reinitialize(method).finally(() => {
      this.#pending = undefined;
    });
    await this.#pending;
  }

  async #reinitialize(method: string): Promise<void> {
    const context = this.#context;
    const { peer, transport, session, serverName } = context;
    const deadline = deadlineSignal(context.timeoutMs, () => undefined);
    const signal = linkSignals(deadline.signal, context.closeSignal);
    try {
      const fresh = await openLegacy(
        peer,
        {
          serverName,
          clientInfo: context.clientInfo,
          capabilities: context.capabilities,
          signal: signal.signal,
          transport,
        },
        session.version,
      );
      transport.setProtocolVersion?.(fresh.version);
      session.version = fresh.version;
      session.capabilities = fresh.capabilities;
      session.serverInfo = fresh.serverInfo;
      session.instructions = fresh.instructions;
      this.#generation++;
    } catch (cause) {
      transport.setProtocolVersion?.(session.version);
      throw new McpHostError(
        'SESSION_EXPIRED',
        `the server forgot the session and initialising a new one failed (while sending '${method}')`,
        { serverName, method, cause },
      );
    } finally {
      deadline.cleanup();
      signal.cleanup();
    }
  }
}
