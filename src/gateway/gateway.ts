import { McpHostError } from '../errors/mcp-host-error.js';
import { toMcpHostError } from '../errors/to-mcp-host-error.js';
import type { Disposable } from '../internal/disposable.js';
import { silentLogger, type Logger } from '../internal/logger.js';
import type { Telemetry } from '../internal/telemetry.js';
import type { Transport } from '../jsonrpc/transport.js';
import type { McpHost } from '../host/mcp-host.js';
import type { ViewOptions } from '../host/views/view-access.js';
import { headerAnnotations } from '../protocol/http-headers.js';
import type { Implementation } from '../protocol/types.js';
import type { BridgedCall } from './bridged-call.js';
import { GatewayLogging } from './gateway-logging.js';
import { GatewaySession } from './gateway-session.js';
import { gatewaySource, type GatewaySource } from './gateway-source.js';
import { GatewayTasks } from './tasks/gateway-tasks.js';
import {
  listenGateway,
  type GatewayListener,
  type GatewayListenOptions,
} from './http/gateway-listener.js';
import { toReplicaId } from './http/replica-id.js';
import { PendingInputStore, type PendingInputOptions } from './pending-input.js';
import { ResourceSubscriptions } from './resource-subscriptions.js';
import { startCallbackServer, type CallbackServer } from './login/callback-server.js';
import { UpstreamLogins } from './login/upstream-logins.js';
import { PerClientHosts, type PerClientOptions } from './per-client-hosts.js';
import { principalSource } from './principal-source.js';
import type { ServerInputBridge } from './server-input-bridge.js';

/** Options of `createGateway`. */
export interface GatewayOptions {
  /** The host whose servers the gateway serves; the caller starts it and closes it. */
  host: McpHost;
  /**
   * Serve only one view of the host: a named view (`McpHostOptions.views`, the config's `views:`;
   * `INVALID_ARGUMENT` naming it when there is none) or view options. Default: the whole host.
   */
  view?: string | ViewOptions;
  /** The `serverInfo` the gateway's clients see (default `{ name: 'mcp-host', version }`). */
  serverInfo?: Implementation;
  /** The `instructions` the gateway's clients see in the `initialize` result (default none). */
  instructions?: string;
  /** Items per page of `tools/list`, `resources/list`, `resources/templates/list`, `prompts/list`. */
  pageSize?: number;
  /**
   * Carries what the host's legacy servers ask (sampling, elicitation, roots) to the gateway
   * client whose call it is (see `createServerInputBridge`); its `handlers` answer what no client
   * can. Without it a legacy server's requests are answered by the host's own handlers, if any;
   * modern servers' `input_required` rounds reach the call's client either way.
   */
  bridge?: ServerInputBridge;
  /**
   * Bounds on the calls of modern clients waiting for their retry after `input_required`:
   * `maxPending` (default 256) at once, each `ttlMs` (default 10 minutes) at most.
   */
  pendingInput?: PendingInputOptions;
  /**
   * Servers whose upstream credentials are each named client's own (HTTP servers with `oauth`):
   * each client of the gateway (`listen({ clients })`, or `serve(transport, { principal })`) gets
   * its own connection to each, with its own token store, made on its first connection and closed
   * with the gateway. A client without a login that declared URL-mode elicitation is sent to log
   * in (the gateway runs the OAuth flow, its callback at `/oauth/callback` of its HTTP listener),
   * and its call goes on once logged in; another gets a tool error naming `mcp-host auth login`. A
   * connection with no named client does not see these servers. Default: none (every server is
   * shared, as the host has it).
   */
  perClient?: PerClientOptions;
  /**
   * Which replica of a fleet this gateway is (1 to 128 letters, digits, `.`, `_`, `:` or `-`):
   * sent as the `mcp-host-replica` header on every HTTP response, as the `replica` label of
   * `mcp_host_gateway_replica_info` in `/metrics`, and, when given, as `mcp_host.replica.id` on
   * the SERVER spans of `telemetry` (over `openTelemetry({ replicaId })`). Default
   * `<hostname>-<pid>` (not put on spans).
   */
  replicaId?: string;
  logger?: Logger;
  /**
   * Reports each client request served as a SERVER span, continuing the trace named by the
   * request's `_meta` (`traceparent`, `tracestate`), its backend requests the span's children
   * (they are the host's clients' spans: give the host the same `telemetry`). E.g.
   * `openTelemetry()` from `mcp-host/otel`; default none. See docs/observability.md.
   */
  telemetry?: Telemetry;
}

