import { McpHostError } from '../errors/mcp-host-error.js';
import type { JsonObject } from '../jsonrpc/message.js';
import type { JsonRpcPeer } from '../jsonrpc/peer.js';
import type { RequestOptions } from '../jsonrpc/peer-options.js';
import type { Transport } from '../jsonrpc/transport.js';
import { onAbort, raceSignal } from '../internal/signals.js';
import { isInputRequiredResult } from '../protocol/guards.js';
import { McpMethod } from '../protocol/methods.js';
import {
  modernMeta,
  supportedVersionsOf,
  unsupportedVersionError,
  withModernMeta,
} from '../protocol/modern-meta.js';
import type { Implementation, InputRequest, LoggingLevel } from '../protocol/types.js';
import { MODERN_PROTOCOL_VERSIONS, pickMutualVersion } from '../protocol/versions.js';
import type { InputContinuation, InputResume, ServerInputHandlers } from './client-options.js';
import type { Session } from './open-session.js';
import type { InputRound, ServerInput } from './server-input.js';

/** Methods on which a modern server may answer `input_required`. */
const INPUT_METHODS = new Set<string>([
  McpMethod.ToolsCall,
  McpMethod.PromptsGet,
  McpMethod.ResourcesRead,
]);

/** One request's own input handlers and resumption (`CallOptions.input`, `.resume`). */
export interface RequestInput {
  input?: ServerInputHandlers | undefined;
  resume?: InputResume | undefined;
  /** Extensions this request declares in its `_meta` client capabilities (modern era). */
  extensions?: Record<string, JsonObject> | undefined;
}

/** What the requests of one open session need. */
export interface EraRequestsInit {
  peer: JsonRpcPeer;
  /** Told the version when a -32022 retry changed it (HTTP carries it in a header). */
  transport: Transport;
  session: Session;
  input: ServerInput;
  clientInfo: Implementation;
  maxInputRounds: number;
  serverName: string | undefined;
  /** Aborted, with the reason, when the client closes or loses its connection. */
  closeSignal: AbortSignal;
}

/**
 * The requests of one open session, in its era. Legacy: sent as they are. Modern: `_meta` on
 * each; an UnsupportedProtocolVersion (-32022) gets one retry with a mutual version; an
 * `input_required` result is answered through the client's handlers and the request sent again as
 * a new request (new id, `inputResponses`, `requestState` echoed byte for byte), at most
 * `maxInputRounds` times.
 */
export class EraRequests {
  readonly #init: EraRequestsInit;
  /** Modern era: the log level asked for on each request (legacy: `logging/setLevel`). */
  logLevel: LoggingLevel | undefined;

  constructor(init: EraRequestsInit, logLevel: LoggingLevel | undefined) {
    this.#init = init;
    this.logLevel = logLevel;
  }

