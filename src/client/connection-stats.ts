import type { Disposable } from '../internal/disposable.js';
import type { Emitter } from '../internal/emitter.js';
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
  readonly #discarded: Emitter<DiscardEvent>;
  /** What the peers before the current one counted. */
  #earlier: PeerStats | undefined;
  #peer: JsonRpcPeer | undefined;

  /** `discarded`: the client's `onDiscarded` emitter. */
  constructor(discarded: Emitter<DiscardEvent>) {
    this.#discarded = discarded;
  }

  /** Counts `peer` from now on, after the peers before it, and passes its discard reports on. */
  attach(peer: JsonRpcPeer): Disposable {
    if (this.#peer !== undefined && this.#peer !== peer)
      this.#earlier = sumOf(this.#earlier, this.#peer.stats);
    this.#peer = peer;
    return peer.onDiscarded((event) => this.#discarded.fire(event));
  }

  /** Every counter, summed over the client's connections (all zero before the first). */
  get stats(): PeerStats {
    const current = this.#peer?.stats ?? ZERO_STATS;
    return this.#earlier === undefined ? current : sumOf(this.#earlier, current);
  }
}

const ZERO_STATS: Readonly<PeerStats> = Object.freeze(zeroPeerStats());

function sumOf(a: PeerStats | undefined, b: PeerStats): PeerStats {
  const sum = { ...b };
  if (a === undefined) return sum;
  for (const key of Object.keys(ZERO_STATS) as (keyof PeerStats)[]) sum[key] += a[key];
  return sum;
}
