import type { McpClient } from '../../client/mcp-client.js';
import { McpHostError, withoutServerName } from '../../errors/mcp-host-error.js';
import { redact } from '../../errors/redact.js';
import type { PeerStats } from '../../jsonrpc/peer-options.js';
import type { Implementation } from '../../protocol/types.js';
import type { ProtocolEra } from '../../protocol/versions.js';

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
  /** The error that led here, if any: redacted, and without the `server '<name>': ` prefix. */
  lastError?: { code: string; message: string };
  /** The stdio server's process id, while it runs. */
  pid?: number;
  era?: ProtocolEra;
  protocolVersion?: string;
  serverInfo?: Implementation;
  /**
   * The extensions the server declared (the keys of its `capabilities.extensions`, such as
   * `io.modelcontextprotocol/tasks`), while it is live; absent when it declared none.
   */
  extensions?: string[];
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
  /**
   * What the live connection threw away so far (ready or degraded; see `McpClient.stats`):
   * responses nobody waited for, messages that were not JSON-RPC, lines that were not JSON,
   * messages over `maxMessageBytes`.
   */
  discarded?: Pick<
    PeerStats,
    'unknownResponses' | 'lateResponses' | 'invalidMessages' | 'junkMessages' | 'oversizedMessages'
  >;
}

/** States in which a server offers no tools (one restarting keeps its tools listed). */
export const TOOLLESS_STATES: ReadonlySet<ServerState> = new Set<ServerState>([
  'disabled',
  'idle',
  'needs_auth',
  'failed',
  'crash_loop',
  'closed',
]);

/**
 * A failure as the status of server `serverName` shows it (`lastError`): its code, and its
 * message redacted unless it is ours, without the `server '<name>': ` the status already says.
 */
export function describeFailure(
  error: unknown,
  serverName: string,
): { code: string; message: string } {
  if (error instanceof McpHostError)
    return { code: error.code, message: withoutServerName(serverName, error.message) };
  if (error instanceof Error) return { code: 'INTERNAL', message: redact(error.message) };
  return { code: 'INTERNAL', message: redact(String(error)) };
}

/** What a server's status is made of. */
export interface StatusParts {
  name: string;
  state: ServerState;
  since: number;
  lastError: { code: string; message: string } | undefined;
  client: McpClient | undefined;
  toolCount: number;
  quarantinedCount: number;
  restartCount: number;
  nextRetryAt: number | undefined;
  inFlight: number;
  queued: number;
}

function extensionsOf(extensions: Record<string, unknown> | undefined): { extensions?: string[] } {
  const names = extensions === undefined ? [] : Object.keys(extensions);
  return names.length === 0 ? {} : { extensions: names };
}

/** A server's status as plain JSON (pid and session only while it is live). */
export function toServerStatus(parts: StatusParts): ServerStatus {
  const { client, state, lastError, nextRetryAt } = parts;
  const session = client?.session;
  const live = state === 'ready' || state === 'degraded';
  return {
    name: parts.name,
    state,
    since: new Date(parts.since).toISOString(),
    ...(lastError === undefined ? {} : { lastError: { ...lastError } }),
    ...(live && client?.pid !== undefined ? { pid: client.pid } : {}),
    ...(live && session !== undefined
      ? {
          era: session.era,
          protocolVersion: session.version,
          ...(session.serverInfo === undefined ? {} : { serverInfo: { ...session.serverInfo } }),
          ...extensionsOf(session.capabilities.extensions),
        }
      : {}),
    toolCount: parts.toolCount,
    quarantinedCount: parts.quarantinedCount,
    restartCount: parts.restartCount,
    ...(nextRetryAt === undefined ? {} : { nextRetryAt: new Date(nextRetryAt).toISOString() }),
    inFlight: parts.inFlight,
    queued: parts.queued,
    ...(live && client !== undefined ? { discarded: discardedBy(client) } : {}),
  };
}

function discardedBy(client: McpClient): NonNullable<ServerStatus['discarded']> {
  const { unknownResponses, lateResponses, invalidMessages, junkMessages, oversizedMessages } =
    client.stats;
  return { unknownResponses, lateResponses, invalidMessages, junkMessages, oversizedMessages };
}

/**
 * `SERVER_UNAVAILABLE` naming the server's state, its next attempt and its last error; that error
 * itself (a crash's `ProcessExitedError`, say) is its `cause`, when given.
 */
export function unavailableError(
  name: string,
  state: ServerState,
  lastError: { code: string; message: string } | undefined,
  nextRetryAt: number | undefined,
  tool: string | undefined,
  lastFailure?: unknown,
): McpHostError {
  const why = lastError === undefined ? '' : `: ${lastError.message}`;
  const retry =
    nextRetryAt === undefined
      ? ''
      : `, next attempt in ${Math.max(0, nextRetryAt - Date.now())} ms`;
  return new McpHostError('SERVER_UNAVAILABLE', `not available (${state}${retry})${why}`, {
    serverName: name,
    tool,
    details: { state, ...(lastError ? { lastError } : {}) },
    ...(lastFailure === undefined ? {} : { cause: lastFailure }),
  });
}
