import { McpHostError } from '../errors/mcp-host-error.js';
import { isObject } from '../protocol/guards.js';
import { McpMethod } from '../protocol/methods.js';

/** How requests without side effects are retried after a transient HTTP failure. */
export interface RetryPolicy {
  /** Attempts in all, the first included (default 3; 1 turns retries off). */
  maxAttempts?: number;
  /** The first backoff; each later one doubles, with full jitter (default 250 ms). */
  baseDelayMs?: number;
  /**
   * The longest wait before a retry (default 10 s). A `Retry-After` asking for longer is not
   * waited for: the request fails at once with the server's error (`details.retryAfterMs`).
   */
  maxDelayMs?: number;
}

export const DEFAULT_RETRY_ATTEMPTS = 3;
export const DEFAULT_RETRY_BASE_DELAY_MS = 250;
export const DEFAULT_RETRY_MAX_DELAY_MS = 10_000;

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
]);

/** Statuses that say "not now" rather than "no": retried even without `Retry-After`. */
const TRANSIENT_STATUSES = new Set([408, 429, 502, 503, 504]);

export function isSideEffectFree(method: string): boolean {
  return SIDE_EFFECT_FREE.has(method);
}

/**
 * How long to wait before attempt `attempt + 1` (attempts count from 1) of a side-effect-free
 * request that failed with `error`, or undefined when it should not be retried: not an HTTP
 * status error, not a transient status (408, 429, 502-504, or any 5xx with `Retry-After`), out of
 * attempts, or a `Retry-After` longer than the policy's longest wait.
 */
export function retryDelay(
  error: unknown,
  attempt: number,
  policy: RetryPolicy | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (!(error instanceof McpHostError) || error.code !== 'HTTP_STATUS') return undefined;
  const maxAttempts = policy?.maxAttempts ?? DEFAULT_RETRY_ATTEMPTS;
  if (attempt >= maxAttempts) return undefined;
  const details = isObject(error.details) ? error.details : {};
  const status = typeof details.status === 'number' ? details.status : 0;
  const retryAfterMs = typeof details.retryAfterMs === 'number' ? details.retryAfterMs : undefined;
  if (!TRANSIENT_STATUSES.has(status) && !(status >= 500 && retryAfterMs !== undefined))
    return undefined;
  const maxDelayMs = policy?.maxDelayMs ?? DEFAULT_RETRY_MAX_DELAY_MS;
  if (retryAfterMs !== undefined) return retryAfterMs <= maxDelayMs ? retryAfterMs : undefined;
  const base = policy?.baseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS;
  return Math.floor(random() * Math.min(maxDelayMs, base * 2 ** (attempt - 1)));
}

/**
 * Waits `ms`, or rejects with the signal's reason as soon as it aborts. The timer keeps the
 * process alive (someone awaits the request) and is cleared either way.
 */
export function backoff(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
