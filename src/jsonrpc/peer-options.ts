import type { McpHostError } from '../errors/mcp-host-error.js';
import type { Logger } from '../internal/logger.js';
import type { JsonObject, RequestId } from './message.js';

/** Default idle timeout of a request: 60 s without a response (or, when allowed, progress). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Default hard cap on a request's whole life, progress or not: 10 minutes. */
export const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 600_000;
/** Default bound on incoming requests being handled at once. */
export const DEFAULT_MAX_INBOUND_REQUESTS = 1024;
/** Default bound on one message: 16 MiB (`LineDecoder`, and the transports' `maxMessageBytes`). */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** Default bound on unwritten output: 64 MiB (`LineWriter`). */
export const DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024 * 1024;

/**
 * The few conventions a JSON-RPC protocol layers on top, told to the protocol-neutral peer by the
 * layer above (for MCP: `notifications/cancelled`, `notifications/progress`, `_meta.progressToken`).
 */
export interface PeerConventions {
  cancel?: {
    /** Method of the cancellation notification, both directions. */
    method: string;
    /** Params of the notification we send when we abandon request `id`. */
    toParams(id: RequestId, reason: string): JsonObject;
    /** Which of the other side's requests an incoming cancellation names. */
    requestIdOf(params: unknown): RequestId | undefined;
  };
  progress?: {
    /** Method of progress notifications. */
    method: string;
    /** The progress token an incoming progress notification carries. */
    tokenOf(params: unknown): RequestId | undefined;
    /** Request params with the progress token put where the protocol wants it. */
    withToken(params: JsonObject | undefined, token: RequestId): JsonObject;
  };
}

export interface JsonRpcPeerOptions {
  /** The server's name, used in every error and log line. */
  serverName?: string;
  conventions?: PeerConventions;
  /** Idle timeout per request unless the request says otherwise (`Infinity` for none). */
  requestTimeoutMs?: number;
  /** Hard cap per request unless the request says otherwise (`Infinity` for none). */
  maxTotalTimeoutMs?: number;
  maxInboundRequests?: number;
  logger?: Logger;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Idle timeout: fails the request when nothing arrives for this long. */
  timeoutMs?: number;
  /** Hard cap on the request's whole life, whatever progress arrives. */
  maxTotalTimeoutMs?: number;
  /** Called with the params of each progress notification for this request. */
  onProgress?: (params: unknown) => void;
  /** Whether progress restarts the idle timeout (default true). */
  resetTimeoutOnProgress?: boolean;
  /** Whether abandoning the request tells the other side (default true; MCP never cancels `initialize`). */
  sendCancel?: boolean;
}

export interface RequestContext {
  readonly id: RequestId;
  readonly method: string;
  /** Aborted when the other side cancels the request or the connection closes. */
  readonly signal: AbortSignal;
}

/** Answers an incoming request: return the result, or throw a JsonRpcError to answer with it. */
export type RequestHandler = (params: unknown, context: RequestContext) => unknown;

export type NotificationHandler = (params: unknown, method: string) => void | Promise<void>;

/** Counters a peer keeps; all only grow. */
export interface PeerStats {
  requestsSent: number;
  notificationsSent: number;
  responsesReceived: number;
  /** Responses whose id we never used (stray): dropped. */
  unknownResponses: number;
  /** Responses for an id already settled: duplicates, or answers after a timeout or cancel. */
  lateResponses: number;
  /** Messages that were not valid JSON-RPC. */
  invalidMessages: number;
  requestsReceived: number;
  notificationsReceived: number;
  /** Lines, frames or events the transport skipped because they were not JSON (its `discards`). */
  junkMessages: number;
  /** Messages over `maxMessageBytes` the transport discarded unparsed (its `discards`). */
  oversizedMessages: number;
}

/** Every counter at zero: a fresh peer's stats. */
export function zeroPeerStats(): PeerStats {
  return {
    requestsSent: 0,
    notificationsSent: 0,
    responsesReceived: 0,
    unknownResponses: 0,
    lateResponses: 0,
    invalidMessages: 0,
    requestsReceived: 0,
    notificationsReceived: 0,
    junkMessages: 0,
    oversizedMessages: 0,
  };
}

/**
 * What was thrown away: a response with an id we never used (`unknown_response`), a second or
 * late response (`late_response`), JSON that is not JSON-RPC (`invalid`), a line, frame or event
 * that is not JSON (`junk`), a message over `maxMessageBytes` (`oversized`).
 */
export type DiscardKind = 'unknown_response' | 'late_response' | 'invalid' | 'junk' | 'oversized';

/**
 * A report of something discarded. Reports of junk and of unknown and late responses are
 * rate-limited (their message says how many more were discarded since the last report); the
 * counters in `stats` count every one.
 */
export interface DiscardEvent {
  kind: DiscardKind;
  /**
   * What was discarded and where: the server, and the request when the discarded message named
   * one we sent (its `requestId`). Shows at most a short redacted preview of the message.
   */
  error: McpHostError;
}
