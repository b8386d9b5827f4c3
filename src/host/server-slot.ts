import { McpClient } from '../client/mcp-client.js';
import type { CallOptions } from '../client/mcp-client.js';
import { McpHostError, redact } from '../errors/index.js';
import { AbortFanout } from '../internal/abort-fanout.js';
import type { Disposable } from '../internal/disposable.js';
import type { Logger } from '../internal/logger.js';
import type { CallToolResult, JsonObject, Tool } from '../protocol/index.js';
import type { StateStore } from '../state/state-store.js';
import { CallLimiter } from './call-limiter.js';
import type { QuarantinedTool } from './pin-types.js';
import type { HostServerDefinition } from './host-options.js';
import { RestartPolicy, type RestartOptions } from './restart-policy.js';
import type { ServerState, ServerStatus } from './server-status.js';

export const DEFAULT_MAX_IN_FLIGHT = 16;
export const DEFAULT_MAX_QUEUE = 256;
export const DEFAULT_TOOLS_TTL_MS = 5 * 60_000;
export const DEFAULT_HEALTH_INTERVAL_MS = 30_000;
export const DEFAULT_HEALTH_TIMEOUT_MS = 5_000;
/** How long a call that lost its connection waits for the server to come back before it fails. */
export const RETRY_WAIT_MS = 10_000;

/** Failures after which the request certainly never reached the server. */
const NEVER_SENT = new Set(['NOT_CONNECTED', 'CONNECT_FAILED', 'CONNECT_TIMEOUT']);
/** Failures after which the server may or may not have run the request. */
const MAYBE_SENT = new Set([
  'CONNECTION_CLOSED',
  'PROCESS_EXITED',
  'KEEPALIVE_TIMEOUT',
  'STREAM_INTERRUPTED',
  'HTTP_REQUEST_FAILED',
]);

function mayResend(error: unknown, resendDelivered: boolean): boolean {
  if (!(error instanceof McpHostError)) return false;
  return NEVER_SENT.has(error.code) || (resendDelivered && MAYBE_SENT.has(error.code));
}

/** How the host watches a connected server. */
export interface HealthCheckOptions {
  /** Between checks (default 30 s; 0 turns them off). */
  intervalMs?: number;
  /** A check that takes longer has failed (default 5 s). */
  timeoutMs?: number;
  /** Failed checks in a row after which the server counts as wedged and is restarted (default 2). */
  failuresBeforeRestart?: number;
}

/** The pin check's verdict on one listing: what may be offered, and what is held back. */
export interface ToolReview {
  allowed: Tool[];
  quarantined: ReadonlyMap<string, QuarantinedTool>;
}

