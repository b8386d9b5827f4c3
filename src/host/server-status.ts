import type { Implementation } from '../protocol/types.js';
import type { ProtocolEra } from '../protocol/versions.js';

/**
 * Where a managed server stands (docs/host.md draws the machine):
 *
 * - `disabled`: registered but not to be connected (config `enabled: false`, or `disable()`).
 * - `idle`: enabled but not connected: a lazy server before its first use, or after
 *   `disconnectServer()`; the next call (or `connectServer()`) connects it.
 * - `connecting`: a connect (handshake, tool listing, pin check) is under way.
 * - `ready`: connected and answering.
 * - `degraded`: connected, but a health check failed or timed out once; calls still go through.
 * - `restarting`: the connection was lost (or the server was wedged); waiting for the backoff to
 *   pass before connecting again (`nextRetryAt`).
 * - `needs_auth`: the server refused our credentials (401/403); not retried until re-authorised.
 * - `failed`: the last connect failed for a reason a retry cannot fix (command not found,
 *   permission denied, invalid configuration), or restarts are off; `restart()` tries again.
 * - `crash_loop`: it died too often in a short time; not restarted until `restart()`.
 * - `closed`: removed, or the host closed.
 */
export type ServerState =
  | 'disabled'
  | 'idle'
  | 'connecting'
  | 'ready'
  | 'degraded'
  | 'restarting'
  | 'needs_auth'
  | 'failed'
  | 'crash_loop'
  | 'closed';

/** A snapshot of one managed server, plain JSON. */
export interface ServerStatus {
  name: string;
  state: ServerState;
  /** When it entered this state (ISO 8601). */
  since: string;
  /** The error that led here, if any (already redacted). */
  lastError?: { code: string; message: string };
  /** The stdio server's process id, while it runs. */
  pid?: number;
  era?: ProtocolEra;
  protocolVersion?: string;
  serverInfo?: Implementation;
  /** Tools offered (after filters and quarantine). */
  toolCount: number;
  /** Tools held back by the pin check. */
  quarantinedCount: number;
  /** Restarts since the host started (manual ones included). */
  restartCount: number;
  /** When the next automatic connect attempt is due (ISO 8601), while `restarting`. */
  nextRetryAt?: string;
  inFlight: number;
  queued: number;
}

/** States in which calls are refused at once (the server is not there). */
export const UNAVAILABLE_STATES: ReadonlySet<ServerState> = new Set<ServerState>([
  'disabled',
  'restarting',
  'needs_auth',
  'failed',
  'crash_loop',
  'closed',
]);
