import { aboutServer } from '../errors/mcp-host-error.js';
import type { Disposable } from '../internal/disposable.js';
import { Emitter } from '../internal/emitter.js';
import type { Logger } from '../internal/logger.js';
import type { JsonRpcPeer } from '../jsonrpc/peer.js';
import { zeroPeerStats, type DiscardEvent, type PeerStats } from '../jsonrpc/peer-options.js';

/**
 * A client's counters and discard reports over every connection it opened: the peer of a legacy
 * server started again after a failed era probe adds to what the first one counted. The counters
 * are read from the peers (and their transports) when asked, so counting costs the hot path
 * nothing here.
 */
export class ConnectionStats {
  /** Fires for what a peer of this client threw away (see `JsonRpcPeer.onDiscarded`). */
  readonly discarded: Emitter<DiscardEvent>;
  /** What the peers before the current one counted. */
  #earlier: PeerStats | undefined;
  #peer: JsonRpcPeer | undefined;

  constructor(logger: Logger, serverName: string | undefined) {
    this.discarded = new Emitter((error) =>
      logger.warn(aboutServer(serverName, 'an onDiscarded listener threw'), {
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }

  /** Counts `peer` from now on, after the peers before it, and passes its discard reports on. */
  attach(peer: JsonRpcPeer): Disposable {
    if (this.#peer !== undefined && this.#peer !== peer)
      this.#earlier = sumOf(this.#earlier, this.#peer.stats);
    this.#peer = peer;
    return peer.onDiscarded((event) => this.discarded.fire(event));
  }

  /** Every counter, summed over the client's connections (all zero before the first). */
  get stats(): PeerStats {
    const current = this.#peer?.stats ?? ZERO_STATS;
    return this.#earlier === undefined ? current : sumOf(this.#earlier, current);
  }

  /** No more reports: the client is closing. */
  close(): void {
    this.discarded.clear();
  }
}

const ZERO_STATS: Readonly<PeerStats> = Object.freeze(zeroPeerStats());

function sumOf(a: PeerStats | undefined, b: PeerStats): PeerStats {
  const sum = { ...b };
  if (a === undefined) return sum;
  for (const key of Object.keys(ZERO_STATS) as (keyof PeerStats)[]) sum[key] += a[key];
  return sum;
}
