import { aboutServer } from '../errors/mcp-host-error.js';
import type { Disposable } from '../internal/disposable.js';
import type { Emitter } from '../internal/emitter.js';
import type { Logger } from '../internal/logger.js';
import { RateLimiter } from '../internal/rate-limiter.js';
import type { DiscardEvent } from '../jsonrpc/peer-options.js';
import type { JsonRpcPeer } from '../jsonrpc/peer.js';
import { isObject } from '../protocol/guards.js';
import { McpMethod } from '../protocol/methods.js';
import {
  type LoggingMessageParams,
  type Prompt,
  type Resource,
  type Tool,
} from '../protocol/types.js';
import { ListWatcher, type ListChange } from './list-watcher.js';

/**
 * The events a client offers (`onLogMessage`, `onToolsChanged`, ...): made with the client, so
 * that listeners subscribe before `connect()`, and fired by the session side's parts (these
 * events, `ConnectionStats`), made when the session's code has loaded.
 */
export interface ClientEmitters {
  readonly log: Emitter<LoggingMessageParams>;
  readonly resourceUpdated: Emitter<{ uri: string }>;
  readonly tools: Emitter<ListChange<Tool>>;
  readonly resources: Emitter<ListChange<Resource>>;
  readonly prompts: Emitter<ListChange<Prompt>>;
  readonly discarded: Emitter<DiscardEvent>;
}

/** How the events refetch lists after a list_changed notification. */
export interface ListFetchers {
  tools: () => Promise<Tool[]>;
  resources: () => Promise<Resource[]>;
  prompts: () => Promise<Prompt[]>;
}

/**
 * A server's notifications as events: list changes (debounced refetch and diff), resource
 * updates and log messages. Flood-safe: list changes coalesce, and updates and log messages pass a
 * per-server rate limit (what is dropped is counted and logged), so no notification storm grows
 * memory or floods listeners.
 */
export class ServerEvents {
  readonly tools: ListWatcher<Tool>;
  readonly resources: ListWatcher<Resource>;
  readonly prompts: ListWatcher<Prompt>;
  readonly #emitters: ClientEmitters;
  readonly #limiter = new RateLimiter(200, 500);
  readonly #logger: Logger;
  readonly #serverName: string | undefined;

  constructor(
    emitters: ClientEmitters,
    fetchers: ListFetchers,
    debounceMs: number,
    logger: Logger,
    serverName: string | undefined,
  ) {
    this.#emitters = emitters;
    this.#logger = logger;
    this.#serverName = serverName;
    const onError = (error: unknown): void =>
      logger.warn(aboutServer(serverName, 'refetch after list_changed failed'), {
        error: error instanceof Error ? error.message : String(error),
      });
    this.tools = new ListWatcher({
      kind: 'tools',
      keyOf: (t) => t.name,
      fetch: fetchers.tools,
      debounceMs,
      onError,
      emitter: emitters.tools,
    });
    this.resources = new ListWatcher({
      kind: 'resources',
      keyOf: (r) => r.uri,
      fetch: fetchers.resources,
      debounceMs,
      onError,
      emitter: emitters.resources,
    });
    this.prompts = new ListWatcher({
      kind: 'prompts',
      keyOf: (p) => p.name,
      fetch: fetchers.prompts,
      debounceMs,
      onError,
      emitter: emitters.prompts,
    });
  }

  /** Subscribes a peer's notifications to these events. */
  attach(peer: JsonRpcPeer): Disposable[] {
    return [
      peer.setNotificationHandler(McpMethod.ToolsListChanged, () => this.tools.notify()),
      peer.setNotificationHandler(McpMethod.ResourcesListChanged, () => this.resources.notify()),
      peer.setNotificationHandler(McpMethod.PromptsListChanged, () => this.prompts.notify()),
      peer.setNotificationHandler(McpMethod.ResourceUpdated, (params) => {
        if (isObject(params) && typeof params.uri === 'string' && this.#allow())
          this.#emitters.resourceUpdated.fire({ uri: params.uri });
      }),
      peer.setNotificationHandler(McpMethod.Message, (params) => {
        if (isObject(params) && typeof params.level === 'string' && this.#allow())
          this.#emitters.log.fire(params as LoggingMessageParams);
      }),
    ];
  }

  /** No more refetches (the client's close clears its emitters). */
  close(): void {
    this.tools.close();
    this.resources.close();
    this.prompts.close();
  }

  #allow(): boolean {
    const suppressed = this.#limiter.take();
    if (suppressed > 0)
      this.#logger.warn(
        aboutServer(this.#serverName, `dropped ${suppressed} notifications (flood)`),
      );
    return suppressed >= 0;
  }
}