  request<T>(
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions,
    own?: RequestInput,
  ): Promise<T> {
    const init = this.#init;
    // Legacy is the hot path for most servers: the peer's own promise, no wrapper.
    if (init.session.era === 'legacy') {
      if (own?.resume !== undefined) return Promise.reject(this.#legacyResume(method));
      return init.peer.request<T>(method, params, options);
    }
    return this.#modern<T>(method, params, options, own);
  }

  #legacyResume(method: string): McpHostError {
    return new McpHostError(
      'INVALID_ARGUMENT',
      `'${method}' cannot be resumed: the server speaks the legacy era, whose input requests live and die with their connection`,
      { serverName: this.#init.serverName, method },
    );
  }

  async #modern<T>(
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions,
    own: RequestInput | undefined,
  ): Promise<T> {
    const { peer, session, serverName, maxInputRounds } = this.#init;
    const input = own?.input === undefined ? this.#init.input : this.#init.input.with(own.input);
    let extra: JsonObject = {};
    if (own?.resume !== undefined) {
      extra.inputResponses = own.resume.inputResponses;
      if (own.resume.requestState !== undefined) extra.requestState = own.resume.requestState;
    }
    let versionRetried = false;
    const capabilities =
      own?.extensions === undefined
        ? input.capabilities
        : {
            ...input.capabilities,
            extensions: { ...input.capabilities.extensions, ...own.extensions },
          };
    for (let round = 0; ;) {
      const meta = modernMeta(
        session.version,
        { clientInfo: this.#init.clientInfo, capabilities },
        this.logLevel,
      );
      let result: unknown;
      try {
        result = await peer.request(method, withModernMeta({ ...params, ...extra }, meta), options);
      } catch (error) {
        const supported = supportedVersionsOf(error);
        if (supported === undefined) throw error;
        const mutual = pickMutualVersion(MODERN_PROTOCOL_VERSIONS, supported);
        if (mutual === undefined || versionRetried)
          throw unsupportedVersionError(serverName, supported, MODERN_PROTOCOL_VERSIONS);
        session.version = mutual;
        this.#init.transport.setProtocolVersion?.(mutual);
        versionRetried = true;
        continue;
      }
      if (!isInputRequiredResult(result)) return result as T;
      if (!INPUT_METHODS.has(method)) {
        throw new McpHostError(
          'PROTOCOL_VIOLATION',
          `'${method}' answered input_required, which it may not`,
          { serverName, method },
        );
      }
      if (++round > maxInputRounds) {
        throw new McpHostError(
          'INPUT_ROUNDS_EXCEEDED',
          `'${method}' still wanted input after ${maxInputRounds} rounds`,
          { serverName, method, details: { maxInputRounds } },
        );
      }
      extra = {};
      const requestState =
        typeof result.requestState === 'string' ? result.requestState : undefined;
      if (result.inputRequests !== undefined) {
        const answered = await this.#answerInput(
          input,
          result.inputRequests,
          method,
          options.signal,
        );
        if (answered.deferred !== undefined)
          throw this.#deferred(method, {
            inputRequests: answered.deferred,
            inputResponses: answered.responses,
            ...(requestState === undefined ? {} : { requestState }),
          });
        extra.inputResponses = answered.responses;
      }
      if (requestState !== undefined) extra.requestState = requestState;
    }
  }

  #deferred(method: string, continuation: InputContinuation): McpHostError {
    const keys = Object.keys(continuation.inputRequests).join("', '");
    return new McpHostError(
      'INPUT_DEFERRED',
      `'${method}' is paused: its input '${keys}' is to be answered later (resume it with details.continuation)`,
      { serverName: this.#init.serverName, method, details: { continuation } },
    );
  }

  /**
   * Runs the input handlers for one `input_required` round, bounded like any request: the
   * handlers' signal aborts, and the call fails at once, when the caller aborts (`ABORTED`, the
   * caller's reason as cause) or the connection closes (its reason), whether or not a handler
   * honours its signal.
   */
  async #answerInput(
    input: ServerInput,
    requests: Record<string, InputRequest>,
    method: string,
    callerSignal: AbortSignal | undefined,
  ): Promise<InputRound> {
    const { serverName, closeSignal } = this.#init;
    const controller = new AbortController();
    const removeCaller = onAbort(callerSignal, (reason) =>
      controller.abort(
        new McpHostError('ABORTED', `request '${method}' was cancelled by the caller`, {
          serverName,
          method,
          cause: reason,
        }),
      ),
    );
    const removeClose = onAbort(closeSignal, (reason) =>
      controller.abort(
        reason ??
          new McpHostError(
            'CONNECTION_CLOSED',
            `request '${method}' failed: the connection closed`,
            {
              serverName,
              method,
            },
          ),
      ),
    );
    try {
      return await raceSignal(
        input.answerInputRequests(requests, controller.signal, method),
        controller.signal,
      );
    } finally {
      removeCaller();
      removeClose();
    }
  }
}
