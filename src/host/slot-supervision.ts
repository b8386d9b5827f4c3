import type { McpClient } from '../client/mcp-client.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { redact } from '../errors/redact.js';
import type { Logger } from '../internal/logger.js';
import { RestartPolicy, type RestartOptions } from './restart-policy.js';
import type { ServerState } from './server-status.js';

export const DEFAULT_HEALTH_INTERVAL_MS = 30_000;
export const DEFAULT_HEALTH_TIMEOUT_MS = 5_000;

/** How the host watches a connected server. */
export interface HealthCheckOptions {
  /** Between checks (default 30 s; 0 turns them off). */
  intervalMs?: number;
  /** A check that takes longer has failed (default 5 s). */
  timeoutMs?: number;
  /** Failed checks in a row after which the server counts as wedged and is restarted (default 2). */
  failuresBeforeRestart?: number;
}

/** A failure as a status shows it (`lastError`), its message redacted unless it is ours. */
export function describe(error: unknown): { code: string; message: string } {
  if (error instanceof McpHostError) return { code: error.code, message: error.message };
  if (error instanceof Error) return { code: 'INTERNAL', message: redact(error.message) };
  return { code: 'INTERNAL', message: redact(String(error)) };
}

/** What restart scheduling needs of a slot. */
export interface Restartable {
  readonly name: string;
  state(): ServerState;
  set(state: ServerState): void;
  /** Connects again (the backoff is over). */
  reconnect(): void;
}

/**
 * What happens after a server fails: `needs_auth` on 401/403, `failed` on a permanent error or
 * when restarts are off, a crash loop past the limit, else a restart after a backoff.
 */
export class RestartSchedule {
  readonly #policy: RestartPolicy;
  readonly #logger: Logger;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #nextRetryAt: number | undefined;
  #restartCount = 0;

  constructor(options: RestartOptions, logger: Logger) {
    this.#policy = new RestartPolicy(options);
    this.#logger = logger;
  }

  /** When the next restart is due, while one is scheduled. */
  get nextRetryAt(): number | undefined {
    return this.#nextRetryAt;
  }

  get restartCount(): number {
    return this.#restartCount;
  }

  /** A manual restart: counted, and past crashes forgotten (so it also leaves `crash_loop`). */
  restartedByHand(): void {
    this.#policy.reset();
    this.#restartCount++;
  }

  /** Forgets past crashes (re-enabled). */
  reset(): void {
    this.#policy.reset();
  }

  /** Decides what the failed `slot` does next, and moves it there. */
  onFailure(slot: Restartable, error: unknown): void {
    if (error instanceof McpHostError) {
      const status = error.details?.status;
      if (error.code === 'HTTP_STATUS' && (status === 401 || status === 403)) {
        slot.set('needs_auth');
        return;
      }
      if (error.permanent) {
        slot.set('failed');
        return;
      }
    }
    const decision = this.#policy.onFailure(Date.now());
    if (decision.action === 'stop') {
      slot.set('failed');
    } else if (decision.action === 'crash_loop') {
      this.#logger.error(
        `server '${slot.name}': ${decision.failures} failures in a row; not restarting it until a manual restart`,
      );
      slot.set('crash_loop');
    } else {
      this.#nextRetryAt = Date.now() + decision.delayMs;
      slot.set('restarting');
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#nextRetryAt = undefined;
        if (slot.state() !== 'restarting') return;
        this.#restartCount++;
        slot.reconnect();
      }, decision.delayMs);
      this.#timer.unref?.();
    }
  }

  /** Cancels a scheduled restart. */
  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#nextRetryAt = undefined;
  }
}

/** What health checks need of a slot. */
export interface HealthTarget {
  readonly name: string;
  /** The connected client, while `generation` is the current connection. */
  client(generation: number): McpClient | undefined;
  isCurrent(generation: number): boolean;
  /** A check passed: a degraded server is ready again. */
  passed(): void;
  /** A check failed, not (yet) enough to call the server wedged: it is degraded. */
  degraded(error: unknown): void;
  /** Too many checks failed in a row: the connection is given up and the server restarted. */
  wedged(client: McpClient, error: unknown, reason: McpHostError): void;
}

/** Periodic checks of a connected server that bypass every cache (`ping`, or `server/discover`). */
export class HealthChecks {
  readonly #options: HealthCheckOptions | undefined;
  readonly #logger: Logger;
  readonly #target: HealthTarget;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #failures = 0;

  constructor(options: HealthCheckOptions | undefined, logger: Logger, target: HealthTarget) {
    this.#options = options;
    this.#logger = logger;
    this.#target = target;
  }

  /** Starts checking a fresh connection, with no failures counted. */
  start(generation: number): void {
    this.#failures = 0;
    this.#schedule(generation);
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(generation: number): void {
    const intervalMs = this.#options?.intervalMs ?? DEFAULT_HEALTH_INTERVAL_MS;
    if (intervalMs <= 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#check(generation);
    }, intervalMs);
    this.#timer.unref?.();
  }

  async #check(generation: number): Promise<void> {
    const target = this.#target;
    const client = target.client(generation);
    if (client === undefined) return;
    const timeoutMs = this.#options?.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS;
    try {
      await client.ping({ timeoutMs });
      if (!target.isCurrent(generation)) return;
      this.#failures = 0;
      target.passed();
    } catch (error) {
      if (!target.isCurrent(generation)) return;
      this.#failures++;
      const limit = this.#options?.failuresBeforeRestart ?? 2;
      if (this.#failures >= limit) {
        this.#logger.warn(
          `server '${target.name}': ${this.#failures} health checks failed in a row; restarting it`,
        );
        target.wedged(
          client,
          error,
          new McpHostError(
            'SERVER_UNAVAILABLE',
            `server '${target.name}' stopped answering health checks`,
            { serverName: target.name, cause: error },
          ),
        );
        return;
      }
      target.degraded(error);
    }
    this.#schedule(generation);
  }
}
