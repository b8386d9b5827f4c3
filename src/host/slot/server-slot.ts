import type { ServerInputHandlers } from '../../client/client-options.js';
import { McpClient } from '../../client/mcp-client.js';
import { aboutServer, McpHostError } from '../../errors/mcp-host-error.js';
import type { Disposable } from '../../internal/disposable.js';
import { Emitter } from '../../internal/emitter.js';
import type { Logger } from '../../internal/logger.js';
import type { Telemetry } from '../../internal/telemetry.js';
import { onAbort } from '../../internal/signals.js';
import type { LoggingLevel, LoggingMessageParams, Root, Tool } from '../../protocol/types.js';
import type { StateStore } from '../../state/state-store.js';
import { createTransport } from '../../transport/create-transport.js';
import { CallLimiter } from '../calls/call-limiter.js';
import type { ServerOAuth } from '../server-oauth.js';
import type { QuarantinedTool } from '../pins/pin-types.js';
import {
  DEFAULT_SERVER_OPTIONS,
  identityOf,
  type HostServerDefinition,
} from '../server-definition.js';
import { AbandonLinks, type CallLink } from './abandon-links.js';
import { DEFAULT_HEALTH_OPTIONS, HealthCount, type HealthCheckOptions } from './health.js';
import { RestartPolicy, type RestartOptions } from './restart-policy.js';
import {
  describeFailure,
  toServerStatus,
  TOOLLESS_STATES,
  unavailableError,
  type ServerState,
  type ServerStatus,
} from './server-status.js';
import { ServerTools, type ToolReview, type ToolReviewer } from './server-tools.js';

/** How long a call that lost its connection waits for the server to come back before it fails. */
export const RETRY_WAIT_MS = 10_000;

/** The server registered under `name`, or `INVALID_ARGUMENT` naming it. */
export function registeredServer(
  servers: ReadonlyMap<string, ServerSlot>,
  name: string,
): ServerSlot {
  const slot = servers.get(name);
  if (slot === undefined)
    throw new McpHostError('INVALID_ARGUMENT', 'no server of that name is registered', {
      serverName: name,
    });
  return slot;
}

/** What a server slot is given by its host. */
export interface ServerSlotOptions {
  logger: Logger;
  /** Where the client caches the era (the same store keeps the host's pins). */
  stateStore: StateStore | undefined;
  /** The host-wide restart policy (the definition's own `restart` goes over it, field by field). */
  restart: RestartOptions | undefined;
  health: HealthCheckOptions | undefined;
  /** The pin check (or a pass-through when pinning is off). */
  review: ToolReviewer;
  /** Tools to offer before the first listing (from a catalogue snapshot). */
  seedTools?: readonly Tool[] | undefined;
  /** The server's OAuth (from its definition's `oauth`), given to its HTTP transport. */
  oauth?: ServerOAuth | undefined;
  /** The host-wide roots as they are now (undefined: none set), for a server without its own. */
  roots?: (() => readonly Root[] | undefined) | undefined;
  /** The host's telemetry, given to each client the slot makes (unless its definition has its own). */
  telemetry?: Telemetry | undefined;
}

/**
 * One managed server, as a state machine (`ServerState`, drawn in docs/host.md): its client and
 * connection generation, its tools as last listed and reviewed, its call limits, and its
 * supervision: restarts with backoff after a crash or a wedge up to a crash loop (decided by
 * `RestartPolicy`), and health checks that bypass every cache (judged by `HealthCount`). It
 * reports what changed through `onStatusChange` and `onToolsChange`; the host owns naming,
 * routing and events.
 */
