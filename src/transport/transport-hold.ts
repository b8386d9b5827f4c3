/**
 * The first half of a head start: a transport made and started before anyone listens, with what it
 * delivers meanwhile kept. `HeldTransport` is the other half, the handover to its taker; it loads
 * with the session's code, so the part that must run before a server's spawn stays this small.
 */
import type { McpHostError } from '../errors/mcp-host-error.js';
import type { Transport, TransportProblem } from '../jsonrpc/transport.js';

/** Where a hold's events go once it is handed over. */
export interface HoldListener {
  message(value: unknown): void;
  problem(value: TransportProblem): void;
  close(value: McpHostError | undefined): void;
}

type HeldEvent =
  | { kind: 'message'; value: unknown }
  | { kind: 'problem'; value: TransportProblem }
  | { kind: 'close'; value: McpHostError | undefined };

/**
 * Subscribes to the transport `made` gives as soon as it is made, then starts it. Its messages,
 * problems and close are kept, in order, until `release` hands them (and every later one) over.
 */
export class TransportHold {
  /** Settles once the transport is made and its `start()` called, or making it failed. */
  readonly launched: Promise<void>;
  /** The transport, started; rejects as making or starting it did. */
  readonly started: Promise<Transport>;
  #transport: Transport | undefined;
  /** What arrived before the handover (empty after it). */
  readonly #held: HeldEvent[] = [];
  #listener: HoldListener | undefined;

  constructor(made: Promise<Transport>) {
    this.started = made.then(async (transport) => {
      this.#transport = transport;
      // Per message: after the handover, passed straight on (no held event made).
      transport.onMessage((value) => {
        if (this.#listener !== undefined) this.#listener.message(value);
        else this.#held.push({ kind: 'message', value });
      });
      transport.onProblem((value) => this.#deliver({ kind: 'problem', value }));
      transport.onClose((value) => this.#deliver({ kind: 'close', value }));
      await transport.start();
      return transport;
    });
    // A failure is the taker's to see; one never taken is dropped with the hold.
    this.started.catch(() => {});
    // Registered after the start above: runs once start() has been called.
    this.launched = made.then(
      () => {},
      () => {},
    );
  }

  /** The transport, once made. */
  get transport(): Transport | undefined {
    return this.#transport;
  }

  /** Whether the events are still kept (not released). */
  get holding(): boolean {
    return this.#listener === undefined;
  }

  /** Gives what was kept to `listener`, in order, and from then on every event as it comes. */
  release(listener: HoldListener): void {
    const held = this.#held.splice(0);
    this.#listener = listener;
    for (const event of held) deliverTo(listener, event);
  }

  /** Closes the transport (once made; a transport that failed to start is closed too). */
  async close(): Promise<void> {
    const transport = await this.started.catch(() => this.#transport);
    await transport?.close();
  }

  #deliver(event: HeldEvent): void {
    if (this.#listener !== undefined) deliverTo(this.#listener, event);
    else this.#held.push(event);
  }
}

function deliverTo(listener: HoldListener, event: HeldEvent): void {
  if (event.kind === 'message') listener.message(event.value);
  else if (event.kind === 'problem') listener.problem(event.value);
  else listener.close(event.value);
}
