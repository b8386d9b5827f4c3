/**
 * A transport started before anyone listens (the command line's head start, and `McpClient`'s
 * server spawned while the rest of the client loads), handed over without losing what it said.
 */
import { McpHostError } from '../errors/mcp-host-error.js';
import type { Logger } from '../internal/logger.js';
import { raceSignal } from '../internal/signals.js';
import type { JsonRpcMessage } from '../jsonrpc/message.js';
import type {
  Transport,
  TransportDiscards,
  TransportProblem,
  TransportState,
} from '../jsonrpc/transport.js';
import { TransportEvents } from './transport-events.js';

type HeldEvent =
  | { kind: 'message'; value: unknown }
  | { kind: 'problem'; value: TransportProblem }
  | { kind: 'close'; value: McpHostError | undefined };

/**
 * A transport started before anyone listens. What it delivers meanwhile (a server's early
 * notification, its exit) is kept, and given in order to the listeners that subscribed by the time
 * `start()` is called, so nothing is lost in the handover. To its taker it looks unstarted.
 */
export class HeldTransport implements Transport {
  readonly serverName: string | undefined;
  readonly #inner: Promise<Transport>;
  readonly #events: TransportEvents;
  #held: HeldEvent[] | undefined = [];
  #transport: Transport | undefined;
  #starting: Promise<void> | undefined;
  #claimed = false;

  readonly onMessage;
  readonly onProblem;
  readonly onClose;
  /**
   * Settles once the transport is made and its `start()` called (a stdio server's process is
   * spawned by then), or making it failed.
   */
  readonly launched: Promise<void>;

  constructor(
    made: Promise<Transport>,
    options: { serverName: string | undefined; logger: Logger },
  ) {
    this.serverName = options.serverName;
    this.#events = new TransportEvents(options.logger, options.serverName);
    this.onMessage = this.#events.message.event;
    this.onProblem = this.#events.problem.event;
    this.onClose = this.#events.close.event;
    this.#inner = made.then(async (transport) => {
      this.#transport = transport;
      // Per message: after the handover, passed straight on (no held event made).
      transport.onMessage((value) => {
        if (this.#held === undefined) this.#events.message.fire(value);
        else this.#held.push({ kind: 'message', value });
      });
      transport.onProblem((value) => this.#deliver({ kind: 'problem', value }));
      transport.onClose((value) => this.#deliver({ kind: 'close', value }));
      await transport.start();
      return transport;
    });
    // A failure is the taker's to see, from start(); one never taken is dropped with it.
    this.#inner.catch(() => {});
    // Registered after the start above: runs once start() has been called.
    this.launched = made.then(
      () => {},
      () => {},
    );
  }

  get state(): TransportState {
    return this.#starting === undefined ? 'new' : (this.#transport?.state ?? 'starting');
  }

  /** The server's process id while it runs (the host shows it in the server's status). */
  get pid(): number | undefined {
    return (this.#transport as { pid?: number } | undefined)?.pid;
  }

  /** What the transport discarded so far (the client's stats count it). */
  get discards(): TransportDiscards | undefined {
    return this.#transport?.discards;
  }

  /**
   * Waits for the early start and hands over what it delivered. The caller's `signal` (the
   * connect's deadline or cancel) rejects at once with ABORTED, as a transport's own start does,
   * and closes the early transport: a start given up on leaves no process behind.
   */
  start(options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#claimed = true;
    this.#starting ??= raceSignal(this.#inner, options.signal, (reason) => {
      void this.close();
      return new McpHostError('ABORTED', 'start was cancelled by the caller', {
        serverName: this.serverName,
        cause: reason,
      });
    }).then(() => {
      const held = this.#held ?? [];
      this.#held = undefined;
      for (const event of held) this.#fire(event);
    });
    return this.#starting;
  }

  send(message: JsonRpcMessage): void {
    if (this.#transport === undefined || this.#held !== undefined)
      throw new McpHostError('NOT_CONNECTED', 'cannot send: the connection is starting', {
        serverName: this.serverName,
      });
    this.#transport.send(message);
  }

  async close(): Promise<void> {
    this.#claimed = true;
    const transport = await this.#inner.catch(() => this.#transport);
    await transport?.close();
  }

  /** Closes the transport unless a connect took it over (the host owns it then). */
  async closeIfUnclaimed(): Promise<void> {
    if (!this.#claimed) await this.close();
  }

  setProtocolVersion(version: string | undefined): void {
    this.#transport?.setProtocolVersion?.(version);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #deliver(event: HeldEvent): void {
    if (this.#held !== undefined) this.#held.push(event);
    else this.#fire(event);
  }

  #fire(event: HeldEvent): void {
    if (event.kind === 'message') this.#events.message.fire(event.value);
    else if (event.kind === 'problem') this.#events.problem.fire(event.value);
    else this.#events.closed(event.value);
  }
}
