import { McpHostError } from '../../errors/mcp-host-error.js';
import type { HttpProblems } from './http-problems.js';
import { startFetchFailure } from './legacy-sse-start.js';

/** What the legacy HTTP+SSE transport knew when its `start()` failed. */
export interface StartErrorContext {
  problems: HttpProblems;
  /** The SSE URL. */
  url: URL;
  serverName: string | undefined;
  callerSignal: AbortSignal | undefined;
  /** Set when `connectTimeoutMs` ran out before the endpoint event. */
  timedOutAfterMs: number | undefined;
  /** True when the transport was closed while starting. */
  closed: boolean;
}

/** What a failed start of the legacy HTTP+SSE transport means, as one typed error. */
export function startError(error: unknown, context: StartErrorContext): McpHostError {
  const { problems, url, callerSignal } = context;
  if (callerSignal?.aborted)
    return new McpHostError('ABORTED', `${problems.where}start was cancelled by the caller`, {
      serverName: context.serverName,
      cause: callerSignal.reason,
    });
  if (context.timedOutAfterMs !== undefined)
    return problems.error(
      'CONNECT_TIMEOUT',
      `no endpoint event from ${url.origin} within ${context.timedOutAfterMs} ms (connectTimeoutMs)`,
    );
  if (context.closed)
    return problems.error('CONNECTION_CLOSED', 'the transport was closed while starting');
  if (error instanceof McpHostError) return error;
  return problems.failure(startFetchFailure(error, url, problems.limits));
}
