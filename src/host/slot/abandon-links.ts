import type { McpClient } from '../../client/mcp-client.js';
import { AbortFanout } from '../../internal/abort-fanout.js';

interface Connection {
  controller: AbortController;
  signal: AbortSignal;
  calls: Set<AbortController>;
  /** The link of every call without a signal of its own (one object, shared). */
  shared: CallLink;
}

/** A call's signal, and how to stop linking it. */
export interface CallLink {
  readonly signal: AbortSignal | undefined;
  unlink(): void;
}

const unlinkNothing = (): void => {};

/**
 * Per connection, a signal aborted when the host gives up on it (a wedge, or a close while it
 * connects), linked into its calls so that they fail then, not when the process is finally gone:
 * the connection's signal is given to calls without one of their own, and calls with one get a
 * signal of their own, aborted by either.
 */
export class AbandonLinks {
  readonly #connections = new WeakMap<McpClient, Connection>();
  readonly #callerAborts = new AbortFanout<AbortController>((call, signal) =>
    call.abort(signal.reason),
  );

  /** Starts tracking `client`; returns the signal its connect should be given. */
  register(client: McpClient): AbortSignal {
    const controller = new AbortController();
    const signal = controller.signal;
    const shared = { signal, unlink: unlinkNothing };
    this.#connections.set(client, { controller, signal, calls: new Set(), shared });
    return signal;
  }

  /**
   * A call's signal that also aborts when `client` is abandoned: without a caller's signal, the
   * connection's own (shared: one listener in the peer however many calls); with one, a signal
   * of the call's own, aborted by either (one listener per caller's signal).
   */
  link(client: McpClient, signal: AbortSignal | undefined): CallLink {
    const connection = this.#connections.get(client);
    if (connection === undefined) return { signal, unlink: unlinkNothing };
    if (signal === undefined) return connection.shared;
    const call = new AbortController();
    if (signal.aborted) call.abort(signal.reason);
    else this.#callerAborts.add(signal, call);
    connection.calls.add(call);
    return {
      signal: call.signal,
      unlink: () => {
        this.#callerAborts.delete(signal, call);
        connection.calls.delete(call);
      },
    };
  }

  /** Gives up a connect under way: its connect (and calls using its signal) abort. */
  abortConnect(client: McpClient, reason: unknown): void {
    this.#connections.get(client)?.controller.abort(reason);
  }

  /** Gives up `client`: every call on it aborts with `reason`. */
  abandon(client: McpClient, reason: unknown): void {
    const connection = this.#connections.get(client);
    connection?.controller.abort(reason);
    for (const call of connection?.calls ?? []) call.abort(reason);
  }
}
