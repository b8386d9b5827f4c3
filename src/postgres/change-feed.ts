/**
 * The PostgreSQL state store's one listening connection: `LISTEN` on the store's channel, each
 * notification handed to `onNotification`. When the connection drops (server restart, a killed
 * backend, a network break) it reconnects with backoff (100 ms doubling to 5 s, for as long as the
 * store is open) and then calls `onReconnected`: notifications sent while it was away are lost,
 * so the store re-announces what may have changed.
 */
import pg from 'pg';
import { backoffDelay } from '../internal/backoff.js';
import type { Logger } from '../internal/logger.js';
import { quoteIdentifier } from './migrations.js';
import { toStoreError, type PostgresTarget } from './postgres-target.js';

export interface ChangeFeedOptions {
  config: pg.ClientConfig;
  channel: string;
  target: PostgresTarget;
  logger: Logger;
  onNotification: (payload: string) => void;
  onReconnected: () => void;
}

const RECONNECT_BACKOFF = { baseDelayMs: 100, maxDelayMs: 5_000, jitter: 'equal' } as const;

export class ChangeFeed {
  readonly #options: ChangeFeedOptions;
  #client: pg.Client | undefined;
  #timer: NodeJS.Timeout | undefined;
  #attempt = 0;
  #closed = false;

  constructor(options: ChangeFeedOptions) {
    this.#options = options;
  }

  /** Connects and listens; fails (typed) when the first connection cannot be made. */
  async start(): Promise<void> {
    await this.#connect();
  }

  async #connect(): Promise<void> {
    const client = new pg.Client(this.#options.config);
    // Only the connection in use counts as lost: a failure while connecting is handled below.
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    client.on('notification', (message) => {
      if (message.channel === this.#options.channel && message.payload !== undefined)
        this.#options.onNotification(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${quoteIdentifier(this.#options.channel)}`);
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
      throw toStoreError(this.#options.target, 'listen', error);
    }
    if (this.#closed) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
      return;
    }
    this.#client = client;
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client || this.#closed) return;
    this.#client = undefined;
    client.removeAllListeners('end');
    void client.end().catch(() => {});
    this.#options.logger.warn(
      `${this.#options.target.where}: the listening connection dropped; reconnecting`,
    );
    this.#schedule();
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#attempt++;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#connect().then(
          () => {
            if (this.#closed) return;
            this.#attempt = 0;
            this.#options.logger.info(`${this.#options.target.where}: listening again`);
            this.#options.onReconnected();
          },
          () => this.#schedule(),
        );
      },
      backoffDelay(this.#attempt, RECONNECT_BACKOFF),
    );
    this.#timer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    if (client !== undefined) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
    }
  }
}