export class ServerSlot {
  readonly name: string;
  readonly definition: HostServerDefinition;
  readonly limiter: CallLimiter;
  readonly #options: ServerSlotOptions;
  readonly #logger: Logger;
  #client: McpClient | undefined;
  /** Whether `#client` was given the host-wide roots (and so advertised the roots capability). */
  #hostRoots = false;
  #clientSubscriptions: Disposable[] = [];
  #state: ServerState;
  #since = Date.now();
  #lastError: { code: string; message: string } | undefined;
  /** The error `#lastError` describes: the `cause` of the refusals that name the state. */
  #lastFailure: unknown;
  #opening: Promise<void> | undefined;
  /** Bumped by every connect and disconnect: late results of an older connection are dropped. */
  #generation = 0;
  /** Per connection, aborted when the host gives up on it (a wedge); linked into its calls. */
  readonly #links = new AbandonLinks();
  /** Closes of dropped clients still under way (a dropped client is forgotten at once). */
  readonly #closingClients = new Set<Promise<void>>();
  readonly #tools: ServerTools;
  /** A background relisting under way (see `refreshToolsIfStale`). */
  #refreshing: Promise<void> | undefined;
  /** Reviews of a listing under way (`#acceptListing`, `reviewAgain`), until the slot applied them. */
  readonly #reviewing = new Set<Promise<unknown>>();
  readonly #restartPolicy: RestartPolicy;
  #restartTimer: ReturnType<typeof setTimeout> | undefined;
  #nextRetryAt: number | undefined;
  #restartCount = 0;
  readonly #health: HealthCount;
  #healthTimer: ReturnType<typeof setTimeout> | undefined;
  /** Woken on every state change (calls waiting for the server to come back). */
  readonly #stateWaiters = new Set<() => void>();
  readonly #statusEmitter = new Emitter<void>();
  readonly #toolsEmitter = new Emitter<void>();
  readonly #stepUpEmitter = new Emitter<McpHostError>();
  readonly #listsEmitter = new Emitter<'resources' | 'prompts'>();
  readonly #logEmitter = new Emitter<LoggingMessageParams>();
  readonly #updatedEmitter = new Emitter<{ uri: string }>();
  /** The log level the host asked for (`setLoggingLevel`): given to every connection from now. */
  #logLevel: LoggingLevel | undefined;
  /** The URIs subscribed to (`subscribeResource`): subscribed again on every connection. */
  readonly #subscribed = new Set<string>();

  /** The state changed (read `status()`). */
  readonly onStatusChange = this.#statusEmitter.event;
  /** The tools offered changed (read `tools`). */
  readonly onToolsChange = this.#toolsEmitter.event;
  /** A call needs more scopes (OAuth step-up): the server stays connected, a login is needed. */
  readonly onStepUp = this.#stepUpEmitter.event;
  /**
   * The server said its resources or prompts changed (`list_changed`), and a relisting shows they
   * really did.
   */
  readonly onListChange = this.#listsEmitter.event;
  /** A log message of the server (`notifications/message`), of its current connection. */
  readonly onLogMessage = this.#logEmitter.event;
  /** A subscribed resource changed (`notifications/resources/updated`). */
  readonly onResourceUpdated = this.#updatedEmitter.event;

