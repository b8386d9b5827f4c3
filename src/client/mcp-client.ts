import { McpHostError } from '../errors/mcp-host-error.js';
import type { Disposable } from '../internal/disposable.js';
import { Emitter } from '../internal/emitter.js';
import { silentLogger, type Logger } from '../internal/logger.js';
import type { JsonRpcPeer } from '../jsonrpc/peer.js';
import type { RequestOptions } from '../jsonrpc/peer-options.js';
import type { RequestHeaders } from '../jsonrpc/transport.js';
import { McpMethod } from '../protocol/methods.js';
import {
  type CallToolResult,
  type CompleteResult,
  type CompletionReference,
  type GetPromptResult,
  type Implementation,
  type LoggingLevel,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from '../protocol/types.js';
import { type JsonObject } from '../jsonrpc/message.js';
import { type ProtocolEra } from '../protocol/versions.js';
import { connectSession, type ConnectedPeer } from './connect-session.js';
import {
  DEFAULT_CLIENT_INFO,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_LIST_CHANGED_DEBOUNCE_MS,
  DEFAULT_MAX_INPUT_ROUNDS,
  DEFAULT_MAX_PAGES,
  type McpClientOptions,
} from './client-options.js';
import { eraRequest } from './era-requests.js';
import type { Session } from './open-session.js';
import { collectPages } from './pagination.js';
import { ModernSubscriptions } from './modern-subscriptions.js';
import { ServerEvents } from './server-events.js';
import { ServerInput } from './server-input.js';
import { RemoteRequests, toolRequestHeaders } from './remote-requests.js';
import type { RecoveryContext } from './session-recovery.js';
import { callTool, type ToolCallContext } from './tool-calls.js';
import { ToolCatalog } from './tool-results.js';
import { createSchemaValidator } from '../schema/schema-validator.js';

import type { CallOptions, Listing, McpClientState, ToolListing } from './client-types.js';

/**
 * One MCP server, whichever era it speaks. `connect()` detects the era (or uses a pinned or
 * cached one), opens the session, and from then on every call carries what its era needs:
 * nothing extra for legacy servers, `_meta` on every request for modern ones, with
 * `input_required` results answered through the same handlers that serve legacy server requests.
 * See docs/eras.md and docs/lifecycle.md.
 */
export class McpClient implements AsyncDisposable {
  readonly serverName: string | undefined;
  readonly #options: McpClientOptions;
  readonly #logger: Logger;
  readonly #input: ServerInput;
  readonly #clientInfo: Implementation;
  readonly #closeEmitter = new Emitter<McpHostError | undefined>();
  readonly #events: ServerEvents;
  readonly #tools: ToolCatalog;
  readonly #toolCalls: ToolCallContext;
  #state: McpClientState = 'new';
  #connected: ConnectedPeer | undefined;
  #session: Session | undefined;
  #connecting: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #logLevel: LoggingLevel | undefined;
  #subscriptions: Disposable[] = [];
  #listen: ModernSubscriptions | undefined;
  /** The transport is HTTP (it carries headers): the request policy around each era request. */
  #remote: RemoteRequests | undefined;
  /** Aborted as soon as the client starts closing or loses its connection. */
  readonly #closeController = new AbortController();
  /** MCP's request metadata headers for transports that carry headers (HTTP). */
  readonly #requestHeaders: RequestHeaders;

  /** Fires once when the connection is gone: with the reason, or undefined after `close()`. */
  readonly onClose = this.#closeEmitter.event;
  /** Log messages the server sends (rate-limited per server). */
  readonly onLogMessage;
  /** A subscribed resource changed. */
  readonly onResourceUpdated;
  /** The tool list changed: refetched after a debounce, with what was added, removed and changed. */
  readonly onToolsChanged;
  readonly onResourcesChanged;
  readonly onPromptsChanged;

  constructor(options: McpClientOptions) {
    this.#options = options;
    this.serverName = options.serverName;
    this.#logger = options.logger ?? silentLogger;
    this.#tools = new ToolCatalog(
      options.schemaValidator === false
        ? undefined
        : (options.schemaValidator ?? createSchemaValidator()),
    );
    this.#requestHeaders = toolRequestHeaders(this.#tools);
    this.#toolCalls = {
      tools: this.#tools,
      logger: this.#logger,
      serverName: this.serverName,
      send: (params, options) => this.#call<CallToolResult>(McpMethod.ToolsCall, params, options),
      relist: (signal) => this.#listTools(signal),
    };
    this.#input = new ServerInput(options.handlers ?? {}, options.serverName);
    this.#clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO;
    this.#logLevel = options.logLevel;
    this.#events = new ServerEvents(
      {
        tools: async () => (await this.#listTools(undefined)).items,
        resources: async () =>
          (await this.#list<Resource>(McpMethod.ResourcesList, 'resources', undefined)).items,
        prompts: async () =>
          (await this.#list<Prompt>(McpMethod.PromptsList, 'prompts', undefined)).items,
      },
      options.listChangedDebounceMs ?? DEFAULT_LIST_CHANGED_DEBOUNCE_MS,
      this.#logger,
      options.serverName,
    );
    this.onLogMessage = this.#events.log.event;
    this.onResourceUpdated = this.#events.resourceUpdated.event;
    this.onToolsChanged = this.#events.tools.onChange;
    this.onResourcesChanged = this.#events.resources.onChange;
    this.onPromptsChanged = this.#events.prompts.onChange;
  }

  get state(): McpClientState {
    return this.#state;
  }
  /** What the session learnt: era, version, server info, capabilities, instructions. */
  get session(): Readonly<Session> | undefined {
    return this.#session;
  }
  get era(): ProtocolEra | undefined {
    return this.#session?.era;
  }
  /** The process id of a stdio server, when the transport has one. */
  get pid(): number | undefined {
    return (this.#connected?.transport as { pid?: number } | undefined)?.pid;
  }

  /** Detects the era, opens the session. Idempotent while it runs. */
  connect(options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#connecting ??= this.#connect(options.signal);
    return this.#connecting;
  }

  async #connect(signal: AbortSignal | undefined): Promise<void> {
    if (this.#state !== 'new')
      throw new McpHostError('INVALID_ARGUMENT', this.#where('connect() after close'));
    this.#state = 'connecting';
    try {
      const connected = await connectSession({
        options: this.#options,
        clientInfo: this.#clientInfo,
        input: this.#input,
        signal,
        attach: (peer) => this.#attach(peer),
        requestHeaders: this.#requestHeaders,
        logger: this.#logger,
      });
      this.#connected = connected;
      const carriesHeaders = typeof connected.transport.setRequestHeaders === 'function';
      this.#tools.checkHeaderAnnotations = carriesHeaders;
      if (carriesHeaders) {
        this.#remote = new RemoteRequests({
          era: connected.session.era,
          clientOptions: this.#options,
          recoveryContext: () => this.#recoveryContext(),
          logger: this.#logger,
          serverName: this.serverName,
          closeSignal: this.#closeController.signal,
          send: (method, params, options) => this.#eraRequest(method, params, options),
        });
      }
      this.#session = connected.session;
      if (this.#state !== 'connecting') {
        await connected.peer.close();
        throw new McpHostError('CONNECTION_CLOSED', this.#where('closed while connecting'), {
          serverName: this.serverName,
        });
      }
      this.#state = 'ready';
      if (this.#session.era === 'modern') {
        this.#listen = new ModernSubscriptions(
          (filter, signal) =>
            this.#callRaw(
              McpMethod.SubscriptionsListen,
              { notifications: filter },
              { signal, timeoutMs: Infinity, maxTotalTimeoutMs: Infinity },
            ),
          this.#session.capabilities,
          this.#logger,
          this.serverName,
        );
        this.#listen.start();
      }
      if (
        this.#session.era === 'legacy' &&
        this.#logLevel !== undefined &&
        this.#session.capabilities.logging !== undefined
      ) {
        await this.setLoggingLevel(this.#logLevel);
      }
    } catch (error) {
      if (this.#state === 'connecting') this.#state = 'closed';
      throw error;
    }
  }

  /** Wires a freshly made peer: notifications, server requests, close. Returns what to dispose. */
  #attach(peer: JsonRpcPeer): Disposable[] {
    this.#subscriptions = [
      ...this.#input.registerLegacyHandlers(peer),
      ...this.#events.attach(peer),
      peer.onClose((reason) => this.#onPeerClosed(peer, reason)),
    ];
    return this.#subscriptions;
  }

  #onPeerClosed(peer: JsonRpcPeer, reason: McpHostError | undefined): void {
    if (this.#connected?.peer !== peer || this.#state === 'closed') return;
    this.#state = 'closed';
    this.#shutdownWatchers(reason);
    this.#closeEmitter.fire(reason);
    this.#closeEmitter.clear();
  }

  // ---- primitives -------------------------------------------------------------------------

  /** Every tool, all pages; tools with unusable definitions are left out and named in `excluded`. */
  async listTools(options: { signal?: AbortSignal } = {}): Promise<ToolListing> {
    const listing = await this.#listTools(options.signal);
    this.#events.tools.seed(listing.items);
    return listing;
  }

  async #listTools(signal: AbortSignal | undefined): Promise<ToolListing> {
    const listing = await this.#list<Tool>(McpMethod.ToolsList, 'tools', signal);
    const { items, excluded } = await this.#tools.accept(listing.items);
    for (const { name, reason } of excluded)
      this.#logger.warn(this.#where(`excluded tool '${name}': ${reason}`));
    return { ...listing, items, excluded };
  }

  /**
   * Calls a tool. A result with `isError: true` is returned (it is data for the model), and so is
   * `structuredContent` that does not match the tool's `outputSchema` (as an error result); only
   * protocol, transport and timeout failures reject.
   */
  callTool(
    name: string,
    args: JsonObject = {},
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    return callTool(this.#toolCalls, name, args, options);
  }

  async listResources(options: { signal?: AbortSignal } = {}): Promise<Listing<Resource>> {
    const listing = await this.#list<Resource>(
      McpMethod.ResourcesList,
      'resources',
      options.signal,
    );
    this.#events.resources.seed(listing.items);
    return listing;
  }

  listResourceTemplates(
    options: { signal?: AbortSignal } = {},
  ): Promise<Listing<ResourceTemplate>> {
    return this.#list<ResourceTemplate>(
      McpMethod.ResourceTemplatesList,
      'resourceTemplates',
      options.signal,
    );
  }

  readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    return this.#call<ReadResourceResult>(McpMethod.ResourcesRead, { uri }, options);
  }

  /**
   * Subscribes to a resource's updates, which arrive as `onResourceUpdated`. Legacy:
   * `resources/subscribe`. Modern: the URI joins the `subscriptions/listen` stream's filter.
   */
  async subscribeResource(uri: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#require(
      this.#session?.capabilities.resources?.subscribe === true,
      'resource subscriptions',
    );
    if (this.#listen !== undefined) this.#listen.subscribe(uri);
    else await this.#call(McpMethod.ResourcesSubscribe, { uri }, options);
  }

  async unsubscribeResource(uri: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#require(
      this.#session?.capabilities.resources?.subscribe === true,
      'resource subscriptions',
    );
    if (this.#listen !== undefined) this.#listen.unsubscribe(uri);
    else await this.#call(McpMethod.ResourcesUnsubscribe, { uri }, options);
  }

  async listPrompts(options: { signal?: AbortSignal } = {}): Promise<Listing<Prompt>> {
    const listing = await this.#list<Prompt>(McpMethod.PromptsList, 'prompts', options.signal);
    this.#events.prompts.seed(listing.items);
    return listing;
  }

  getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    return this.#call<GetPromptResult>(McpMethod.PromptsGet, { name, arguments: args }, options);
  }

  complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context: { arguments?: Record<string, string> } = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<CompleteResult> {
    const params: JsonObject = { ref, argument };
    if (context.arguments !== undefined) params.context = { arguments: context.arguments };
    return this.#call<CompleteResult>(McpMethod.Complete, params, options);
  }

  /** Legacy: `logging/setLevel`. Modern: the level rides on every later request's `_meta`. */
  async setLoggingLevel(
    level: LoggingLevel,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    this.#logLevel = level;
    if (this.#session?.era === 'legacy')
      await this.#call(McpMethod.LoggingSetLevel, { level }, options);
  }

  /** A liveness check that bypasses every cache: `ping` (legacy) or `server/discover` (modern). */
  async ping(options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<void> {
    await this.#call(
      this.#session?.era === 'modern' ? McpMethod.Discover : McpMethod.Ping,
      undefined,
      options,
    );
  }

  /** Tells a legacy server the client's roots changed (modern servers ask again when they need them). */
  notifyRootsChanged(): void {
    if (this.#session?.era === 'legacy') this.#peer().notify(McpMethod.RootsListChanged);
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #close(): Promise<void> {
    if (this.#state === 'connecting') await this.#connecting?.catch(() => {});
    const peer = this.#connected?.peer;
    this.#state = 'closing';
    this.#shutdownWatchers();
    try {
      await peer?.close();
    } finally {
      for (const subscription of this.#subscriptions) subscription.dispose();
      this.#state = 'closed';
      this.#closeEmitter.fire(undefined);
      this.#closeEmitter.clear();
    }
  }

  #shutdownWatchers(reason?: McpHostError): void {
    if (!this.#closeController.signal.aborted) {
      this.#closeController.abort(
        reason ??
          new McpHostError('CONNECTION_CLOSED', this.#where('the client closed'), {
            serverName: this.serverName,
          }),
      );
    }
    this.#events.close();
    this.#listen?.close();
  }

  // ---- plumbing ---------------------------------------------------------------------------

  #peer(): JsonRpcPeer {
    const peer = this.#connected?.peer;
    if (peer === undefined || this.#state !== 'ready') {
      throw new McpHostError(
        this.#state === 'new' ? 'NOT_CONNECTED' : 'CONNECTION_CLOSED',
        this.#where(`the client is ${this.#state}`),
        {
          serverName: this.serverName,
        },
      );
    }
    return peer;
  }

  #list<T>(method: string, key: string, signal: AbortSignal | undefined): Promise<Listing<T>> {
    const fetchPage = (cursor: string | undefined): Promise<JsonObject> =>
      this.#call<JsonObject>(method, cursor === undefined ? {} : { cursor }, { signal });
    const maxPages = this.#options.maxPages ?? DEFAULT_MAX_PAGES;
    return collectPages<T>(fetchPage, key, maxPages, { method, serverName: this.serverName });
  }

  #call<T>(method: string, params: JsonObject | undefined, options: CallOptions): Promise<T> {
    return this.#callRaw<T>(method, params, {
      signal: options.signal,
      timeoutMs: options.timeoutMs ?? this.#options.requestTimeoutMs,
      onProgress: options.onProgress as ((params: unknown) => void) | undefined,
    });
  }

  #callRaw<T>(method: string, params: JsonObject | undefined, options: RequestOptions): Promise<T> {
    // stdio and in-memory: the era request itself, nothing wrapped around the hot path.
    if (this.#remote === undefined) return this.#eraRequest<T>(method, params, options);
    return this.#remote.request<T>(method, params, options);
  }

  #recoveryContext(): RecoveryContext | undefined {
    if (this.#connected === undefined || this.#session === undefined) return undefined;
    return {
      peer: this.#connected.peer,
      transport: this.#connected.transport,
      session: this.#session,
      clientInfo: this.#clientInfo,
      capabilities: this.#input.capabilities,
      serverName: this.serverName,
      timeoutMs: this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      closeSignal: this.#closeController.signal,
    };
  }

  #eraRequest<T>(
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions,
  ): Promise<T> {
    const context = {
      peer: this.#peer(),
      session: this.#session!,
      input: this.#input,
      clientInfo: this.#clientInfo,
      logLevel: this.#logLevel,
      maxInputRounds: this.#options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS,
      serverName: this.serverName,
      closeSignal: this.#closeController.signal,
      onVersionChange: (version: string) =>
        this.#connected?.transport.setProtocolVersion?.(version),
    };
    return eraRequest<T>(context, method, params, options);
  }

  #require(condition: boolean, what: string): void {
    if (!condition) {
      throw new McpHostError(
        'CAPABILITY_NOT_SUPPORTED',
        this.#where(`the server does not support ${what}`),
        {
          serverName: this.serverName,
        },
      );
    }
  }

  #where(message: string): string {
    return this.serverName === undefined ? message : `server '${this.serverName}': ${message}`;
  }
}
