import { aboutServer, McpHostError } from '../errors/mcp-host-error.js';
import { backoffDelay } from '../internal/backoff.js';
import type { Logger } from '../internal/logger.js';
import type { JsonObject } from '../jsonrpc/message.js';
import type { ServerCapabilities } from '../protocol/types.js';

/** Opens one `subscriptions/listen` request with this filter; settles when the stream ends. */
export type OpenListen = (filter: JsonObject, signal: AbortSignal) => Promise<unknown>;

/** Consecutive failed attempts before the listen stream is given up (until the next change). */
const MAX_REOPEN_ATTEMPTS = 5;
/** The wait before each reopening: 250 ms, doubling, at most 10 s. */
const REOPEN_BACKOFF = { baseDelayMs: 250, maxDelayMs: 10_000, jitter: 'none' } as const;

/**
 * Modern era: the client's one `subscriptions/listen` stream. Its filter asks for the list changes
 * the server advertises and the resources the caller subscribed to; changing the subscriptions
 * replaces the stream (the old one is cancelled), and a stream that drops is opened again with
 * capped exponential backoff. Notifications arriving on it reach the client's ordinary handlers.
 */
export class ModernSubscriptions {
  readonly #open: OpenListen;
  readonly #capabilities: ServerCapabilities;
  readonly #logger: Logger;
  readonly #serverName: string | undefined;
  readonly #uris = new Set<string>();
  #current: AbortController | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #failures = 0;
  #closed = false;

  constructor(
    open: OpenListen,
    capabilities: ServerCapabilities,
    logger: Logger,
    serverName: string | undefined,
  ) {
    this.#open = open;
    this.#capabilities = capabilities;
    this.#logger = logger;
    this.#serverName = serverName;
  }

  /** The filter the stream asks for now. */
  filter(): JsonObject {
    const caps = this.#capabilities;
    const filter: JsonObject = {};
    if (caps.tools?.listChanged === true) filter.toolsListChanged = true;
    if (caps.resources?.listChanged === true) filter.resourcesListChanged = true;
    if (caps.prompts?.listChanged === true) filter.promptsListChanged = true;
    if (this.#uris.size > 0) filter.resourceSubscriptions = [...this.#uris];
    return filter;
  }

  /** Opens the stream if there is anything to listen for. */
  start(): void {
    this.#replace();
  }

  subscribe(uri: string): void {
    if (this.#capabilities.resources?.subscribe !== true) {
      throw new McpHostError(
        'CAPABILITY_NOT_SUPPORTED',
        'the server does not support resource subscriptions',
        { serverName: this.#serverName },
      );
    }
    if (this.#uris.has(uri)) return;
    this.#uris.add(uri);
    this.#replace();
  }

  unsubscribe(uri: string): void {
    if (this.#uris.delete(uri)) this.#replace();
  }

  close(): void {
    this.#closed = true;
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#current?.abort(
      new McpHostError('CONNECTION_CLOSED', 'the client closed', { serverName: this.#serverName }),
    );
    this.#current = undefined;
  }

  #replace(): void {
    if (this.#closed) return;
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#current?.abort(
      new McpHostError('ABORTED', 'subscriptions changed', { serverName: this.#serverName }),
    );
    this.#current = undefined;
    this.#failures = 0;
    this.#listen();
  }

  #listen(): void {
    const filter = this.filter();
    if (Object.keys(filter).length === 0) return;
    const controller = new AbortController();
    this.#current = controller;
    this.#open(filter, controller.signal).then(
      () => {
        // The server ended the stream gracefully (shutting down): nothing to reopen.
        if (this.#current === controller) this.#current = undefined;
      },
      (error: unknown) => {
        if (this.#current !== controller || this.#closed || controller.signal.aborted) return;
        this.#current = undefined;
        this.#scheduleReopen(error);
      },
    );
  }

  #scheduleReopen(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    if (
      error instanceof McpHostError &&
      (error.code === 'CONNECTION_CLOSED' || error.code === 'PROCESS_EXITED')
    )
      return;
    if (++this.#failures > MAX_REOPEN_ATTEMPTS) {
      this.#logger.warn(
        aboutServer(
          this.#serverName,
          `subscriptions/listen failed ${MAX_REOPEN_ATTEMPTS} times; giving up until subscriptions change`,
        ),
        { error: message },
      );
      return;
    }
    const delayMs = backoffDelay(this.#failures, REOPEN_BACKOFF);
    this.#logger.info(
      aboutServer(this.#serverName, `subscriptions/listen dropped; reopening in ${delayMs} ms`),
      {
        error: message,
      },
    );
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#listen();
    }, delayMs);
  }
}
