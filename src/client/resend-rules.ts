/**
 * Whether a request that failed may be sent again, and when: the one module that decides it, for
 * the client's HTTP request policy and for the host's tool calls alike. Three questions decide:
 *
 * - **Did it reach the server?** A request that certainly did not (no connection was made, or the
 *   server forgot the session and refused it unread) may always be sent again.
 * - **Does it change anything?** A side-effect-free method (listings, reads, `ping`, ...; never
 *   `tools/call`) may be retried after a transient HTTP status, with capped, jittered backoff.
 * - **Are duplicates acceptable?** A request the server may already have run (the connection or
 *   its response stream broke) is sent again only where the caller accepts running it twice: the
 *   modern era re-issues it once unless the host chose at-most-once; a host resends a tool call
 *   only when the caller opted in or a trusted server marks the tool read-only or idempotent.
 */
import { McpHostError } from '../errors/mcp-host-error.js';
import { backoffDelay } from '../internal/backoff.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { isObject } from '../protocol/guards.js';
import { McpMethod } from '../protocol/methods.js';
import type { ToolAnnotations } from '../protocol/types.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './client-options.js';

/**
 * Methods that change nothing on the server, so sending one twice is harmless. `tools/call` is
 * never among them: a tool's `readOnlyHint` is the server's claim, not a guarantee.
 */
const SIDE_EFFECT_FREE = new Set<string>([
  McpMethod.Ping,
  McpMethod.Discover,
  McpMethod.ToolsList,
  McpMethod.ResourcesList,
  McpMethod.ResourceTemplatesList,
  McpMethod.ResourcesRead,
  McpMethod.PromptsList,
  McpMethod.PromptsGet,
  McpMethod.Complete,
  McpMethod.SkillsList,
  McpMethod.SkillsGet,
  McpMethod.ResourcesDirectoryRead,
]);

/** Statuses that say "not now" rather than "no": retried even without `Retry-After`. */
const TRANSIENT_STATUSES = new Set([408, 429, 502, 503, 504]);

/** Failures after which the request certainly never reached the server. */
const NEVER_SENT = new Set(['NOT_CONNECTED', 'CONNECT_FAILED', 'CONNECT_TIMEOUT']);

/** Failures after which the server may or may not have run the request. */
const MAYBE_RUN = new Set([
  'CONNECTION_CLOSED',
  'PROCESS_EXITED',
  'KEEPALIVE_TIMEOUT',
  'STREAM_INTERRUPTED',
  'HTTP_REQUEST_FAILED',
]);

export function isSideEffectFree(method: string): boolean {
  return SIDE_EFFECT_FREE.has(method);
}

/** The server answered 404 to a request carrying its session id: it forgot the session. */
export function isSessionExpired(error: unknown): boolean {
  return error instanceof McpHostError && error.code === 'SESSION_EXPIRED';
}

/** A request whose response broke off (stream or connection): the server may have run it. */
export function isInterrupted(error: unknown): boolean {
  if (!(error instanceof McpHostError)) return false;
  return (
    error.code === 'STREAM_INTERRUPTED' ||
    (error.code === 'HTTP_REQUEST_FAILED' && error.details?.maybeExecuted === true)
  );
}

/**
 * How long to wait before attempt `attempt + 1` (attempts count from 1) of a side-effect-free
 * request that failed with `error`, or undefined when it should not be retried: not an HTTP
 * status error, not a transient status (408, 429, 502-504, or any 5xx with `Retry-After`), out of
 * attempts, or a `Retry-After` longer than the policy's longest wait.
 */
export function transientRetryDelay(
  error: unknown,
  attempt: number,
  policy: RetryPolicy | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (!(error instanceof McpHostError) || error.code !== 'HTTP_STATUS') return undefined;
  const maxAttempts = policy?.maxAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts;
  if (attempt >= maxAttempts) return undefined;
  const details = isObject(error.details) ? error.details : {};
  const status = typeof details.status === 'number' ? details.status : 0;
  const retryAfterMs = typeof details.retryAfterMs === 'number' ? details.retryAfterMs : undefined;
  if (!TRANSIENT_STATUSES.has(status) && !(status >= 500 && retryAfterMs !== undefined))
    return undefined;
  const maxDelayMs = policy?.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs;
  if (retryAfterMs !== undefined) return retryAfterMs <= maxDelayMs ? retryAfterMs : undefined;
  const baseDelayMs = policy?.baseDelayMs ?? DEFAULT_RETRY_POLICY.baseDelayMs;
  return backoffDelay(attempt, { baseDelayMs, maxDelayMs, jitter: 'full' }, random);
}

/** Whether a host asked that this request never be sent twice (see `atMostOnce`). */
export function isAtMostOnce(
  choice: boolean | readonly string[] | undefined,
  method: string,
  params: JsonObject | undefined,
): boolean {
  if (choice === undefined || choice === false || method !== McpMethod.ToolsCall) return false;
  return choice === true || (typeof params?.name === 'string' && choice.includes(params.name));
}

/**
 * Whether running a tool call twice is acceptable: the caller said so (`retry: true`), or a server
 * the host trusts marks the tool read-only or idempotent (annotations of an untrusted server are
 * hints, not guarantees).
 */
export function acceptsDuplicates(call: {
  retry: boolean;
  trusted: boolean;
  annotations: ToolAnnotations | undefined;
}): boolean {
  return (
    call.retry ||
    (call.trusted &&
      (call.annotations?.readOnlyHint === true || call.annotations?.idempotentHint === true))
  );
}

/**
 * Whether a tool call that failed with `error` may be sent again once its server is back: when it
 * certainly never reached the server, or, when duplicates are acceptable, when the server may
 * have run it already.
 */
export function mayResendToolCall(error: unknown, duplicatesAccepted: boolean): boolean {
  if (!(error instanceof McpHostError)) return false;
  return NEVER_SENT.has(error.code) || (duplicatesAccepted && MAYBE_RUN.has(error.code));
}
