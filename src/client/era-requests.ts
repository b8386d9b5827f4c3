import { McpHostError } from '../errors/mcp-host-error.js';
import type { JsonRpcPeer } from '../jsonrpc/peer.js';
import type { RequestOptions } from '../jsonrpc/peer-options.js';
import { isInputRequiredResult } from '../protocol/guards.js';
import { McpMethod } from '../protocol/methods.js';
import { MODERN_PROTOCOL_VERSIONS, pickMutualVersion } from '../protocol/versions.js';
import { type Implementation, type InputRequest, type LoggingLevel } from '../protocol/types.js';
import { type JsonObject } from '../jsonrpc/message.js';
import {
  modernMeta,
  supportedVersionsOf,
  unsupportedVersionError,
  withModernMeta,
  type Session,
} from './open-session.js';
import type { ServerInput } from './server-input.js';

/** Methods on which a modern server may answer `input_required`. */
const INPUT_METHODS = new Set<string>([
  McpMethod.ToolsCall,
  McpMethod.PromptsGet,
  McpMethod.ResourcesRead,
]);

export interface EraRequestContext {
  peer: JsonRpcPeer;
  session: Session;
  input: ServerInput;
  clientInfo: Implementation;
  logLevel: LoggingLevel | undefined;
  maxInputRounds: number;
  serverName: string | undefined;
  /** Aborted, with the reason, when the client closes or loses its connection. */
  closeSignal: AbortSignal;
  /** Tells the transport when a -32022 retry changed the session's version. */
  onVersionChange?: (version: string) => void;
}

/**
 * One request in the session's era. Legacy: sent as is. Modern: `_meta` added; an
 * UnsupportedProtocolVersion (-32022) gets one retry with a mutual version; `input_required` is
 * answered through the client's handlers and the request retried as a new request (new id,
 * `inputResponses`, `requestState` echoed byte for byte), at most `maxInputRounds` times.
 */
export function eraRequest<T>(
  context: EraRequestContext,
  method: string,
  params: JsonObject | undefined,
  options: RequestOptions,
): Promise<T> {
  // Legacy is the hot path for most servers: the peer's own promise, no wrapper.
  if (context.session.era === 'legacy') return context.peer.request<T>(method, params, options);
  return modernRequest<T>(context, method, params, options);
}

async function modernRequest<T>(
  context: EraRequestContext,
  method: string,
  params: JsonObject | undefined,
  options: RequestOptions,
): Promise<T> {
  const { peer, session, serverName } = context;
  const where = serverName === undefined ? '' : `server '${serverName}': `;
  let extra: JsonObject = {};
  let versionRetried = false;
  for (let round = 0; ;) {
    const meta = modernMeta(
      session.version,
      { clientInfo: context.clientInfo, capabilities: context.input.capabilities },
      context.logLevel,
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
      context.onVersionChange?.(mutual);
      versionRetried = true;
      continue;
    }
    if (!isInputRequiredResult(result)) return result as T;
    if (!INPUT_METHODS.has(method)) {
      throw new McpHostError(
        'PROTOCOL_VIOLATION',
        `${where}'${method}' answered input_required, which it may not`,
        {
          serverName,
          method,
        },
      );
    }
    if (++round > context.maxInputRounds) {
      throw new McpHostError(
        'INPUT_ROUNDS_EXCEEDED',
        `${where}'${method}' still wanted input after ${context.maxInputRounds} rounds`,
        {
          serverName,
          method,
          details: { maxInputRounds: context.maxInputRounds },
        },
      );
    }
    extra = {};
    if (result.inputRequests !== undefined) {
      extra.inputResponses = await answerInput(
        context,
        result.inputRequests,
        method,
        options.signal,
      );
    }
    if (typeof result.requestState === 'string') extra.requestState = result.requestState;
  }
}

/**
 * Runs the input handlers for one `input_required` round, bounded like any request: the handlers'
 * signal aborts, and the call fails at once, when the caller aborts (`ABORTED`, the caller's reason
 * as cause) or the connection closes (its reason), whether or not a handler honours its signal.
 */
async function answerInput(
  context: EraRequestContext,
  requests: Record<string, InputRequest>,
  method: string,
  callerSignal: AbortSignal | undefined,
): Promise<Record<string, unknown>> {
  const { serverName } = context;
  const where = serverName === undefined ? '' : `server '${serverName}': `;
  const controller = new AbortController();
  const abortByCaller = (): void =>
    controller.abort(
      new McpHostError('ABORTED', `${where}request '${method}' was cancelled by the caller`, {
        serverName,
        method,
        cause: callerSignal?.reason,
      }),
    );
  const closedError = (): McpHostError =>
    new McpHostError(
      'CONNECTION_CLOSED',
      `${where}request '${method}' failed: the connection closed`,
      {
        serverName,
        method,
      },
    );
  if (callerSignal?.aborted === true) abortByCaller();
  else callerSignal?.addEventListener('abort', abortByCaller, { once: true });
  const { closeSignal } = context;
  const abortByClose = (): void =>
    controller.abort((closeSignal.reason as unknown) ?? closedError());
  if (closeSignal.aborted) abortByClose();
  else closeSignal.addEventListener('abort', abortByClose, { once: true });
  try {
    const aborted = new Promise<never>((_, reject) => {
      if (controller.signal.aborted) reject(controller.signal.reason as Error);
      else
        controller.signal.addEventListener(
          'abort',
          () => reject(controller.signal.reason as Error),
          {
            once: true,
          },
        );
    });
    return await Promise.race([
      context.input.answerInputRequests(requests, controller.signal, method),
      aborted,
    ]);
  } finally {
    callerSignal?.removeEventListener('abort', abortByCaller);
    closeSignal.removeEventListener('abort', abortByClose);
  }
}
