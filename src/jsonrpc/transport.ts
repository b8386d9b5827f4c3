/** The transport contract lives beside the peer that consumes it; src/transport implements it. */
import type { Disposable } from '../internal/disposable.js';
import type { McpHostError } from '../errors/index.js';
import type { JsonRpcMessage } from './message.js';

/**
 * A transport's life: `new` until `start()`, `starting` while it connects or spawns, `open` while
 * messages flow, `closing` during a graceful close, `closed` for good. It never goes back.
 */
export type TransportState = 'new' | 'starting' | 'open' | 'closing' | 'closed';

/**
 * A non-fatal problem a transport saw: a junk line, an oversized message, a send that failed for
 * one request. `requestId` is set when the problem belongs to one outgoing request (for example an
 * oversized response whose id could be recovered): the peer fails that request with `error`.
 */
export interface TransportProblem {
  error: McpHostError;
  requestId?: string | number;
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
  /**
   * Optional: the protocol version the session settled on, for transports that also carry it out
   * of band (the HTTP transport's `MCP-Protocol-Version` header). Called by the client after the
   * handshake and whenever the version changes.
   */
  setProtocolVersion?(version: string | undefined): void;
}