/** What a slot needs from its host. */
export interface SlotHost {
  logger: Logger;
  stateStore: StateStore | undefined;
  restart: RestartOptions | undefined;
  health: HealthCheckOptions | undefined;
  /** Runs the pin check on a fresh listing (the host's ToolPins), or lets everything through. */
  review(slot: ServerSlot, tools: Tool[]): Promise<ToolReview>;
  statusChanged(slot: ServerSlot): void;
  toolsChanged(slot: ServerSlot, before: readonly Tool[]): void;
}

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
  readonly #policy: RestartPolicy;
  #client: McpClient | undefined;
  #clientSubscriptions: Disposable[] = [];
  #state: ServerState;
  #since = Date.now();
  #lastError: { code: string; message: string } | undefined;
  #restartCount = 0;
  #nextRetryAt: number | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #healthTimer: ReturnType<typeof setTimeout> | undefined;
  #healthFailures = 0;
  #opening: Promise<void> | undefined;
  /**
   * Per connection, aborted when the host gives up on it (a wedge): its signal, given to calls
   * without one of their own, and the signals of the calls that have one (see #linkCall).
   */
  readonly #abandon = new WeakMap<
    McpClient,
    { controller: AbortController; signal: AbortSignal; calls: Set<AbortController> }
  >();
  readonly #callerAborts = new AbortFanout<AbortController>((call, signal) =>
    call.abort(signal.reason),
  );
  /** Closes of dropped clients still under way (a dropped client is forgotten at once). */
  readonly #closingClients = new Set<Promise<void>>();
  #tools: readonly Tool[] = [];
  #quarantined: ReadonlyMap<string, QuarantinedTool> = new Map();
  #toolsFetchedAt = 0;
  #toolsRefresh: Promise<void> | undefined;
  /** Called on every state change (calls waiting for the server to come back). */
  readonly #stateWaiters = new Set<() => void>();
  /** Bumped by every connect and disconnect: late results of an older connection are dropped. */
  #generation = 0;

  constructor(definition: HostServerDefinition, host: SlotHost, seedTools?: readonly Tool[]) {
    this.name = definition.name;
    this.definition = definition;
    this.#host = host;
    this.#policy = new RestartPolicy({ ...host.restart, ...definition.restart });
    this.limiter = new CallLimiter(
      definition.name,
      definition.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT,
      definition.maxQueue ?? DEFAULT_MAX_QUEUE,
    );
    this.#state =
      definition.enabled === false ? 'disabled' : definition.lazy === true ? 'idle' : 'connecting';
    // From a catalogue snapshot: offered until the first real listing replaces them.
    if (seedTools !== undefined && this.#state !== 'disabled') this.#tools = seedTools;
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
    this.#maybeRefreshTools();
    return this.#tools;
  }

  /** The tools the pin check holds back, by original name, with the reason and diff. */
  get quarantined(): ReadonlyMap<string, QuarantinedTool> {
    return this.#quarantined;
  }

  status(): ServerStatus {
    const client = this.#client;
    const session = client?.session;
    const live = this.#state === 'ready' || this.#state === 'degraded';
    return {
      name: this.name,
      state: this.#state,
      since: new Date(this.#since).toISOString(),
      ...(this.#lastError === undefined ? {} : { lastError: { ...this.#lastError } }),
      ...(live && client?.pid !== undefined ? { pid: client.pid } : {}),
      ...(live && session !== undefined
        ? {
            era: session.era,
            protocolVersion: session.version,
            ...(session.serverInfo === undefined ? {} : { serverInfo: { ...session.serverInfo } }),
          }
        : {}),
      toolCount: this.#tools.length,
      quarantinedCount: this.#quarantined.size,
      restartCount: this.#restartCount,
      ...(this.#nextRetryAt === undefined
        ? {}
        : { nextRetryAt: new Date(this.#nextRetryAt).toISOString() }),
      inFlight: this.limiter.inFlight,
      queued: this.limiter.queued,
    };
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
    const why = this.#lastError === undefined ? '' : `: ${this.#lastError.message}`;
    const retry =
      this.#nextRetryAt === undefined
        ? ''
        : ` (next attempt in ${Math.max(0, this.#nextRetryAt - Date.now())} ms)`;
    return new McpHostError(
      'SERVER_UNAVAILABLE',
      `server '${this.name}' is ${this.#state}${retry}${why}`,
      {
        serverName: this.name,
        tool,
        details: { state: this.#state, ...(this.#lastError ? { lastError: this.#lastError } : {}) },
      },
    );
  }

  /** Calls a tool through the limiter, connecting first if needed. */
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
      const link = this.#linkCall(client, options.signal);
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
      await this.#whenBack(tool, options.signal);
    }
  }

  /**
   * A call's signal that also aborts when the host abandons `client`: without a caller's signal,
   * the connection's own (shared: one listener in the peer however many calls); with one, a
   * signal of the call's own, aborted by either (one listener per caller's signal).
   */
  #linkCall(
    client: McpClient,
    signal: AbortSignal | undefined,
  ): { signal: AbortSignal | undefined; unlink(): void } {
    const connection = this.#abandon.get(client);
    if (connection === undefined) return { signal, unlink: () => {} };
    if (signal === undefined) return { signal: connection.signal, unlink: () => {} };
    const call = new AbortController();
    if (signal.aborted) call.abort(signal.reason);
    else this.#callerAborts.add(signal, call);
    connection.calls.add(call);
    return {
      signal: call.signal,
      unlink: () => {
        this.#callerAborts.delete(signal, call);
        connection.calls.delete(call);
      },
    };
  }

  /** Resolves once the server is ready again; rejects when it will not be soon. */
  #whenBack(tool: string, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const done = (error?: Error): void => {
        clearTimeout(timer);
        this.#stateWaiters.delete(check);
        signal?.removeEventListener('abort', onAbort);
        if (error === undefined) resolve();
        else reject(error);
      };
      const check = (): void => {
        if (this.client !== undefined) done();
        else if (this.#state !== 'restarting' && this.#state !== 'connecting')
          done(this.unavailable(tool));
      };
      const onAbort = (): void =>
        done(
          new McpHostError('ABORTED', `server '${this.name}': '${tool}' was cancelled`, {
            serverName: this.name,
            tool,
            cause: signal?.reason,
          }),
        );
      const timer = setTimeout(() => done(this.unavailable(tool)), RETRY_WAIT_MS);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#stateWaiters.add(check);
      check();
    });
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
    this.#policy.reset();
    this.#set('connecting');
    await this.connect();
  }

  /** A manual restart: forgets past crashes (so it also leaves `crash_loop`) and reconnects. */
  async restart(): Promise<void> {
    if (this.#state === 'closed') return;
    this.#policy.reset();
    this.#restartCount++;
    await this.#disconnect();
    this.#set('connecting');
    await this.connect();
  }

  /** Closes the connection for good. */
  async close(): Promise<void> {
    await this.#shutdown('closed');
  }

  /** Lists tools again now (bypassing the TTL) and reports what changed. */
  async refreshTools(): Promise<void> {
    const client = this.client;
    if (client === undefined) return;
    const generation = this.#generation;
    const listing = await client.listTools();
    if (generation !== this.#generation) return;
    await this.#accept(listing.items, listing.ttlMs);
  }

  // ---- connecting -----------------------------------------------------------------------------

  async #open(): Promise<void> {
    this.#clearRetry();
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
    const controller = new AbortController();
    this.#abandon.set(client, { controller, signal: controller.signal, calls: new Set() });
    const closed: { reason?: McpHostError } = {};
    this.#clientSubscriptions = [
      client.onClose((reason) => {
        closed.reason = reason;
        this.#lost(generation, reason);
      }),
      client.onToolsChanged((change) => {
        if (generation === this.#generation) void this.#accept(change.items, undefined);
      }),
    ];
    try {
      // Aborted when the slot is disconnected or closed mid-connect (see #disconnect).
      await client.connect({ signal: controller.signal });
      const listing = await client.listTools();
      if (generation !== this.#generation) return;
      await this.#accept(listing.items, listing.ttlMs);
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
      this.#healthFailures = 0;
      this.#set('ready');
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

  /** Records a failure and decides: restart after a backoff, give up (crash loop), or stop. */
  #failed(error: unknown): void {
    this.#lastError = describe(error);
    this.#moveOn(error);
    // Queued calls fail after the transition, so that their error names the state the server is
    // in now (and when it is tried again), not the 'ready' it was in when it died.
    this.limiter.rejectQueued(this.unavailable());
  }

  #moveOn(error: unknown): void {
    if (error instanceof McpHostError) {
      const status = error.details?.status;
      if (error.code === 'HTTP_STATUS' && (status === 401 || status === 403)) {
        this.#set('needs_auth');
        return;
      }
      if (error.permanent) {
        this.#set('failed');
        return;
      }
    }
    const decision = this.#policy.onFailure(Date.now());
    if (decision.action === 'stop') {
      this.#set('failed');
    } else if (decision.action === 'crash_loop') {
      this.#host.logger.error(
        `server '${this.name}': ${decision.failures} failures in a row; not restarting it until a manual restart`,
      );
      this.#set('crash_loop');
    } else {
      this.#nextRetryAt = Date.now() + decision.delayMs;
      this.#set('restarting');
      this.#retryTimer = setTimeout(() => {
        this.#retryTimer = undefined;
        this.#nextRetryAt = undefined;
        if (this.#state !== 'restarting') return;
        this.#restartCount++;
        void this.connect();
      }, decision.delayMs);
      this.#retryTimer.unref?.();
    }
  }

  // ---- health ---------------------------------------------------------------------------------

  #scheduleHealthCheck(generation: number): void {
    const intervalMs = this.#host.health?.intervalMs ?? DEFAULT_HEALTH_INTERVAL_MS;
    if (intervalMs <= 0) return;
    this.#healthTimer = setTimeout(() => {
      this.#healthTimer = undefined;
      void this.#checkHealth(generation);
    }, intervalMs);
    this.#healthTimer.unref?.();
  }

  /** One check that bypasses every cache (`ping`, or `server/discover` on modern servers). */
  async #checkHealth(generation: number): Promise<void> {
    const client = this.client;
    if (client === undefined || generation !== this.#generation) return;
    const timeoutMs = this.#host.health?.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS;
    try {
      await client.ping({ timeoutMs });
      if (generation !== this.#generation) return;
      this.#healthFailures = 0;
      if (this.#state === 'degraded') this.#set('ready');
    } catch (error) {
      if (generation !== this.#generation) return;
      this.#healthFailures++;
      this.#lastError = describe(error);
      const limit = this.#host.health?.failuresBeforeRestart ?? 2;
      if (this.#healthFailures >= limit) {
        this.#host.logger.warn(
          `server '${this.name}': ${this.#healthFailures} health checks failed in a row; restarting it`,
        );
        this.#generation++;
        const wedged = new McpHostError(
          'SERVER_UNAVAILABLE',
          `server '${this.name}' stopped answering health checks`,
          { serverName: this.name, cause: error },
        );
        // Its calls in flight fail now, not when its process is gone (the close ladder of a
        // process that does not answer takes seconds).
        const connection = this.#abandon.get(client);
        connection?.controller.abort(wedged);
        for (const call of connection?.calls ?? []) call.abort(wedged);
        void this.#dropClient();
        this.#failed(wedged);
        return;
      }
      this.#set('degraded');
    }
    this.#scheduleHealthCheck(generation);
  }

  // ---- tools ----------------------------------------------------------------------------------

  async #accept(listed: Tool[], ttlMs: number | undefined): Promise<void> {
    const generation = this.#generation;
    const allowed = listed.filter((tool) => staticallyAllowed(this.definition, tool.name));
    const review = await this.#host.review(this, allowed);
    if (generation !== this.#generation) return;
    const before = this.#tools;
    this.#tools = review.allowed;
    this.#quarantined = review.quarantined;
    this.#toolsFetchedAt = Date.now();
    this.#toolsTtlMs = ttlMs;
    this.#host.toolsChanged(this, before);
  }

  #toolsTtlMs: number | undefined;

  /** Stale-while-revalidate: a listing older than its TTL is refreshed in the background. */
  #maybeRefreshTools(): void {
    if (this.#toolsRefresh !== undefined || this.client === undefined) return;
    const ttl = this.#effectiveTtl();
    if (ttl === undefined || Date.now() - this.#toolsFetchedAt < ttl) return;
    this.#toolsRefresh = this.refreshTools()
      .catch((error: unknown) =>
        this.#host.logger.warn(`server '${this.name}': refreshing tools failed`, {
          error: String(error),
        }),
      )
      .finally(() => {
        this.#toolsRefresh = undefined;
      });
  }

  /** The server's own hint; none while it promises list_changed; else the configured TTL. */
  #effectiveTtl(): number | undefined {
    const capabilities = this.#client?.session?.capabilities as
      { tools?: { listChanged?: boolean } } | undefined;
    // A server that promises list_changed is believed: the list is kept until it says so. A
    // positive ttlMs hint still bounds the age; ttlMs 0 (the v2 SDK's default) does not force a
    // relist on every read.
    if (capabilities?.tools?.listChanged === true)
      return this.#toolsTtlMs !== undefined && this.#toolsTtlMs > 0 ? this.#toolsTtlMs : undefined;
    if (this.#toolsTtlMs !== undefined) return this.#toolsTtlMs;
    const ttl = this.definition.toolsTtlMs ?? DEFAULT_TOOLS_TTL_MS;
    return ttl > 0 ? ttl : undefined;
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
    this.#clearRetry();
    // A connect under way is given up at once (closing must not wait out its connect timeout,
    // nor a protocol-era fallback that starts the server again).
    const connecting = this.#opening === undefined ? undefined : this.#client;
    if (connecting !== undefined)
      this.#abandon.get(connecting)?.controller.abort(
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
    if (this.#healthTimer !== undefined) clearTimeout(this.#healthTimer);
    this.#healthTimer = undefined;
    for (const subscription of this.#clientSubscriptions.splice(0)) subscription.dispose();
    const client = this.#client;
    this.#client = undefined;
    if (client === undefined) return;
    const closing = client.close().catch(() => {});
    this.#closingClients.add(closing);
    await closing;
    this.#closingClients.delete(closing);
  }

  #clearRetry(): void {
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#nextRetryAt = undefined;
  }

  #set(state: ServerState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#since = Date.now();
    for (const waiter of [...this.#stateWaiters]) waiter();
    // A server down for good (or on purpose) offers no tools; one restarting keeps them listed,
    // and calls to them fail at once with SERVER_UNAVAILABLE until it is back.
    if (TOOLLESS_STATES.has(state) && (this.#tools.length > 0 || this.#quarantined.size > 0)) {
      const before = this.#tools;
      this.#tools = [];
      this.#quarantined = new Map();
      this.#host.toolsChanged(this, before);
    }
    this.#host.statusChanged(this);
  }
}

const TOOLLESS_STATES: ReadonlySet<ServerState> = new Set<ServerState>([
  'disabled',
  'idle',
  'needs_auth',
  'failed',
  'crash_loop',
  'closed',
]);

function describe(error: unknown): { code: string; message: string } {
  if (error instanceof McpHostError) return { code: error.code, message: error.message };
  if (error instanceof Error) return { code: 'INTERNAL', message: redact(error.message) };
  return { code: 'INTERNAL', message: redact(String(error)) };
}

/** The definition's static allow/block lists, by original tool name; block wins. */
function staticallyAllowed(definition: HostServerDefinition, tool: string): boolean {
  const filter = definition.tools;
  if (filter === undefined) return true;
  if (filter.block?.some((pattern) => globMatches(pattern, tool)) === true) return false;
  if (filter.allow === undefined || filter.allow.length === 0) return true;
  return filter.allow.some((pattern) => globMatches(pattern, tool));
}

const globCache = new Map<string, RegExp>();
function globMatches(pattern: string, name: string): boolean {
  let regex = globCache.get(pattern);
  if (regex === undefined) {
    const source = pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    regex = new RegExp(`^${source}$`, 's');
    globCache.set(pattern, regex);
  }
  return regex.test(name);
}
