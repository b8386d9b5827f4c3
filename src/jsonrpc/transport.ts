/** The transport contract lives beside the peer that consumes it; src/transport implements it. */
import type { Disposable } from '../internal/disposable.js';
import type { McpHostError } from '../errors/mcp-host-error.js';
import type { JsonRpcMessage } from './message.js';

/**
 * A transport's life: `new` until `start()`, `starting` while it connects or spawns, `open` while
 * messages flow, `closing` during a graceful close, `closed` for good. It never goes back.
 */
export type TransportState = 'new' | 'starting' | 'open' | 'closing' | 'closed';

/**
 * A non-fatal problem a transport saw: a junk line, an oversized message, a send that failed for
 * one request. `requestId` is set when the problem belongs to one outgoing request (for example an
 * oversized response whose id could be recovered): the peer fails that request with `error`. A
 * `REQUEST_TIMEOUT` error for a request means the transport stopped waiting for its response (an
 * HTTP deadline passed): the peer then abandons it as after its own timeout, telling the other side.
 */
export interface TransportProblem {
  error: McpHostError;
  requestId?: string | number;
  /**
   * Set when the problem is something the transport threw away unread: `junk` for a line, frame
   * or event that is not JSON (reports of these are rate-limited), `oversized` for a message over
   * `maxMessageBytes`. The transport's `discards` counts every one of them, reported or not.
   */
  discarded?: 'junk' | 'oversized';
}

/** What a transport threw away before anything became a message; the counts only grow. */
export interface TransportDiscards {
  /** Lines, frames or events that were not JSON (or not a JSON object or array): skipped. */
  readonly junkMessages: number;
  /** Messages over `maxMessageBytes`, discarded without being parsed. */
  readonly oversizedMessages: number;
}

/**
 * Moves JSON-RPC messages to and from one server, and knows nothing of MCP methods.
 *
 * - `send` is synchronous: it queues the message or throws a typed error (closed connection, full
 *   outgoing buffer, unserialisable message). Delivery failures after that surface as a problem
 *   with a `requestId`, or as the transport closing.
 * - `onMessage` delivers each parsed JSON value once, in order; the peer checks its shape.
 * - `onClose` fires exactly once, with `undefined` after a local `close()` and with the reason
 *   otherwise (the process exited, the socket dropped).
 * - `close()` is idempotent and safe to call concurrently; every call resolves when the
 *   transport is fully closed (its process tree gone, its sockets released).
 */
export interface Transport extends AsyncDisposable {
  readonly state: TransportState;
  start(options?: { signal?: AbortSignal }): Promise<void>;
  send(message: JsonRpcMessage): void;
  close(): Promise<void>;
  onMessage(listener: (message: unknown) => void): Disposable;
  onProblem(listener: (problem: TransportProblem) => void): Disposable;
  onClose(listener: (reason: McpHostError | undefined) => void): Disposable;
  /** Optional: what this transport discarded so far (a transport that never discards has none). */
  readonly discards?: TransportDiscards;
  /**
   * Optional: the protocol version the session settled on, for transports that also carry it out
   * of band (the HTTP transport's `MCP-Protocol-Version` header). Called by the client after the
   * handshake and whenever the version changes.
   */
  setProtocolVersion?(version: string | undefined): void;
  /**
   * Optional: the transport to try instead when the server rejects this one's requests at the
   * HTTP level (for Streamable HTTP, the legacy HTTP+SSE transport on the same URL and options).
   * A new, unstarted transport that the caller owns; undefined when there is none. The caller
   * decides when to use it; the transport only knows what its alternative is.
   */
  fallback?(): Transport | undefined;
  /**
   * Optional: for transports that carry headers with each message (HTTP), a function giving the
   * extra headers of one outgoing message (MCP's `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`). The
   * transport sends what it returns and knows nothing of what they mean. `undefined` removes it.
   */
  setRequestHeaders?(compute: RequestHeaders | undefined): void;
  /**
   * Optional: the peer stopped waiting for the response to this request (cancelled, timed out).
   * A transport with one exchange per request (HTTP) ends that exchange, so no socket is held
   * for an answer nobody reads; for MCP's 2026-07-28 HTTP transport that is the cancellation.
   */
  abandon?(requestId: string | number): void;
}

/** Extra headers for one outgoing message (lower-case names), or undefined for none. */
export type RequestHeaders = (
  message: JsonRpcMessage,
) => Readonly<Record<string, string>> | undefined;