/** The defaults of `GatewayOptions`. */
export const DEFAULT_GATEWAY_OPTIONS = Object.freeze({
  serverInfo: Object.freeze({ name: 'mcp-host', version: '0.1.0' }),
  pageSize: 500,
});

/**
 * A host's servers as one MCP server: the host's aggregated, filtered and namespaced tools,
 * resources and prompts (or one view's), served to each client over its own transport, in the
 * legacy era (2024-11-05 to 2025-11-25) and the modern one (2026-07-28) at once, what the servers
 * ask during a call bridged to the call's client in its era's form. Made by `createGateway`. The gateway holds no server
 * connection of its own: the host's are shared by every client. `close()` ends every connection
 * it serves; the host stays open (whoever made it closes it).
 */
export class Gateway implements AsyncDisposable {
  readonly #source: GatewaySource;
  readonly #options: GatewayOptions;
  readonly #sessions = new Set<GatewaySession>();
  /** The sources of the named views served so far (`serve(transport, { view })`). */
  readonly #viewSources = new Map<string, GatewaySource>();
  /** The sources of each named client, per view ('' for the gateway's own). */
  readonly #principalSources = new Map<string, Promise<GatewaySource>>();
  readonly #perClient: PerClientHosts | undefined;
  /** The per-client servers' logins the gateway runs (with `perClient`). */
  readonly #logins: UpstreamLogins | undefined;
  /** The logins' callback on a loopback port, when a named client is served before any listener. */
  #callbackServer: Promise<CallbackServer | undefined> | undefined;
  readonly #listeners = new Set<GatewayListener>();
  readonly #calls = new Set<BridgedCall>();
  /** Per source served: its log routing and its refcounted resource subscriptions. */
  readonly #shared = new Map<
    GatewaySource,
    { logging: GatewayLogging; subscriptions: ResourceSubscriptions }
  >();
  readonly #pending: PendingInputStore<BridgedCall>;
  /** The tasks created through the gateway, routed to their backends, per client. */
  readonly #tasks = new GatewayTasks();
  readonly #attached: Disposable | undefined;
  #closing: Promise<void> | undefined;

  /** Which replica of a fleet this gateway is (`GatewayOptions.replicaId`, or `<hostname>-<pid>`). */
  readonly replicaId: string;

  /** @internal Made by `createGateway`. */
  constructor(options: GatewayOptions) {
    this.replicaId = toReplicaId(options.replicaId);
    const pageSize = options.pageSize ?? DEFAULT_GATEWAY_OPTIONS.pageSize;
    if (!Number.isSafeInteger(pageSize) || pageSize < 1)
      throw new McpHostError('INVALID_ARGUMENT', `pageSize must be a whole number of 1 or more`, {
        details: { pageSize },
      });
    this.#options = options;
    this.#pending = new PendingInputStore(options.pendingInput);
    this.#source = gatewaySource(
      options.host,
      options.view === undefined ? undefined : options.host.view(options.view),
    );
    this.#logins = options.perClient === undefined ? undefined : new UpstreamLogins();
    this.#perClient =
      options.perClient === undefined
        ? undefined
        : new PerClientHosts(options.perClient, options.host, () => this.#logins?.redirectUri);
    this.#attached = options.bridge?.attach(this.#calls);
  }

  /** Clients being served now. */
  get connectionCount(): number {
    return this.#sessions.size;
  }

