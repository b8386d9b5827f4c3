import { McpHostError } from '../errors/mcp-host-error.js';

/** How long a call that lost its connection waits for the server to come back before it fails. */
export const RETRY_WAIT_MS = 10_000;

/** Failures after which the request certainly never reached the server. */
const NEVER_SENT = new Set(['NOT_CONNECTED', 'CONNECT_FAILED', 'CONNECT_TIMEOUT']);
/** Failures after which the server may or may not have run the request. */
const MAYBE_SENT = new Set([
  'CONNECTION_CLOSED',
  'PROCESS_EXITED',
  'KEEPALIVE_TIMEOUT',
  'STREAM_INTERRUPTED',
  'HTTP_REQUEST_FAILED',
]);

/**
 * Whether a call that failed with `error` may be sent again: when it certainly never reached the
 * server, or, with `resendDelivered`, when the server may have run it already.
 */
export function mayResend(error: unknown, resendDelivered: boolean): boolean {
  if (!(error instanceof McpHostError)) return false;
  return NEVER_SENT.has(error.code) || (resendDelivered && MAYBE_SENT.has(error.code));
}

/** What waiting for a server to come back needs to know of it. */
export interface ComingBack {
  readonly name: string;
  /** Called on every state change of the server. */
  readonly stateWaiters: Set<() => void>;
  /** Connected again. */
  isBack(): boolean;
  /** Still on its way back (restarting or connecting). */
  isComing(): boolean;
  unavailable(tool?: string): McpHostError;
}

/**
 * Resolves once the server is ready again; rejects (`SERVER_UNAVAILABLE`) when it will not be
 * soon (it stopped coming back, or not within `RETRY_WAIT_MS`), or `ABORTED` on the signal.
 */
export function whenBack(
  server: ComingBack,
  tool: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = (error?: Error): void => {
      clearTimeout(timer);
      server.stateWaiters.delete(check);
      signal?.removeEventListener('abort', onAbort);
      if (error === undefined) resolve();
      else reject(error);
    };
    const check = (): void => {
      if (server.isBack()) done();
      else if (!server.isComing()) done(server.unavailable(tool));
    };
    const onAbort = (): void =>
      done(
        new McpHostError('ABORTED', `server '${server.name}': '${tool}' was cancelled`, {
          serverName: server.name,
          tool,
          cause: signal?.reason,
        }),
      );
    const timer = setTimeout(() => done(server.unavailable(tool)), RETRY_WAIT_MS);
    signal?.addEventListener('abort', onAbort, { once: true });
    server.stateWaiters.add(check);
    check();
  });
}
