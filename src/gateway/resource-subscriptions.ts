import { toMcpHostError } from '../errors/to-mcp-host-error.js';
import type { Disposable } from '../internal/disposable.js';
import type { Logger } from '../internal/logger.js';
import type { GatewaySource } from './gateway-source.js';

/** Told of each update of a URI it subscribed to. */
export type ResourceSubscriber = (uri: string) => void;

/** One URI subscribed upstream: the server it was subscribed on, and who wants its updates. */
interface Upstream {
  server: string;
  subscribers: Set<ResourceSubscriber>;
}

/**
 * The resource subscriptions of a gateway's clients over one source, refcounted: the first client
 * to subscribe to a URI subscribes upstream (on the server owning it), the last to leave
 * unsubscribes there; `notifications/resources/updated` of that server for that URI reaches every
 * client subscribed. Operations on one URI run one after the other, so an upstream subscription
 * never outlives (or misses) its last subscriber.
 */
export class ResourceSubscriptions {
  readonly #source: GatewaySource;
  readonly #logger: Logger;
  readonly #uris = new Map<string, Upstream>();
  /** Per URI, the last operation queued (each waits for the one before). */
  readonly #queues = new Map<string, Promise<unknown>>();
  readonly #updates: Disposable;

  constructor(source: GatewaySource, logger: Logger) {
    this.#source = source;
    this.#logger = logger;
    this.#updates = source.onResourceUpdated(({ server, uri }) => {
      const upstream = this.#uris.get(uri);
      if (upstream?.server !== server) return;
      for (const subscriber of [...upstream.subscribers]) subscriber(uri);
    });
  }

  /** URIs subscribed upstream now. */
  get size(): number {
    return this.#uris.size;
  }

  /** Adds `subscriber` to `uri`'s updates (subscribing upstream first when it is the first). */
  subscribe(uri: string, subscriber: ResourceSubscriber, signal?: AbortSignal): Promise<void> {
    return this.#queue(uri, async () => {
      const known = this.#uris.get(uri);
      if (known !== undefined) {
        known.subscribers.add(subscriber);
        return;
      }
      const server = await this.#source.subscribeResource(uri, { signal });
      this.#uris.set(uri, { server, subscribers: new Set([subscriber]) });
    });
  }

  /** Removes `subscriber` from `uri` (unsubscribing upstream when it was the last). */
  unsubscribe(uri: string, subscriber: ResourceSubscriber): Promise<void> {
    return this.#queue(uri, async () => {
      const upstream = this.#uris.get(uri);
      if (upstream === undefined || !upstream.subscribers.delete(subscriber)) return;
      if (upstream.subscribers.size > 0) return;
      this.#uris.delete(uri);
      await this.#source.unsubscribeResource(uri, { server: upstream.server });
    });
  }

  /** Removes `subscriber` from every URI (its connection ended); upstream failures are logged. */
  drop(subscriber: ResourceSubscriber): void {
    for (const [uri, upstream] of this.#uris)
      if (upstream.subscribers.has(subscriber))
        this.unsubscribe(uri, subscriber).catch((error: unknown) =>
          this.#logger.debug(`gateway: could not unsubscribe from '${uri}'`, {
            error: toMcpHostError(error).message,
          }),
        );
  }

  /** Stops passing updates on (the gateway closed); upstream subscriptions are left to the host. */
  close(): void {
    this.#updates.dispose();
  }

  #queue(uri: string, operation: () => Promise<void>): Promise<void> {
    const previous = this.#queues.get(uri) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(operation);
    const settled = next.catch(() => {});
    this.#queues.set(uri, settled);
    void settled.then(() => {
      if (this.#queues.get(uri) === settled) this.#queues.delete(uri);
    });
    return next;
  }
}
