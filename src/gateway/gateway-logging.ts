import { toMcpHostError } from '../errors/to-mcp-host-error.js';
import type { Disposable } from '../internal/disposable.js';
import type { Logger } from '../internal/logger.js';
import { LOGGING_LEVELS, type LoggingLevel, type LoggingMessageParams } from '../protocol/types.js';
import type { BridgedCall, CallClient } from './bridged-call.js';
import type { GatewaySource } from './gateway-source.js';

/** Whether a message at `level` is wanted by a client at `wanted` (unknown levels never are). */
export function admits(wanted: LoggingLevel | undefined, level: string): boolean {
  if (wanted === undefined) return false;
  const index = (LOGGING_LEVELS as readonly string[]).indexOf(level);
  return index !== -1 && index >= LOGGING_LEVELS.indexOf(wanted);
}

/** Whether `value` is one of the eight log levels. */
export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && (LOGGING_LEVELS as readonly string[]).includes(value);
}

/**
 * The log messages of a gateway's servers (over one source), and the levels its clients asked
 * for. Each client that asks (a legacy session's `logging/setLevel`, a modern call's
 * `io.modelcontextprotocol/logLevel`) is counted while it wants messages; the servers are given
 * the most verbose level any of them asks for, before the request that asked goes on (when no
 * client asks any more, the servers keep the last level given). A server's message goes to the
 * client whose call it belongs to (every gateway call running on that server is that client's),
 * else to every legacy client that set a level; each client gets only what its level admits.
 */
export class GatewayLogging {
  readonly #source: GatewaySource;
  readonly #calls: ReadonlySet<BridgedCall>;
  readonly #logger: Logger;
  /** The level each asking client wants (a legacy session, or a modern call's client). */
  readonly #wanted = new Map<object, LoggingLevel>();
  /** The legacy clients that set a level: where a message no call owns goes. */
  readonly #sessions = new Set<CallClient>();
  /** The level the servers were last given. */
  #given: LoggingLevel | undefined;
  #syncing: Promise<void> = Promise.resolve();
  readonly #messages: Disposable;

  constructor(source: GatewaySource, calls: ReadonlySet<BridgedCall>, logger: Logger) {
    this.#source = source;
    this.#calls = calls;
    this.#logger = logger;
    this.#messages = source.onLogMessage((message) => this.#route(message));
  }

  /** The level the servers were last given (undefined before any client asked). */
  get level(): LoggingLevel | undefined {
    return this.#given;
  }

  /**
   * `client` wants messages at `level` from now on, until `release(client)`; a legacy session is
   * also sent the messages no call owns. Resolves once the servers were given a level at least
   * as verbose.
   */
  want(client: CallClient, level: LoggingLevel): Promise<void> {
    this.#wanted.set(client, level);
    if (client.era === 'legacy') this.#sessions.add(client);
    return this.#sync();
  }

  /** `client` wants no more messages (its call ended, its session closed). */
  release(client: CallClient): void {
    if (!this.#wanted.delete(client)) return;
    this.#sessions.delete(client);
    void this.#sync();
  }

  close(): void {
    this.#messages.dispose();
    this.#wanted.clear();
    this.#sessions.clear();
  }

  /** Gives the servers the most verbose level wanted now, when it differs from the last given. */
  #sync(): Promise<void> {
    this.#syncing = this.#syncing.then(async () => {
      let level: LoggingLevel | undefined;
      for (const wanted of this.#wanted.values())
        if (level === undefined || LOGGING_LEVELS.indexOf(wanted) < LOGGING_LEVELS.indexOf(level))
          level = wanted;
      if (level === undefined || level === this.#given) return;
      this.#given = level;
      await this.#source.setLoggingLevel(level).catch((error: unknown) =>
        this.#logger.debug('gateway: could not set the servers’ log level', {
          error: toMcpHostError(error).message,
        }),
      );
    });
    return this.#syncing;
  }

  #route(message: LoggingMessageParams & { server: string }): void {
    const { server, ...params } = message;
    const owners = new Set<CallClient>();
    for (const call of this.#calls) if (call.server === server) owners.add(call.client);
    const [owner] = owners;
    const targets = owners.size === 1 && owner !== undefined ? [owner] : [...this.#sessions];
    for (const client of targets)
      if (admits(this.#wanted.get(client), params.level)) client.log?.(params);
  }
}
