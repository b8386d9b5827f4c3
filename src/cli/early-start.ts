/**
 * The command line's head start: the first stdio servers a command connects are spawned as soon
 * as the config is resolved, and the host's modules load while they start. A server written for
 * Node spends tens of milliseconds starting up; this way that time overlaps the host's own instead
 * of following it. Each early transport reaches the host through its server's transport factory,
 * once: any later connect (a retry, the era fallback) builds a fresh one from the definition.
 */
import { McpHostError } from '../errors/mcp-host-error.js';
import type { HostServerDefinition } from '../host/server-definition.js';
import { silentLogger, type Logger } from '../internal/logger.js';
import { raceSignal } from '../internal/signals.js';
import type { JsonRpcMessage } from '../jsonrpc/message.js';
import type {
  Transport,
  TransportDiscards,
  TransportProblem,
  TransportState,
} from '../jsonrpc/transport.js';
import { createTransport } from '../transport/create-transport.js';
import { TransportEvents } from '../transport/transport-events.js';

export interface EarlyStart {
  /** The definitions to give the host: the early servers' with a factory that hands theirs over. */
  servers: HostServerDefinition[];
  /** Closes the early transports the host never took (idempotent; the host closes the others). */
  close(): Promise<void>;
}

/**
 * Starts the transports of those of the first `count` enabled servers that run over stdio (the
 * servers a command connecting `count` at a time connects first). Spawning is not awaited here: a spawn that fails
 * fails the connect that takes it over, with the same error as without a head start.
 */
export function startEarly(servers: readonly HostServerDefinition[], count: number): EarlyStart {
  const early: HeldTransport[] = [];
  let first = 0;
  const definitions = servers.map((server) => {
    if (server.enabled === false || first++ >= count) return server;
    const transport = server.transport;
    if (typeof transport === 'function' || transport.type !== 'stdio') return server;
    const options = { serverName: server.name, logger: server.client?.logger ?? silentLogger };
    const held = new HeldTransport(createTransport(transport, options), options);
    early.push(held);
    let handed = false;
    const factory = (): Transport | Promise<Transport> => {
      if (handed) return createTransport(transport, options);
      handed = true;
      return held;
    };
    return { ...server, transport: factory };
  });
  return {
    servers: definitions,
    close: async () => {
      await Promise.all(early.map((held) => held.closeIfUnclaimed()));
    },
  };
}

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
  readonly serverName: string;
  readonly #inner: Promise<Transport>;
  readonly #events: TransportEvents;
  #held: HeldEvent[] | undefined = [];
  #transport: Transport | undefined;
  #starting: Promise<void> | undefined;
  #claimed = false;

  readonly onMessage;
  readonly onProblem;
  readonly onClose;

  constructor(made: Promise<Transport>, options: { serverName: string; logger: Logger }) {
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
