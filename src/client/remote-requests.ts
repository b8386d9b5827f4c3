import { McpHostError } from '../errors/mcp-host-error.js';
import type { Logger } from '../internal/logger.js';
import type { RequestOptions } from '../jsonrpc/peer-options.js';
import type { RequestHeaders } from '../jsonrpc/transport.js';
import { mcpRequestHeaders } from '../protocol/http-headers.js';
import { McpMethod } from '../protocol/methods.js';
import { type JsonObject } from '../jsonrpc/message.js';
import { type ProtocolEra } from '../protocol/versions.js';
import type { McpClientOptions } from './client-options.js';
import { backoff, isSideEffectFree, retryDelay } from './request-retry.js';
import {
  isInterrupted,
  isSessionExpired,
  SessionRecovery,
  type RecoveryContext,
} from './session-recovery.js';
import type { ToolCatalog } from './tool-results.js';

/** MCP's request metadata headers (`Mcp-Method`, `Mcp-Param-*`) for transports that carry headers. */
export function toolRequestHeaders(tools: ToolCatalog): RequestHeaders {
  return (message) => mcpRequestHeaders(message, (tool) => tools.headerParams(tool));
}

/** Whether a host asked that this request never be sent twice (see `atMostOnce`). */
export function isAtMostOnce(
  choice: McpClientOptions['atMostOnce'],
  method: string,
  params: JsonObject | undefined,
): boolean {
  if (choice === undefined || choice === false || method !== McpMethod.ToolsCall) return false;
  return choice === true || (typeof params?.name === 'string' && choice.includes(params.name));
}

export interface RemoteRequestsOptions {
  era: ProtocolEra;
  /** Read at each request: `retry` and `atMostOnce`. */
  clientOptions: Pick<McpClientOptions, 'retry' | 'atMostOnce'>;
  /** What a legacy session's re-initialisation needs (see SessionRecovery); unused when modern. */
  recoveryContext: () => RecoveryContext | undefined;
  logger: Logger;
  serverName: string | undefined;
  /** Aborted as soon as the client starts closing or loses its connection. */
  closeSignal: AbortSignal;
  /** The era request itself, sent once. */
  send: <T>(method: string, params: JsonObject | undefined, options: RequestOptions) => Promise<T>;
}

/**
 * The request policy over HTTP (transports that carry headers): a side-effect-free request is
 * retried after a transient status (429, 503, ... honouring `Retry-After`), any one is sent once
 * more after the server forgot a legacy session and a new one was opened (see SessionRecovery),
 * and a modern request whose response stream broke is re-issued once unless at-most-once.
 */
export class RemoteRequests {
  readonly #options: RemoteRequestsOptions;
  /** Re-initialises a legacy HTTP session the server forgot. */
  readonly #recovery: SessionRecovery | undefined;

  constructor(options: RemoteRequestsOptions) {
    this.#options = options;
    if (options.era === 'legacy') this.#recovery = new SessionRecovery(options.recoveryContext);
  }

  async request<T>(
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions,
  ): Promise<T> {
    const { era, clientOptions, logger, closeSignal, send } = this.#options;
    const recovery = this.#recovery;
    const retries = isSideEffectFree(method) ? clientOptions.retry : false;
    // 2026-07-28 over HTTP: closing the response stream is the cancellation; no notification.
    if (era === 'modern') options = { ...options, sendCancel: false };
    let sessionRetried = false;
    let reissued = false;
    for (let attempt = 1; ; attempt++) {
      if (recovery?.settled !== undefined) await recovery.settled;
      const generation = recovery?.generation ?? 0;
      try {
        return await send<T>(method, params, options);
      } catch (error) {
        if (recovery !== undefined && !sessionRetried && isSessionExpired(error)) {
          await recovery.recover(error, generation, method, params);
          sessionRetried = true;
          continue;
        }
        // Modern era: a response stream that broke before the response is re-issued (a new
        // request, new id) once, unless the host chose at-most-once for this server or tool.
        if (!reissued && era === 'modern' && isInterrupted(error)) {
          if (isAtMostOnce(clientOptions.atMostOnce, method, params)) throw error;
          logger.info(this.#where(`'${method}' lost its response stream; sending it again`));
          reissued = true;
          continue;
        }
        const wait = retries === false ? undefined : retryDelay(error, attempt, retries);
        if (wait === undefined) throw error;
        logger.debug(this.#where(`'${method}' failed (${String(error)}); retrying in ${wait} ms`));
        const signal =
          options.signal === undefined
            ? closeSignal
            : AbortSignal.any([options.signal, closeSignal]);
        await backoff(wait, signal).catch(() => {
          if (options.signal?.aborted !== true) throw error;
          throw new McpHostError(
            'ABORTED',
            this.#where(`request '${method}' was cancelled by the caller`),
            { serverName: this.#options.serverName, method, cause: options.signal.reason },
          );
        });
      }
    }
  }

  #where(message: string): string {
    const { serverName } = this.#options;
    return serverName === undefined ? message : `server '${serverName}': ${message}`;
  }
}
