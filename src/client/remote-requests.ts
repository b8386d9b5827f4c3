import { aboutServer, McpHostError } from '../errors/mcp-host-error.js';
import type { Logger } from '../internal/logger.js';
import { abortableDelay, linkSignals } from '../internal/signals.js';
import type { JsonObject } from '../jsonrpc/message.js';
import type { RequestOptions } from '../jsonrpc/peer-options.js';
import type { McpClientOptions } from './client-options.js';
import type { EraRequests, RequestInput } from './era-requests.js';
import {
  isAtMostOnce,
  isInterrupted,
  isSessionExpired,
  isSideEffectFree,
  transientRetryDelay,
} from './resend-rules.js';
import type { SessionRecovery } from './session-recovery.js';

export interface RemoteRequestsOptions {
  /** The session's requests, each sent once. */
  requests: EraRequests;
  /** Legacy sessions: re-initialises a session the server forgot. Undefined when modern. */
  recovery: SessionRecovery | undefined;
  /** Read at each request: `retry` and `atMostOnce`. */
  clientOptions: Pick<McpClientOptions, 'retry' | 'atMostOnce'>;
  logger: Logger;
  serverName: string | undefined;
  /** Aborted as soon as the client starts closing or loses its connection. */
  closeSignal: AbortSignal;
}

/**
 * The request policy over HTTP (transports that carry headers), as `resend-rules.ts` decides it:
 * a side-effect-free request is retried after a transient status (429, 503, ... honouring
 * `Retry-After`), any request is sent once more after the server forgot a legacy session and a new
 * one was opened, and a modern request whose response stream broke is re-issued once unless the
 * host chose at-most-once for it.
 */
export class RemoteRequests {
  readonly #options: RemoteRequestsOptions;
  readonly #modern: boolean;

  constructor(options: RemoteRequestsOptions) {
    this.#options = options;
    this.#modern = options.recovery === undefined;
  }

  async request<T>(
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions,
    own?: RequestInput,
  ): Promise<T> {
    const { requests, recovery, clientOptions, logger, serverName } = this.#options;
    const retries = isSideEffectFree(method) ? clientOptions.retry : false;
    // 2026-07-28 over HTTP: closing the response stream is the cancellation; no notification.
    if (this.#modern) options = { ...options, sendCancel: false };
    let sessionRetried = false;
    let reissued = false;
    for (let attempt = 1; ; attempt++) {
      if (recovery?.settled !== undefined) await recovery.settled;
      const generation = recovery?.generation ?? 0;
      try {
        return await requests.request<T>(method, params, options, own);
      } catch (error) {
        if (recovery !== undefined && !sessionRetried && isSessionExpired(error)) {
          await recovery.recover(error, generation, method, params);
          sessionRetried = true;
          continue;
        }
        if (!reissued && this.#modern && isInterrupted(error)) {
          if (isAtMostOnce(clientOptions.atMostOnce, method, params)) throw error;
          logger.info(
            aboutServer(serverName, `'${method}' lost its response stream; sending it again`),
          );
          reissued = true;
          continue;
        }
        const wait = retries === false ? undefined : transientRetryDelay(error, attempt, retries);
        if (wait === undefined) throw error;
        logger.debug(
          aboutServer(serverName, `'${method}' failed (${String(error)}); retrying in ${wait} ms`),
        );
        await this.#backoff(wait, method, options.signal, error);
      }
    }
  }

  /** Waits before a retry; the caller's abort ends the wait (ABORTED), a close fails the request. */
  async #backoff(
    ms: number,
    method: string,
    callerSignal: AbortSignal | undefined,
    failure: unknown,
  ): Promise<void> {
    const linked = linkSignals(callerSignal, this.#options.closeSignal);
    try {
      await abortableDelay(ms, linked.signal, () => {
        if (callerSignal?.aborted !== true) return failure as Error;
        return new McpHostError('ABORTED', `request '${method}' was cancelled by the caller`, {
          serverName: this.#options.serverName,
          method,
          cause: callerSignal.reason,
        });
      });
    } finally {
      linked.cleanup();
    }
  }
}
