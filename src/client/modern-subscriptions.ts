import { McpHostError } from '../errors/mcp-host-error.js';
import type { Logger } from '../internal/logger.js';
import type { JsonObject } from '../jsonrpc/message.js';
import type { ServerCapabilities } from '../protocol/types.js';

/** Opens one `subscriptions/listen` request with this filter; settles when the stream ends. */
export type OpenListen = (filter: JsonObject, signal: AbortSignal) => Promise<unknown>;

/** Consecutive failed attempts before the listen stream is given up (until the next change). */
const MAX_REOPEN_ATTEMPTS = 5;
const REOPEN_BASE_DELAY_MS = 250;
const REOPEN_MAX_DELAY_MS = 10_000;

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
  readonly #where: string;
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
    this.#where = serverName === undefined ? '' : `server '${serverName}': `;
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
        `${this.#where}the server does not support resource subscriptions`,
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
    this.#current?.abort(new McpHostError('CONNECTION_CLOSED', `${this.#where}the client closed`));
    this.#current = undefined;
  }

  #replace(): void {
    if (this.#closed) return;
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#current?.abort(new McpHostError('ABORTED', `${this.#where}subscriptions changed`));
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
        `${this.#where}subscriptions/listen failed ${MAX_REOPEN_ATTEMPTS} times; giving up until subscriptions change`,
        { error: message },
      );
      return;
    }
    const delayMs = Math.min(REOPEN_MAX_DELAY_MS, REOPEN_BASE_DELAY_MS * 2 ** (this.#failures - 1));
    this.#logger.info(`${this.#where}subscriptions/listen dropped; reopening in ${delayMs} ms`, {
      error: message,
    });
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#listen();
    }, delayMs);
  }
}
