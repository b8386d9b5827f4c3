import { McpClient } from '../client/mcp-client.js';
import type { CallOptions } from '../client/client-types.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import type { Disposable } from '../internal/disposable.js';
import type { CallToolResult, Tool } from '../protocol/types.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { AbandonLinks } from './abandon-links.js';
import { CallLimiter } from './call-limiter.js';
import type { QuarantinedTool } from './pin-types.js';
import type { HostServerDefinition } from './host-options.js';
import { mayResend, whenBack, type ComingBack } from './resend-policy.js';
import type { ServerState, ServerStatus } from './server-status.js';
import { HealthChecks, RestartSchedule, describe, type Restartable } from './slot-supervision.js';
import type { SlotHost } from './slot-host.js';
import { toServerStatus, unavailableError } from './slot-status.js';
import { SlotTools, TOOLLESS_STATES } from './slot-tools.js';

export const DEFAULT_MAX_IN_FLIGHT = 16;
export const DEFAULT_MAX_QUEUE = 256;

/**
 * One managed server: its client, its state (see ServerState), its tools as last listed and
 * reviewed, its call limits, and its supervision (restart with backoff after a crash or a wedge,
 * up to a crash loop; health checks that bypass every cache). Every transition is reported to the
 * host, which owns naming, routing and events.
 */
export class ServerSlot {
  readonly name: string;
  readonly definition: HostServerDefinition;
  readonly limiter: CallLimiter;
  readonly #host: SlotHost;
  #client: McpClient | undefined;
  #clientSubscriptions: Disposable[] = [];
  #state: ServerState;
  #since = Date.now();
  #lastError: { code: string; message: string } | undefined;
  readonly #restarts: RestartSchedule;
  readonly #health: HealthChecks;
  #opening: Promise<void> | undefined;
  /** Per connection, aborted when the host gives up on it (a wedge); linked into its calls. */
  readonly #links = new AbandonLinks();
  /** Closes of dropped clients still under way (a dropped client is forgotten at once). */
  readonly #closingClients = new Set<Promise<void>>();
  /** Its tools as last listed and reviewed. */
  readonly #tools: SlotTools;
  /** What calls waiting for the server to come back watch (see whenBack). */
  readonly #comingBack: ComingBack;
  /** What restart scheduling moves on (see RestartSchedule). */
  readonly #restartable: Restartable;
  /** Bumped by every connect and disconnect: late results of an older connection are dropped. */
  #generation = 0;

