/**
 * A transport started before anyone listens (the command line's head start, and `McpClient`'s
 * server spawned while the rest of the client loads), handed over without losing what it said.
 */
import { McpHostError } from '../errors/mcp-host-error.js';
import type { Logger } from '../internal/logger.js';
import { raceSignal } from '../internal/signals.js';
import type { JsonRpcMessage } from '../jsonrpc/message.js';
import type { Transport, TransportDiscards, TransportState } from '../jsonrpc/transport.js';
import { TransportEvents } from './transport-events.js';
import { TransportHold } from './transport-hold.js';

/**
 * A transport started before anyone listens, handed over. What it delivered meanwhile (a server's
 * early notification, its exit) was kept by its `TransportHold`, and is given in order to the
 * listeners that subscribed by the time `start()` is called, so nothing is lost in the handover.
 * To its taker it looks unstarted.
 */
export class HeldTransport implements Transport {
  readonly serverName: string | undefined;
  readonly #hold: TransportHold;
  readonly #events: TransportEvents;
  #starting: Promise<void> | undefined;
  #claimed = false;

  readonly onMessage;
  readonly onProblem;
  readonly onClose;

  /** `made`: the transport to make and start now, or a hold already under way. */
  constructor(
    made: Promise<Transport> | TransportHold,
    options: { serverName: string | undefined; logger: Logger },
  ) {
    this.serverName = options.serverName;
    this.#hold = made instanceof TransportHold ? made : new TransportHold(made);
    this.#events = new TransportEvents(options.logger, options.serverName);
    this.onMessage = this.#events.message.event;
    this.onProblem = this.#events.problem.event;
    this.onClose = this.#events.close.event;
  }

  get state(): TransportState {
    return this.#starting === undefined ? 'new' : (this.#hold.transport?.state ?? 'starting');
  }

  /** The server's process id while it runs (the host shows it in the server's status). */
  get pid(): number | undefined {
    return (this.#hold.transport as { pid?: number } | undefined)?.pid;
  }

  /** What the transport discarded so far (the client's stats count it). */
  get discards(): TransportDiscards | undefined {
    return this.#hold.transport?.discards;
  }

  /**
   * Waits for the early start and hands over what it delivered. The caller's `signal` (the
   * connect's deadline or cancel) rejects at once with ABORTED, as a transport's own start does,
   * and closes the early transport: a start given up on leaves no process behind.
   */
  start(options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#claimed = true;
    this.#starting ??= raceSignal(this.#hold.started, options.signal, (reason) => {
      void this.close();
      return new McpHostError('ABORTED', 'start was cancelled by the caller', {
        serverName: this.serverName,
        cause: reason,
      });
    }).then(() => {
      const events = this.#events;
      this.#hold.release({
        message: (value) => events.message.fire(value),
        problem: (value) => events.problem.fire(value),
        close: (value) => events.closed(value),
      });
    });
    return this.#starting;
  }

  send(message: JsonRpcMessage): void {
    const transport = this.#hold.transport;
    if (transport === undefined || this.#hold.holding)
      throw new McpHostError('NOT_CONNECTED', 'cannot send: the connection is starting', {
        serverName: this.serverName,
      });
    transport.send(message);
  }

  close(): Promise<void> {
    this.#claimed = true;
    return this.#hold.close();
  }

  /** Closes the transport unless a connect took it over (the host owns it then). */
  async closeIfUnclaimed(): Promise<void> {
    if (!this.#claimed) await this.close();
  }

  setProtocolVersion(version: string | undefined): void {
    this.#hold.transport?.setProtocolVersion?.(version);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
