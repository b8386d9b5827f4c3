import { aboutServer } from '../errors/mcp-host-error.js';
import type { Disposable } from '../internal/disposable.js';
import { Emitter } from '../internal/emitter.js';
import type { Logger } from '../internal/logger.js';
import { RateLimiter } from '../internal/rate-limiter.js';
import type { JsonRpcPeer } from '../jsonrpc/peer.js';
import { isObject } from '../protocol/guards.js';
import { McpMethod } from '../protocol/methods.js';
import {
  type LoggingMessageParams,
  type Prompt,
  type Resource,
  type Tool,
} from '../protocol/types.js';
import { ListWatcher } from './list-watcher.js';

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
  readonly log = new Emitter<LoggingMessageParams>();
  readonly resourceUpdated = new Emitter<{ uri: string }>();
  readonly #limiter = new RateLimiter(200, 500);
  readonly #logger: Logger;
  readonly #serverName: string | undefined;

  constructor(
    fetchers: ListFetchers,
    debounceMs: number,
    logger: Logger,
    serverName: string | undefined,
  ) {
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
    });
    this.resources = new ListWatcher({
      kind: 'resources',
      keyOf: (r) => r.uri,
      fetch: fetchers.resources,
      debounceMs,
      onError,
    });
    this.prompts = new ListWatcher({
      kind: 'prompts',
      keyOf: (p) => p.name,
      fetch: fetchers.prompts,
      debounceMs,
      onError,
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
          this.resourceUpdated.fire({ uri: params.uri });
      }),
      peer.setNotificationHandler(McpMethod.Message, (params) => {
        if (isObject(params) && typeof params.level === 'string' && this.#allow())
          this.log.fire(params as LoggingMessageParams);
      }),
    ];
  }

  close(): void {
    this.tools.close();
    this.resources.close();
    this.prompts.close();
    this.log.clear();
    this.resourceUpdated.clear();
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