  constructor(definition: HostServerDefinition, host: SlotHost, seedTools?: readonly Tool[]) {
    this.name = definition.name;
    this.definition = definition;
    this.#host = host;
    this.#restarts = new RestartSchedule({ ...host.restart, ...definition.restart }, host.logger);
    this.#health = new HealthChecks(host.health, host.logger, {
      name: this.name,
      client: (generation) => (generation === this.#generation ? this.client : undefined),
      isCurrent: (generation) => generation === this.#generation,
      passed: () => {
        if (this.#state === 'degraded') this.#set('ready');
      },
      degraded: (error) => {
        this.#lastError = describe(error);
        this.#set('degraded');
      },
      wedged: (client, error, reason) => {
        this.#lastError = describe(error);
        this.#generation++;
        // Its calls in flight fail now, not when its process is gone (the close ladder of a
        // process that does not answer takes seconds).
        this.#links.abandon(client, reason);
        void this.#dropClient();
        this.#failed(reason);
      },
    });
    this.#restartable = {
      name: this.name,
      state: () => this.#state,
      set: (state) => this.#set(state),
      reconnect: () => void this.connect(),
    };
    this.#comingBack = {
      name: this.name,
      stateWaiters: new Set(),
      isBack: () => this.client !== undefined,
      isComing: () => this.#state === 'restarting' || this.#state === 'connecting',
      unavailable: (tool) => this.unavailable(tool),
    };
    this.limiter = new CallLimiter(
      definition.name,
      definition.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT,
      definition.maxQueue ?? DEFAULT_MAX_QUEUE,
    );
    this.#state =
      definition.enabled === false ? 'disabled' : definition.lazy === true ? 'idle' : 'connecting';
    // From a catalogue snapshot: offered until the first real listing replaces them.
    this.#tools = new SlotTools(
      {
        name: this.name,
        definition,
        logger: host.logger,
        client: () => this.client,
        generation: () => this.#generation,
        review: (tools) => host.review(this, tools),
        changed: (before) => host.toolsChanged(this, before),
      },
      this.#state === 'disabled' ? undefined : seedTools,
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

  status(): ServerStatus {
    return toServerStatus({
      name: this.name,
      state: this.#state,
      since: this.#since,
      lastError: this.#lastError,
      client: this.#client,
      toolCount: this.#tools.current.length,
      quarantinedCount: this.#tools.quarantined.size,
      restartCount: this.#restarts.restartCount,
      nextRetryAt: this.#restarts.nextRetryAt,
      inFlight: this.limiter.inFlight,
      queued: this.limiter.queued,
    });
  }

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
    const nextRetryAt = this.#restarts.nextRetryAt;
    return unavailableError(this.name, this.#state, this.#lastError, nextRetryAt, tool);
  }

  /**
   * Calls a tool through the limiter, connecting first if needed. A call that failed because the
   * connection was lost is sent once more, after the server is back (within `RETRY_WAIT_MS`), only
   * when it certainly never reached the server, or when `resendDelivered` says sending it twice is
   * acceptable (the caller opted in, or a trusted server marks the tool read-only or idempotent).
   */
  async callTool(
    tool: string,
    args: JsonObject,
    options: CallOptions,
    resendDelivered = false,
  ): Promise<CallToolResult> {
    for (let attempt = 1; ; attempt++) {
      const client = this.client ?? (await this.ready(tool));
      const waiting = this.limiter.acquire(tool, options.signal);
      if (waiting !== undefined) await waiting;
      // Aborted also when the host gives up on this connection (a wedge), so that the call fails
      // then, not when the process is finally gone.
      const link = this.#links.link(client, options.signal);
      try {
        return await client.callTool(tool, args, { ...options, signal: link.signal });
      } catch (caught) {
        const error =
          link.signal?.aborted === true && options.signal?.aborted !== true
            ? new McpHostError(
                'CONNECTION_CLOSED',
                `server '${this.name}': '${tool}' failed: the server stopped answering and its connection is being closed`,
                { serverName: this.name, tool, cause: link.signal.reason },
              )
            : caught;
        if (attempt > 1 || !mayResend(error, resendDelivered)) throw error;
        this.#host.logger.info(
          `server '${this.name}': '${tool}' failed (${String(error)}); sending it again once the server is back`,
        );
      } finally {
        link.unlink();
        this.limiter.release();
      }
      await whenBack(this.#comingBack, tool, options.signal);
    }
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
    this.#restarts.reset();
    this.#set('connecting');
    await this.connect();
  }

  /** A manual restart: forgets past crashes (so it also leaves `crash_loop`) and reconnects. */
  async restart(): Promise<void> {
    if (this.#state === 'closed') return;
    this.#restarts.restartedByHand();
    await this.#disconnect();
    this.#set('connecting');
    await this.connect();
  }

  /** Closes the connection for good. */
  async close(): Promise<void> {
    await this.#shutdown('closed');
  }

  /** Lists tools again now (bypassing the TTL) and reports what changed. */
  refreshTools(): Promise<void> {
    return this.#tools.refresh();
  }

  // ---- connecting -----------------------------------------------------------------------------

  async #open(): Promise<void> {
    this.#restarts.clear();
    const generation = ++this.#generation;
    this.#set('connecting');
    const client = new McpClient({
      ...this.definition.client,
      transport: this.definition.transport,
      serverName: this.name,
      identity: this.definition.identity ?? this.name,
      stateStore: this.#host.stateStore,
      logger: this.definition.client?.logger ?? this.#host.logger,
    });
    this.#client = client;
    const abandoned = this.#links.register(client);
    const closed: { reason?: McpHostError } = {};
    this.#clientSubscriptions = [
      client.onClose((reason) => {
        closed.reason = reason;
        this.#lost(generation, reason);
      }),
      client.onToolsChanged((change) => {
        if (generation === this.#generation) void this.#tools.accept(change.items, undefined);
      }),
    ];
    try {
      // Aborted when the slot is disconnected or closed mid-connect (see #disconnect).
      await client.connect({ signal: abandoned });
      const listing = await client.listTools();
      if (generation !== this.#generation) return;
      await this.#tools.accept(listing.items, listing.ttlMs);
      if (generation !== this.#generation) return;
      // The server may have gone while its listing was reviewed (the pin check awaits the state
      // store), and #lost leaves a connecting server to this attempt: fail it, never call a
      // closed client ready.
      if (client.state !== 'ready')
        throw (
          closed.reason ??
          new McpHostError('CONNECTION_CLOSED', `server '${this.name}' closed while connecting`, {
            serverName: this.name,
          })
        );
      this.#lastError = undefined;
      this.#set('ready');
      this.#health.start(generation);
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

  /** Records a failure and decides: restart after a backoff, give up (crash loop), or stop. */
  #failed(error: unknown): void {
    this.#lastError = describe(error);
    this.#restarts.onFailure(this.#restartable, error);
    // Queued calls fail after the transition, so that their error names the state the server is
    // in now (and when it is tried again), not the 'ready' it was in when it died.
    this.limiter.rejectQueued(this.unavailable());
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
    this.#restarts.clear();
    // A connect under way is given up at once (closing must not wait out its connect timeout,
    // nor a protocol-era fallback that starts the server again).
    const connecting = this.#opening === undefined ? undefined : this.#client;
    if (connecting !== undefined)
      this.#links.abortConnect(
        connecting,
        new McpHostError('CONNECTION_CLOSED', `server '${this.name}' closed while connecting`, {
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
    this.#health.stop();
    for (const subscription of this.#clientSubscriptions.splice(0)) subscription.dispose();
    const client = this.#client;
    this.#client = undefined;
    if (client === undefined) return;
    const closing = client.close().catch(() => {});
    this.#closingClients.add(closing);
    await closing;
    this.#closingClients.delete(closing);
  }

  #set(state: ServerState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#since = Date.now();
    for (const waiter of [...this.#comingBack.stateWaiters]) waiter();
    // A server down for good (or on purpose) offers no tools; one restarting keeps them listed,
    // and calls to them fail at once with SERVER_UNAVAILABLE until it is back.
    if (TOOLLESS_STATES.has(state)) this.#tools.clear();
    this.#host.statusChanged(this);
  }
}