  /**
   * Serves one client over `transport` (started here; for stdio, a `StdioServerTransport` on this
   * process's stdin and stdout) until the connection ends: the client went away, `signal` aborted,
   * or the gateway closed. Resolves then; rejects if the transport cannot start, or with
   * `CONNECTION_CLOSED` when the gateway is closed already. The gateway owns the transport from
   * here on and closes it. `view` serves one of the host's named views to this client instead of
   * the gateway's own (`INVALID_ARGUMENT` when the host has none of that name). `principal` names
   * the client (as `listen({ clients })` does): with `perClient`, it is served its own connections
   * to the per-client servers besides the shared ones.
   */
  async serve(
    transport: Transport,
    options: { signal?: AbortSignal; view?: string; principal?: string } = {},
  ): Promise<void> {
    if (this.#closing !== undefined) {
      await transport.close();
      throw new McpHostError('CONNECTION_CLOSED', 'the gateway is closed');
    }
    let source: GatewaySource;
    try {
      source = options.view === undefined ? this.#source : this.#viewSource(options.view);
      if (options.principal !== undefined && this.#perClient !== undefined)
        source = await this.#principalSource(options.principal, options.view, source).catch(
          (error: unknown) => {
            (this.#options.logger ?? silentLogger).warn(
              `gateway: the client '${options.principal}' cannot be served`,
              { error: toMcpHostError(error).message },
            );
            throw error;
          },
        );
    } catch (error) {
      await transport.close();
      throw error;
    }
    const session = new GatewaySession(transport, {
      ...this.#sharedOf(source),
      source,
      serverInfo: this.#options.serverInfo ?? DEFAULT_GATEWAY_OPTIONS.serverInfo,
      instructions: this.#options.instructions,
      pageSize: this.#options.pageSize ?? DEFAULT_GATEWAY_OPTIONS.pageSize,
      logger: this.#options.logger ?? silentLogger,
      calls: this.#calls,
      pending: this.#pending,
      fallback: this.#options.bridge?.fallback,
      ...(this.#logins === undefined ? {} : { logins: this.#logins }),
      tasks: this.#tasks,
      principal: options.principal,
      telemetry: this.#options.telemetry,
      // Only one given here: otherwise the spans carry openTelemetry()'s own, if any.
      replicaId: this.#options.replicaId,
    });
    const ended = new Promise<void>((resolve) => session.onClose(() => resolve()));
    const signal = options.signal;
    const abort = () => void session.close();
    this.#sessions.add(session);
    try {
      signal?.addEventListener('abort', abort, { once: true });
      if (signal?.aborted === true) abort();
      try {
        await session.start();
      } catch (error) {
        await session.close();
        throw error;
      }
      await ended;
    } finally {
      signal?.removeEventListener('abort', abort);
      this.#sessions.delete(session);
    }
  }

  /**
   * Serves the gateway over Streamable HTTP at `/mcp` (and the host's named views at
   * `/mcp/<view>`) until the listener or the gateway is closed. Resolves once listening, with the
   * listener (`url`, `bearerToken`, `close()`). Safe by default: bound to 127.0.0.1, a bearer
   * token required (a random one unless `auth` gives one, or `'none'` on loopback), `Host` and
   * `Origin` checked, bodies, batches, sessions and streams bounded. See docs/gateway.md.
   *
   * ```ts
   * const listener = await gateway.listen({ port: 8808 });
   * console.log(listener.url, listener.bearerToken); // http://127.0.0.1:8808/mcp ...
   * ```
   */
  async listen(options: GatewayListenOptions = {}): Promise<GatewayListener> {
    if (this.#closing !== undefined)
      throw new McpHostError('CONNECTION_CLOSED', 'the gateway is closed');
    const host = this.#options.host;
    const listener = await listenGateway(
      {
        serve: (transport, serveOptions) => this.serve(transport, serveOptions),
        hasView: (name) => {
          try {
            this.#viewSource(name);
            return true;
          } catch {
            return false;
          }
        },
        toolHeaderParams: (view, tool) => {
          const source = view === undefined ? this.#source : this.#viewSource(view);
          const found = source.tools().find((candidate) => candidate.name === tool);
          if (found === undefined) return undefined;
          const annotations = headerAnnotations(found.inputSchema);
          return annotations.ok ? annotations.params : undefined;
        },
        metrics: () => host.metrics(),
        status: () => host.status(),
        replicaId: this.replicaId,
        ...(this.#logins === undefined ? {} : { logins: this.#logins }),
        logger: this.#options.logger ?? silentLogger,
      },
      options,
    );
    if (this.#closing !== undefined) {
      await listener.close();
      throw new McpHostError('CONNECTION_CLOSED', 'the gateway is closed');
    }
    this.#listeners.add(listener);
    return listener;
  }

  /**
   * Ends every listener and connection the gateway serves, gives up the calls waiting for a modern
   * client's retry (cancelled on their servers) and refuses new ones; the host stays open.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#attached?.dispose();
      this.#pending.close(new McpHostError('CONNECTION_CLOSED', 'the gateway closed'));
      this.#logins?.close();
      await (await this.#callbackServer)?.close();
      await Promise.all([...this.#listeners].map((listener) => listener.close()));
      await Promise.all([...this.#sessions].map((session) => session.close()));
      for (const { logging, subscriptions } of this.#shared.values()) {
        logging.close();
        subscriptions.close();
      }
      await this.#perClient?.close();
      this.#tasks.clear();
    })();
    return this.#closing;
  }

  #sharedOf(source: GatewaySource): {
    logging: GatewayLogging;
    subscriptions: ResourceSubscriptions;
  } {
    let shared = this.#shared.get(source);
    if (shared === undefined) {
      const logger = this.#options.logger ?? silentLogger;
      shared = {
        logging: new GatewayLogging(source, this.#calls, logger),
        subscriptions: new ResourceSubscriptions(source, logger),
      };
      this.#shared.set(source, shared);
    }
    return shared;
  }

  #viewSource(name: string): GatewaySource {
    let source = this.#viewSources.get(name);
    if (source === undefined) {
      source = gatewaySource(this.#options.host, this.#options.host.view(name));
      this.#viewSources.set(name, source);
    }
    return source;
  }

  /** The source of a named client: `shared` and its own per-client connections, in `view`. */
  #principalSource(
    principal: string,
    view: string | undefined,
    shared: GatewaySource,
  ): Promise<GatewaySource> {
    const key = `${principal}\u0000${view ?? ''}`;
    let source = this.#principalSources.get(key);
    if (source === undefined) {
      const made = (async () => {
        await this.#loginCallback();
        const ownHost = await this.#perClient!.host(principal);
        // The gateway's own view, or the named one, applies to the client's servers too (by the
        // same name on its host: `perClient.host.views`); a view its host lacks shows none of them.
        const lens =
          view ?? (typeof this.#options.view === 'string' ? this.#options.view : undefined);
        let ownView;
        if (lens !== undefined)
          try {
            ownView = ownHost.view(lens);
          } catch {
            return shared;
          }
        else if (this.#options.view !== undefined) ownView = ownHost.view(this.#options.view);
        // The servers the view can show: only their tools are said to need a login.
        const viewOptions =
          lens !== undefined
            ? this.#options.perClient?.host?.views?.[lens]
            : typeof this.#options.view === 'object'
              ? this.#options.view
              : undefined;
        return principalSource(
          shared,
          gatewaySource(ownHost, ownView),
          ownHost,
          {
            principal,
            ...(viewOptions?.servers === undefined ? {} : { servers: viewOptions.servers }),
          },
          this.#logins,
        );
      })();
      made.catch(() => {
        if (this.#principalSources.get(key) === made) this.#principalSources.delete(key);
      });
      this.#principalSources.set(key, made);
      source = made;
    }
    return source;
  }

  /**
   * Makes sure the upstream logins have a callback before a client's host is made (its redirect
   * URI is fixed then): the HTTP listener's, else a loopback server of the gateway's own (a
   * named client served over stdio). One that cannot start leaves the logins without a callback:
   * their clients get the tool error naming `mcp-host auth login`.
   */
  async #loginCallback(): Promise<void> {
    const logins = this.#logins;
    if (logins === undefined || logins.redirectUri !== undefined) return;
    const logger = this.#options.logger ?? silentLogger;
    this.#callbackServer ??= startCallbackServer(logins, logger).then(
      async (server) => {
        // The gateway closed while it started: it is not to outlive it.
        if (this.#closing !== undefined) {
          await server.close();
          return undefined;
        }
        logins.useCallback(server.origin);
        return server;
      },
      (error: unknown) => {
        logger.warn('gateway: no callback for upstream logins', {
          error: toMcpHostError(error).message,
        });
        return undefined;
      },
    );
    await this.#callbackServer;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * A gateway over `host` (or one of its views): `await gateway.serve(transport)` serves one client
 * on that transport. See docs/gateway.md.
 *
 * ```ts
 * const host = new McpHost({ servers });
 * await host.start();
 * const gateway = createGateway({ host });
 * await gateway.serve(new StdioServerTransport()); // until the client goes away
 * await host.close();
 * ```
 */
export function createGateway(options: GatewayOptions): Gateway {
  return new Gateway(options);
}
