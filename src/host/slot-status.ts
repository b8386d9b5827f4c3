import type { McpClient } from '../client/mcp-client.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import type { ServerState, ServerStatus } from './server-status.js';

/** What a slot's status is made of. */
export interface SlotStatusParts {
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

/** A slot's status as plain JSON (pid and session only while it is live). */
export function toServerStatus(parts: SlotStatusParts): ServerStatus {
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
        }
      : {}),
    toolCount: parts.toolCount,
    quarantinedCount: parts.quarantinedCount,
    restartCount: parts.restartCount,
    ...(nextRetryAt === undefined ? {} : { nextRetryAt: new Date(nextRetryAt).toISOString() }),
    inFlight: parts.inFlight,
    queued: parts.queued,
  };
}

/** `SERVER_UNAVAILABLE` naming the server's state, its next attempt and its last error. */
export function unavailableError(
  name: string,
  state: ServerState,
  lastError: { code: string; message: string } | undefined,
  nextRetryAt: number | undefined,
  tool: string | undefined,
): McpHostError {
  const why = lastError === undefined ? '' : `: ${lastError.message}`;
  const retry =
    nextRetryAt === undefined
      ? ''
      : ` (next attempt in ${Math.max(0, nextRetryAt - Date.now())} ms)`;
  return new McpHostError('SERVER_UNAVAILABLE', `server '${name}' is ${state}${retry}${why}`, {
    serverName: name,
    tool,
    details: { state, ...(lastError ? { lastError } : {}) },
  });
}
