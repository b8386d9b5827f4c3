import { JsonRpcError, JsonRpcErrorCode } from '../errors/json-rpc-error.js';
import { toMcpHostError } from '../errors/to-mcp-host-error.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { isObject } from '../protocol/guards.js';
import { McpMethod, MetaKey } from '../protocol/methods.js';
import type { CompletionReference } from '../protocol/types.js';
import type { CallClient } from './bridged-call.js';
import { toRequestError } from './gateway-errors.js';
import { isLoggingLevel, type GatewayLogging } from './gateway-logging.js';
import type { GatewaySource } from './gateway-source.js';
import type { ResourceSubscriber, ResourceSubscriptions } from './resource-subscriptions.js';

/** The most resource URIs one `subscriptions/listen` stream subscribes to. */
const MAX_LISTEN_RESOURCES = 256;

/** What one connection's methods need of their session and gateway. */
export interface SessionMethodsInit {
  source: GatewaySource;
  logging: GatewayLogging;
  subscriptions: ResourceSubscriptions;
  /** Sends a notification to this connection's client (dropped once it is closed). */
  notify(method: string, params: JsonObject): void;
}

/**
 * One connection's `completion/complete`, `logging/setLevel` and `resources/subscribe` /
 * `unsubscribe`: each request checked, routed through the gateway's source, and what it leaves
 * behind (a level wanted, subscriptions) undone when the connection ends (`close`).
 */
export class SessionMethods {
  readonly #init: SessionMethodsInit;
  /** This connection's resource updates: one subscriber for all its URIs. */
  readonly #subscriber: ResourceSubscriber;
  #legacyClient: CallClient | undefined;
  #closed = false;

  constructor(init: SessionMethodsInit) {
    this.#init = init;
    this.#subscriber = (uri) => init.notify(McpMethod.ResourceUpdated, { uri });
  }

  /**
   * `completion/complete`, routed by its reference (a prompt's exposed name, a resource template's
   * URI template). A server without completions gives no values; an unknown reference is -32602.
   */
  async complete(
    params: unknown,
    signal: AbortSignal,
    era: 'legacy' | 'modern',
  ): Promise<JsonObject> {
    const { ref, argument, context } = completeParams(params);
    try {
      return await this.#init.source.complete(ref, argument, context, { signal });
    } catch (error) {
      if (toMcpHostError(error).code === 'CAPABILITY_NOT_SUPPORTED')
        return { completion: { values: [] } };
      throw toRequestError(error, 'prompt', era);
    }
  }

  /** `logging/setLevel` of a legacy session: its messages from now on, at that level or above. */
  async setLevel(params: unknown, client: CallClient): Promise<JsonObject> {
    const level = isObject(params) ? params.level : undefined;
    if (!isLoggingLevel(level))
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        "'logging/setLevel' needs a level (debug, info, notice, warning, error, critical, alert or emergency)",
      );
    if (this.#closed) return {};
    this.#legacyClient = client;
    await this.#init.logging.want(client, level);
    return {};
  }

  /**
   * The log level a modern request asks for in its `_meta` (none: no messages for it), wanted
   * for `client` until the returned function is called. -32602 for a level that is not one.
   */
  async wantModern(params: JsonObject, client: CallClient): Promise<() => void> {
    const level = isObject(params._meta) ? params._meta[MetaKey.LogLevel] : undefined;
    if (level === undefined) return () => {};
    if (!isLoggingLevel(level))
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        `the request's _meta '${MetaKey.LogLevel}' is not a log level`,
      );
    await this.#init.logging.want(client, level);
    return () => this.#init.logging.release(client);
  }

  /** `resources/subscribe`: the URI's updates to this connection (one upstream subscription). */
  async subscribe(params: unknown, signal: AbortSignal): Promise<JsonObject> {
    const uri = uriOf(params, McpMethod.ResourcesSubscribe);
    try {
      await this.#init.subscriptions.subscribe(uri, this.#subscriber, signal);
    } catch (error) {
      throw toRequestError(error, 'resource', 'legacy');
    }
    // The connection ended while the server subscribed: nobody is left to tell.
    if (this.#closed) this.#init.subscriptions.drop(this.#subscriber);
    return {};
  }

  /** `resources/unsubscribe`: no more updates of that URI to this connection. */
  async unsubscribe(params: unknown): Promise<JsonObject> {
    const uri = uriOf(params, McpMethod.ResourcesUnsubscribe);
    try {
      await this.#init.subscriptions.unsubscribe(uri, this.#subscriber);
    } catch (error) {
      throw toRequestError(error, 'resource', 'legacy');
    }
    return {};
  }

  /**
   * The `resourceSubscriptions` of a modern `subscriptions/listen` (at most
   * MAX_LISTEN_RESOURCES): each URI subscribed as `resources/subscribe` does, its updates sent
   * with the stream's `_meta`. Resolves with the URIs subscribed (one that no server serves is
   * left out) and the function that ends them, when the stream ends.
   */
  async listenResources(
    asked: unknown,
    meta: JsonObject,
    signal: AbortSignal,
  ): Promise<{ uris: string[]; end: () => void }> {
    const wanted = Array.isArray(asked)
      ? [...new Set(asked.filter((uri): uri is string => typeof uri === 'string'))].slice(
          0,
          MAX_LISTEN_RESOURCES,
        )
      : [];
    const subscriber: ResourceSubscriber = (uri) =>
      this.#init.notify(McpMethod.ResourceUpdated, { uri, _meta: meta });
    const subscriptions = this.#init.subscriptions;
    const results = await Promise.allSettled(
      wanted.map((uri) => subscriptions.subscribe(uri, subscriber, signal)),
    );
    const uris = wanted.filter((_, index) => results[index]?.status === 'fulfilled');
    return { uris, end: () => subscriptions.drop(subscriber) };
  }

  /** The connection ended: its level and subscriptions go. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#legacyClient !== undefined) this.#init.logging.release(this.#legacyClient);
    this.#init.subscriptions.drop(this.#subscriber);
  }
}

function uriOf(params: unknown, method: string): string {
  if (!isObject(params) || typeof params.uri !== 'string')
    throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, `'${method}' needs a uri`);
  return params.uri;
}

function completeParams(params: unknown): {
  ref: CompletionReference;
  argument: { name: string; value: string };
  context: { arguments?: Record<string, string> };
} {
  const invalid = (what: string) =>
    new JsonRpcError(JsonRpcErrorCode.InvalidParams, `'completion/complete' needs ${what}`);
  if (!isObject(params)) throw invalid('params');
  const { ref, argument, context } = params;
  let checked: CompletionReference;
  if (isObject(ref) && ref.type === 'ref/prompt' && typeof ref.name === 'string')
    checked = { type: 'ref/prompt', name: ref.name };
  else if (isObject(ref) && ref.type === 'ref/resource' && typeof ref.uri === 'string')
    checked = { type: 'ref/resource', uri: ref.uri };
  else throw invalid("a ref ('ref/prompt' with a name, or 'ref/resource' with a uri)");
  if (
    !isObject(argument) ||
    typeof argument.name !== 'string' ||
    typeof argument.value !== 'string'
  )
    throw invalid('an argument with a name and a value (strings)');
  const args = isObject(context) ? context.arguments : undefined;
  if (
    args !== undefined &&
    !(isObject(args) && Object.values(args).every((v) => typeof v === 'string'))
  )
    throw invalid('context.arguments as an object of strings');
  return {
    ref: checked,
    argument: { name: argument.name, value: argument.value },
    context: args === undefined ? {} : { arguments: args as Record<string, string> },
  };
}