  constructor(definition: HostServerDefinition, options: ServerSlotOptions) {
    this.name = definition.name;
    this.definition = definition;
    this.#options = options;
    this.#logger = options.logger;
    this.#restartPolicy = new RestartPolicy({ ...options.restart, ...definition.restart });
    this.#health = new HealthCount(options.health);
    this.limiter = new CallLimiter(
      definition.name,
      definition.maxInFlight ?? DEFAULT_SERVER_OPTIONS.maxInFlight,
      definition.maxQueue ?? DEFAULT_SERVER_OPTIONS.maxQueue,
    );
    this.#state =
      definition.enabled === false ? 'disabled' : definition.lazy === true ? 'idle' : 'connecting';
    this.#tools = new ServerTools(
      definition,
      this.#state === 'disabled' ? undefined : options.seedTools,
    );
  }

  get state(): ServerState {
    return this.#state;
  }

  /** The client while connected (ready or degraded). */
  get client(): McpClient | undefined {
    return this.#state === 'ready' || this.#state === 'degraded' ? this.#client : undefined;
  }

  /** The usable tools of the last listing (after the static filter and the pin check). */
  get tools(): readonly Tool[] {
    return this.#tools.tools;
  }

  /** The tools the pin check holds back, by original name, with the reason and diff. */
  get quarantined(): ReadonlyMap<string, QuarantinedTool> {
    return this.#tools.quarantined;
  }

  /** The key its state (era cache, pins) is kept under. */
  get identity(): string {
    return identityOf(this.definition);
  }

  status(): ServerStatus {
    return toServerStatus({
      name: this.name,
      state: this.#state,
      since: this.#since,
      lastError: this.#lastError,
      client: this.#client,
      toolCount: this.#tools.tools.length,
      quarantinedCount: this.#tools.quarantined.size,
      restartCount: this.#restartCount,
      nextRetryAt: this.#nextRetryAt,
      inFlight: this.limiter.inFlight,
      queued: this.limiter.queued,
    });
  }

  // ---- what calls need ------------------------------------------------------------------------

  /**
   * The connected client for a call: connects a lazy server on first use, waits for a connect
   * under way, and fails at once with `SERVER_UNAVAILABLE` (naming the state and the last error)
   * when the server is down, instead of letting the call wait for its timeout.
   */
  async ready(tool?: string): Promise<McpClient> {
    const client = this.client;
    if (client !== undefined) return client;
    if (this.#state === 'connecting' || this.#state === 'idle') {
      await this.connect();
      const connected = this.client;
      if (connected !== undefined) return connected;
    }
    throw this.unavailable(tool);
  }

  unavailable(tool?: string): McpHostError {
    return unavailableError(
      this.name,
      this.#state,
      this.#lastError,
      this.#nextRetryAt,
      tool,
      this.#lastFailure,
    );
  }

  /**
   * A call's signal on `client` that also aborts when the host gives up on that connection (a
   * wedge), so the call fails then, not when the process is finally gone; `unlink` when done.
   */
  link(client: McpClient, signal: AbortSignal | undefined): CallLink {
    return this.#links.link(client, signal);
  }

  /**
   * Resolves once the server is ready again; rejects (`SERVER_UNAVAILABLE`) when it will not be
   * soon (it stopped coming back, or not within `RETRY_WAIT_MS`), or `ABORTED` on the signal.
   */
  whenBack(tool: string, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const done = (error?: Error): void => {
        clearTimeout(timer);
        this.#stateWaiters.delete(check);
        removeAbort();
        if (error === undefined) resolve();
        else reject(error);
      };
      const check = (): void => {
        if (this.client !== undefined) done();
        else if (this.#state !== 'restarting' && this.#state !== 'connecting')
          done(this.unavailable(tool));
      };
      const timer = setTimeout(() => done(this.unavailable(tool)), RETRY_WAIT_MS);
      const removeAbort = onAbort(signal, (reason) =>
        done(
          new McpHostError('ABORTED', `'${tool}' was cancelled`, {
            serverName: this.name,
            tool,
            cause: reason,
          }),
        ),
      );
      this.#stateWaiters.add(check);
      check();
    });
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  /**
   * Connects unless connected, disabled or closed; resolves when the attempt settles (ready, or a
   * failure recorded in the status: it never rejects). Concurrent calls share one attempt.
   */
  connect(): Promise<void> {
    if (this.#state === 'closed' || this.#state === 'disabled') return Promise.resolve();
    if (this.#state === 'ready' || this.#state === 'degraded') return Promise.resolve();
    this.#opening ??= this.#open().finally(() => {
      this.#opening = undefined;
    });
    return this.#opening;
  }

  /** Closes the connection but keeps the server enabled (`idle`): the next call reconnects. */
  async disconnect(): Promise<void> {
    if (this.#state === 'closed' || this.#state === 'disabled') return;
    await this.#disconnect();
    this.#set('idle');
    this.limiter.rejectQueued(this.unavailable());
  }

  /** Stops and forgets the connection; the server stays registered, `disabled`. */
  async disable(): Promise<void> {
    await this.#shutdown('disabled');
  }

  /** Re-enables a disabled server and connects it. */
  async enable(): Promise<void> {
    if (this.#state !== 'disabled') return;
    this.#restartPolicy.reset();
    this.#set('connecting');
    await this.connect();
  }

  /** A manual restart: forgets past crashes (so it also leaves `crash_loop`) and reconnects. */
  async restart(): Promise<void> {
    if (this.#state === 'closed') return;
    this.#restartPolicy.reset();
    this.#restartCount++;
    await this.#disconnect();
    this.#set('connecting');
    await this.connect();
  }

  /** Closes the connection for good. */
  async close(): Promise<void> {
    await this.#shutdown('closed');
  }

  // ---- logging and subscriptions ----------------------------------------------------------------

  /**
   * Sets the server's log level, now when it is connected (and declared `logging`) and on every
   * later connection (legacy: `logging/setLevel`; modern: it rides on each request).
   */
  async setLoggingLevel(
    level: LoggingLevel,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    this.#logLevel = level;
    const client = this.client;
    if (client?.session?.capabilities.logging === undefined) return;
    await client.setLoggingLevel(level, options);
  }

  /**
   * Subscribes to a resource's updates (`onResourceUpdated`), now and on every later connection.
   * `CAPABILITY_NOT_SUPPORTED` when the server did not declare resource subscriptions.
   */
  async subscribeResource(uri: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    const client = await this.ready();
    await client.subscribeResource(uri, options);
    this.#subscribed.add(uri);
  }

  /** Ends a subscription (`resources/unsubscribe` when connected). */
  async unsubscribeResource(uri: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    if (!this.#subscribed.delete(uri)) return;
    const client = this.client;
    if (client?.session?.capabilities.resources?.subscribe !== true) return;
    await client.unsubscribeResource(uri, options);
  }

  /** A new connection's subscriptions: the ones kept, subscribed again (a failure is logged). */
  async #resubscribe(client: McpClient): Promise<void> {
    for (const uri of this.#subscribed)
      await client.subscribeResource(uri).catch((error: unknown) =>
        this.#logger.warn(aboutServer(this.name, `could not subscribe again to '${uri}'`), {
          error: String(error),
        }),
      );
  }

  // ---- tools ----------------------------------------------------------------------------------

  /** Lists tools again now (bypassing the TTL) and reports what changed. */
  async refreshTools(): Promise<void> {
    const client = this.client;
    if (client === undefined) return;
    const generation = this.#generation;
    const listing = await client.listTools();
    if (generation !== this.#generation) return;
    await this.#acceptListing(listing.tools, listing.ttlMs, generation);
  }

  /**
   * Stale-while-revalidate: when the listing is older than its TTL, relists in the background (at
   * most one at a time; a failure is logged); the tools stay offered meanwhile.
   */
  refreshToolsIfStale(): void {
    if (this.#refreshing !== undefined) return;
    const client = this.client;
    if (client === undefined) return;
    if (!this.#tools.isStale(client.session?.capabilities, this.definition)) return;
    this.#refreshing = this.refreshTools()
      .catch((error: unknown) =>
        this.#logger.warn(aboutServer(this.name, 'refreshing tools failed'), {
          error: String(error),
        }),
      )
      .finally(() => {
        this.#refreshing = undefined;
      });
  }

  /**
   * Reviews the last listing again, without listing (the stored pins changed: another process
   * approved a held tool), and reports it. Nothing when the server is not connected, or when a
   * fresh listing came in meanwhile (it was reviewed itself).
   */
  reviewAgain(): Promise<void> {
    if (this.client === undefined) return Promise.resolve();
    const generation = this.#generation;
    const listed = this.#tools.listed;
    // Counted until applied, not only until reviewed: `settled()` then means the slot offers it.
    return this.#whileReviewing(
      (async () => {
        const review = await this.#review([...listed]);
        if (generation !== this.#generation || listed !== this.#tools.listed) return;
        this.#tools.reviewed(review);
        this.#toolsEmitter.fire();
      })(),
    );
  }

  /**
   * Resolves once no review of a listing is under way: what the pins say and what the slot
   * offers agree then. The pin watch waits for it, so that a review's own write to a shared store
   * is not taken for a change made elsewhere while the slot still offers the previous tools.
   */
  async settled(): Promise<void> {
    while (this.#reviewing.size > 0) await Promise.allSettled([...this.#reviewing]);
  }

  /** Takes a fresh listing: filtered, reviewed, then reported (unless the connection changed). */
  #acceptListing(
    listed: readonly Tool[],
    ttlMs: number | undefined,
    generation: number,
  ): Promise<void> {
    return this.#whileReviewing(
      (async () => {
        const filtered = this.#tools.filter(listed);
        const review = await this.#review(filtered);
        if (generation !== this.#generation) return;
        this.#tools.replace(review, ttlMs, undefined, filtered);
        this.#toolsEmitter.fire();
      })(),
    );
  }

  /** `work`, counted as a review under way until it settles (see `settled`). */
  #whileReviewing<T>(work: Promise<T>): Promise<T> {
    this.#reviewing.add(work);
    const done = (): void => void this.#reviewing.delete(work);
    work.then(done, done);
    return work;
  }

  async #review(tools: Tool[]): Promise<ToolReview> {
    const review = await this.#options.review(this.identity, tools);
    for (const held of review.quarantined)
      this.#logger.warn(
        aboutServer(
          this.name,
          `tool '${held.tool.name}' quarantined (${held.reason}): ${held.diff.summary}`,
        ),
      );
    return review;
  }

  // ---- connecting -----------------------------------------------------------------------------

  /** The server's OAuth, when its definition has `oauth`. */
  get oauth(): ServerOAuth | undefined {
    return this.#options.oauth;
  }

  /** The error that put the server in its current state (undefined once it connects). */
  get lastFailure(): unknown {
    return this.#lastFailure;
  }

  /** The definition's transport, or with OAuth, a factory giving the HTTP transport its provider. */
  #transport(): HostServerDefinition['transport'] {
    const oauth = this.#options.oauth;
    const transport = this.definition.transport;
    if (oauth === undefined || typeof transport === 'function') return transport;
    return async () =>
      createTransport(transport, {
        serverName: this.name,
        logger: this.#logger,
        auth: await oauth.provider(),
      });
  }

  /** The definition's input handlers, with the host-wide roots where it has no roots of its own. */
  #handlers(): ServerInputHandlers | undefined {
    const own = this.definition.client?.handlers;
    const roots = this.#options.roots;
    if (own?.roots !== undefined || roots?.() === undefined) return own;
    // Read when the server asks, so `setRoots` reaches a server that asks again.
    return { ...own, roots: () => (roots() ?? []).map((root) => ({ ...root })) };
  }

  /**
   * Tells the server the host-wide roots changed (`notifications/roots/list_changed`) when its
   * connection was given them and speaks the legacy era; a modern server asks again when it
   * needs them, and one connected without roots sees them from its next connect.
   */
  notifyRootsChanged(): void {
    const client = this.client;
    if (!this.#hostRoots || client === undefined || client.era !== 'legacy') return;
    try {
      client.notifyRootsChanged();
    } catch (error) {
      // The connection is going away: its next connect asks for the roots anew.
      this.#logger.debug(aboutServer(this.name, 'could not announce the changed roots'), {
        error: String(error),
      });
    }
  }

  async #open(): Promise<void> {
    this.#clearRestart();
    const generation = ++this.#generation;
    this.#set('connecting');
    const handlers = this.#handlers();
    const logLevel = this.#logLevel ?? this.definition.client?.logLevel;
    const client = new McpClient({
      ...this.definition.client,
      ...(handlers === undefined ? {} : { handlers }),
      ...(logLevel === undefined ? {} : { logLevel }),
      transport: this.#transport(),
      serverName: this.name,
      identity: this.identity,
      stateStore: this.#options.stateStore,
      logger: this.definition.client?.logger ?? this.#logger,
      telemetry: this.definition.client?.telemetry ?? this.#options.telemetry,
    });
    this.#client = client;
    this.#hostRoots = handlers !== this.definition.client?.handlers;
    const abandoned = this.#links.register(client);
    const closed: { reason?: McpHostError } = {};
    this.#clientSubscriptions = [
      client.onClose((reason) => {
        closed.reason = reason;
        this.#lost(generation, reason);
      }),
      client.onToolsChanged((change) => {
        if (generation !== this.#generation) return;
        // The pin check may fail (its state store): the last reviewed tools stay offered.
        this.#acceptListing(change.items, undefined, generation).catch((error: unknown) =>
          this.#logger.warn(aboutServer(this.name, 'reviewing the changed tools failed'), {
            error: String(error),
          }),
        );
      }),
      client.onResourcesChanged(() => {
        if (generation === this.#generation) this.#listsEmitter.fire('resources');
      }),
      client.onPromptsChanged(() => {
        if (generation === this.#generation) this.#listsEmitter.fire('prompts');
      }),
      client.onLogMessage((message) => {
        if (generation === this.#generation) this.#logEmitter.fire(message);
      }),
      client.onResourceUpdated((update) => {
        if (generation === this.#generation) this.#updatedEmitter.fire(update);
      }),
    ];
    try {
      // Aborted when the slot is disconnected or closed mid-connect (see #disconnect).
      await client.connect({ signal: abandoned });
      const listing = await client.listTools();
      if (generation !== this.#generation) return;
      await this.#acceptListing(listing.tools, listing.ttlMs, generation);
      if (generation !== this.#generation) return;
      // The server may have gone while its listing was reviewed (the pin check awaits the state
      // store), and #lost leaves a connecting server to this attempt: fail it, never call a
      // closed client ready.
      if (client.state !== 'ready')
        throw (
          closed.reason ??
          new McpHostError('CONNECTION_CLOSED', 'closed while connecting', {
            serverName: this.name,
          })
        );
      if (this.#subscribed.size > 0) await this.#resubscribe(client);
      if (generation !== this.#generation) return;
      this.#lastError = undefined;
      this.#lastFailure = undefined;
      this.#set('ready');
      this.#health.reset();
      this.#scheduleHealthCheck(generation);
    } catch (error) {
      if (generation !== this.#generation) return;
      await this.#dropClient();
      this.#failed(error);
    }
  }

  /** The connection went away on its own (crash, dropped socket): supervision takes over. */
  #lost(generation: number, reason: McpHostError | undefined): void {
    if (generation !== this.#generation || reason === undefined) return;
    if (this.#state !== 'ready' && this.#state !== 'degraded') return;
    this.#generation++;
    // Both synchronous first steps: the client is forgotten and the state moves on before any
    // await, so no call sees a 'ready' server without a client.
    void this.#dropClient();
    this.#failed(reason);
  }

  /** Records a failure and does what the restart policy decides. */
  #failed(error: unknown): void {
    this.#recordFailure(error);
    const decision = this.#restartPolicy.onFailure(error);
    switch (decision.action) {
      case 'needs_auth':
        this.#set('needs_auth');
        break;
      case 'stop':
        this.#set('failed');
        break;
      case 'crash_loop':
        this.#logger.error(
          aboutServer(
            this.name,
            `${decision.failures} failures in a row; not restarting it until a manual restart`,
          ),
        );
        this.#set('crash_loop');
        break;
      case 'restart':
        this.#scheduleRestart(decision.delayMs);
        break;
    }
    // Queued calls fail after the transition, so that their error names the state the server is
    // in now (and when it is tried again), not the 'ready' it was in when it died.
    this.limiter.rejectQueued(this.unavailable());
  }

  #scheduleRestart(delayMs: number): void {
    this.#nextRetryAt = Date.now() + delayMs;
    this.#set('restarting');
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      this.#nextRetryAt = undefined;
      if (this.#state !== 'restarting') return;
      this.#restartCount++;
      void this.connect();
    }, delayMs);
    this.#restartTimer.unref?.();
  }

  #clearRestart(): void {
    if (this.#restartTimer !== undefined) clearTimeout(this.#restartTimer);
    this.#restartTimer = undefined;
    this.#nextRetryAt = undefined;
  }

  // ---- health ---------------------------------------------------------------------------------

  #scheduleHealthCheck(generation: number): void {
    const intervalMs = this.#options.health?.intervalMs ?? DEFAULT_HEALTH_OPTIONS.intervalMs;
    if (intervalMs <= 0) return;
    this.#healthTimer = setTimeout(() => {
      this.#healthTimer = undefined;
      void this.#checkHealth(generation);
    }, intervalMs);
    this.#healthTimer.unref?.();
  }

  #stopHealthChecks(): void {
    if (this.#healthTimer !== undefined) clearTimeout(this.#healthTimer);
    this.#healthTimer = undefined;
  }

  /** One check (`ping`, which bypasses every cache) and what its verdict makes of the server. */
  async #checkHealth(generation: number): Promise<void> {
    const client = generation === this.#generation ? this.client : undefined;
    if (client === undefined) return;
    const timeoutMs = this.#options.health?.timeoutMs ?? DEFAULT_HEALTH_OPTIONS.timeoutMs;
    let failure: unknown;
    try {
      await client.ping({ timeoutMs });
    } catch (error) {
      failure = error ?? new Error('health check failed');
    }
    if (generation !== this.#generation) return;
    const verdict = this.#health.record(failure === undefined);
    if (verdict === 'healthy') {
      if (this.#state === 'degraded') this.#set('ready');
    } else if (verdict === 'degraded') {
      this.#recordFailure(failure);
      this.#set('degraded');
    } else {
      this.#logger.warn(
        aboutServer(
          this.name,
          `${this.#health.failures} health checks failed in a row; restarting it`,
        ),
      );
      this.#wedged(
        client,
        failure,
        new McpHostError('SERVER_UNAVAILABLE', 'stopped answering health checks', {
          serverName: this.name,
          cause: failure,
        }),
      );
      return;
    }
    this.#scheduleHealthCheck(generation);
  }

  /**
   * A call to this server failed with `error` (the call path tells every failure, off its fast
   * path). For a server with `oauth`, `AUTH_REQUIRED` means a login is needed: with a 403 (a
   * step-up) the server stays connected and `onStepUp` says so; otherwise the login is gone (the
   * tokens refused and not refreshable), so the connection is dropped and the server waits in
   * `needs_auth`, whose status change announces it.
   */
  callFailed(error: unknown): void {
    if (this.#options.oauth === undefined) return;
    if (!(error instanceof McpHostError) || error.code !== 'AUTH_REQUIRED') return;
    if (error.details?.status === 403) {
      this.#stepUpEmitter.fire(error);
      return;
    }
    if (this.#state !== 'ready' && this.#state !== 'degraded') return;
    this.#generation++;
    void this.#dropClient();
    this.#failed(error);
  }

  /** Too many checks failed in a row: the connection is given up and the server restarted. */
  #wedged(client: McpClient, error: unknown, reason: McpHostError): void {
    this.#recordFailure(error);
    this.#generation++;
    // Its calls in flight fail now, not when its process is gone (the close ladder of a process
    // that does not answer takes seconds).
    this.#links.abandon(client, reason);
    void this.#dropClient();
    this.#failed(reason);
  }

  // ---- plumbing -------------------------------------------------------------------------------

  async #shutdown(state: 'disabled' | 'closed'): Promise<void> {
    if (this.#state === 'closed') return;
    await this.#disconnect();
    this.#set(state);
    this.limiter.rejectQueued(this.unavailable());
  }

  async #disconnect(): Promise<void> {
    this.#generation++;
    this.#clearRestart();
    // A connect under way is given up at once (closing must not wait out its connect timeout,
    // nor a protocol-era fallback that starts the server again).
    const connecting = this.#opening === undefined ? undefined : this.#client;
    if (connecting !== undefined)
      this.#links.abortConnect(
        connecting,
        new McpHostError('CONNECTION_CLOSED', 'closed while connecting', {
          serverName: this.name,
        }),
      );
    await this.#opening?.catch(() => {});
    await this.#dropClient();
    // Clients dropped earlier without waiting (a crash, a wedge) may still be shutting their
    // process down (a stopped one gets the whole SIGTERM/SIGKILL ladder): close() waits for them.
    await Promise.all(this.#closingClients);
  }

  async #dropClient(): Promise<void> {
    this.#stopHealthChecks();
    for (const subscription of this.#clientSubscriptions.splice(0)) subscription.dispose();
    const client = this.#client;
    this.#client = undefined;
    if (client === undefined) return;
    const closing = client.close().catch(() => {});
    this.#closingClients.add(closing);
    await closing;
    this.#closingClients.delete(closing);
  }

  /** What went wrong last: for the status, and as the cause of the refusals that follow. */
  #recordFailure(error: unknown): void {
    this.#lastFailure = error;
    this.#lastError = describeFailure(error, this.name);
  }

  #set(state: ServerState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#since = Date.now();
    for (const waiter of [...this.#stateWaiters]) waiter();
    // A server down for good (or on purpose) offers no tools; one restarting keeps them listed,
    // and calls to them fail at once with SERVER_UNAVAILABLE until it is back.
    if (TOOLLESS_STATES.has(state) && this.#tools.clear() !== undefined) this.#toolsEmitter.fire();
    this.#statusEmitter.fire();
  }
}
