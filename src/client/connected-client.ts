import { JsonRpcError } from '../errors/json-rpc-error.js';
import { aboutServer, McpHostError } from '../errors/mcp-host-error.js';
import type { Disposable } from '../internal/disposable.js';
import type { Logger } from '../internal/logger.js';
import { linkSignals } from '../internal/signals.js';
import type { JsonObject } from '../jsonrpc/message.js';
import type { JsonRpcPeer } from '../jsonrpc/peer.js';
import type { PeerStats, RequestOptions } from '../jsonrpc/peer-options.js';
import { isCreateTaskResult, isObject } from '../protocol/guards.js';
import { McpErrorCode, McpMethod } from '../protocol/methods.js';
import type {
  CacheHints,
  CallToolResult,
  CompleteResult,
  CompletionReference,
  CreateTaskResult,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from '../protocol/types.js';
import { createSchemaValidator } from '../schema/schema-validator.js';
import { HeldTransport } from '../transport/held-transport.js';
import {
  DEFAULT_CLIENT_OPTIONS,
  type CallOptions,
  type McpClientOptions,
  type PromptListing,
  type ResourceListing,
  type ResourceTemplateListing,
  type ToolListing,
} from './client-options.js';
import { TASK_EXTENSIONS, TaskRequests } from './client-tasks.js';
import type { EarlyTransport } from './early-transport.js';
import { ConnectionStats } from './connection-stats.js';
import { EraRequests, type RequestInput } from './era-requests.js';
import { ListedTools } from './listed-tools.js';
import { excludedToolError } from './tool-exclusion.js';
import { ModernSubscriptions } from './modern-subscriptions.js';
import { openSession, type ConnectedPeer, type Session } from './open-session.js';
import { collectPages } from './pagination.js';
import { RemoteRequests } from './remote-requests.js';
import { ServerEvents, type ClientEmitters, type ListFetchers } from './server-events.js';
import { ServerInput } from './server-input.js';
import { SessionRecovery } from './session-recovery.js';
import { tracedRequest } from './traced-request.js';
import type { LoadedSkill, LoadSkillOptions, SkillFile } from './skills/load-skill.js';
import {
  SKILLS_EXTENSION,
  type SkillDirectoryPage,
  type SkillEntry,
  type SkillListing,
} from './skills/skill-entry.js';
import {
  callerSkillEntry,
  skillDirectoryPageOf,
  skillEntriesOf,
  skillGetEntry,
} from './skills/skill-results.js';

type Answer = CallToolResult | CreateTaskResult;

/**
 * What a connected client needs of the `McpClient` it works for: the options and parts made with
 * the client, and its state, which stays the client's.
 */
export interface ClientShell {
  readonly serverName: string | undefined;
  readonly options: McpClientOptions;
  readonly logger: Logger;
  readonly clientInfo: Implementation;
  /** The client's events, fired from here (made with the client, for listeners before connect). */
  readonly emitters: ClientEmitters;
  /** Aborted as soon as the client starts closing or loses its connection. */
  readonly closeSignal: AbortSignal;
  /** The logging level asked for (see `McpClient.setLoggingLevel`). */
  logLevel(): LoggingLevel | undefined;
  /** Whether requests may be sent: the client is ready. */
  ready(): boolean;
  /** The refusal of work while the client is not ready. */
  notReady(): McpHostError;
  /** The session's connection closed on its own. */
  closed(reason: McpHostError | undefined): void;
}

/**
 * The session side of `McpClient`: it opens the session (the handshake of either era) and then
 * does the client's work over it, the listings, calls, subscriptions, skills and tasks, and turns
 * the server's notifications into the client's events. `McpClient` keeps the client's state, the
 * emitters of its events and its lifetime, and loads this with the session's code once a local
 * server's process is starting (see session-code.ts), so a program that imports
 * `mcp-host/client` compiles none of it before its server starts.
 */
export class ConnectedClient {
  readonly #shell: ClientShell;
  readonly serverName: string | undefined;
  /** `McpClient.tasks`'s requests. */
  readonly tasks: TaskRequests;
  /** The server's notifications as the client's events. */
  readonly #events: ServerEvents;
  readonly #connection: ConnectionStats;
  readonly #input: ServerInput;
  /** What the last tool listing said: usable tools, excluded ones, header parameters. */
  readonly #tools: ListedTools;
  #connected: ConnectedPeer | undefined;
  /** The last peer made (while connecting too): what `close()` closes and waits for. */
  #peer: JsonRpcPeer | undefined;
  /** The session's requests, in its era (set once connected). */
  #requests: EraRequests | undefined;
  /** Over HTTP (transports that carry headers): the retry and recovery policy around them. */
  #remote: RemoteRequests | undefined;
  #subscriptions: Disposable[] = [];
  #listen: ModernSubscriptions | undefined;
  /** The lists `ServerEvents` refetches after a list_changed notification (not seeded). */
  readonly #fetchers: ListFetchers = {
    tools: async () => (await this.#listTools(undefined)).tools,
    resources: async () =>
      (await this.#list<Resource>(McpMethod.ResourcesList, 'resources', undefined)).items,
    prompts: async () =>
      (await this.#list<Prompt>(McpMethod.PromptsList, 'prompts', undefined)).items,
  };

  constructor(shell: ClientShell) {
    this.#shell = shell;
    this.serverName = shell.serverName;
    const { schemaValidator, handlers } = shell.options;
    // One validator per client unless one is given (shared) or validation is off (`false`).
    this.#tools = new ListedTools(
      schemaValidator === undefined ? createSchemaValidator() : schemaValidator || undefined,
    );
    this.#input = new ServerInput(handlers ?? {}, shell.serverName);
    this.#events = new ServerEvents(
      shell.emitters,
      this.#fetchers,
      shell.options.listChangedDebounceMs ?? DEFAULT_CLIENT_OPTIONS.listChangedDebounceMs,
      shell.logger,
      shell.serverName,
    );
    this.#connection = new ConnectionStats(shell.emitters.discarded);
    this.tasks = new TaskRequests({
      serverName: shell.serverName,
      session: () => this.session,
      request: (method, params, options, extensions) =>
        this.request(method, params, options, extensions),
    });
  }

  /** The tasks of a client that never connected: no session, so none is supported. */
  static tasksUnconnected(serverName: string | undefined): TaskRequests {
    return new TaskRequests({
      serverName,
      session: () => undefined,
      request: () => Promise.reject(new Error('unreachable: no session, no tasks request')),
    });
  }

  /**
   * What the client sent, received and discarded, over every connection of this session (see
   * `McpClient.stats`).
   */
  get stats(): PeerStats {
    return this.#connection.stats;
  }

  get session(): Readonly<Session> | undefined {
    return this.#connected?.session;
  }
  get pid(): number | undefined {
    return (this.#connected?.transport as { pid?: number } | undefined)?.pid;
  }
  /** The last peer made: what closing the client closes. */
  get peer(): JsonRpcPeer | undefined {
    return this.#peer;
  }

  /**
   * Opens the session over the client's transport option, or its early transport (handed over
   * here). The caller's `signal` or the client's close, whichever comes first, gives it up.
   */
  async open(
    early: EarlyTransport | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Readonly<Session>> {
    const shell = this.#shell;
    const { serverName, logger } = shell;
    const transport =
      early?.transport((hold) => new HeldTransport(hold, { serverName, logger })) ??
      shell.options.transport;
    // Without a caller's signal, close()'s own serves: nothing to link, nothing to unlink.
    const linked =
      signal === undefined
        ? { signal: shell.closeSignal, cleanup: () => {} }
        : linkSignals(signal, shell.closeSignal);
    try {
      const connected = await openSession({
        options:
          transport === shell.options.transport ? shell.options : { ...shell.options, transport },
        clientInfo: shell.clientInfo,
        input: this.#input,
        signal: linked.signal,
        attach: (peer) => this.#attach(peer),
        requestHeaders: this.#tools.requestHeaders,
        logger,
      });
      this.#connected = connected;
      return connected.session;
    } finally {
      linked.cleanup();
    }
  }

  /** The requests of the open session, and over HTTP the policy around them. */
  start(): void {
    const { peer, transport, session } = this.#connected!;
    const shell = this.#shell;
    const requests = new EraRequests(
      {
        peer,
        transport,
        session,
        input: this.#input,
        clientInfo: shell.clientInfo,
        maxInputRounds: shell.options.maxInputRounds ?? DEFAULT_CLIENT_OPTIONS.maxInputRounds,
        serverName: this.serverName,
        closeSignal: shell.closeSignal,
      },
      shell.logLevel(),
    );
    this.#requests = requests;
    // Transports that carry headers (HTTP): annotated tool parameters are mirrored into headers,
    // and requests get the HTTP retry and session-recovery policy.
    const carriesHeaders = typeof transport.setRequestHeaders === 'function';
    this.#tools.checkHeaderAnnotations = carriesHeaders;
    if (!carriesHeaders) return;
    this.#remote = new RemoteRequests({
      requests,
      recovery:
        session.era === 'legacy'
          ? new SessionRecovery({
              peer,
              transport,
              session,
              clientInfo: shell.clientInfo,
              capabilities: this.#input.capabilities,
              serverName: this.serverName,
              timeoutMs: shell.options.connectTimeoutMs ?? DEFAULT_CLIENT_OPTIONS.connectTimeoutMs,
              closeSignal: shell.closeSignal,
            })
          : undefined,
      clientOptions: shell.options,
      logger: shell.logger,
      serverName: this.serverName,
      closeSignal: shell.closeSignal,
    });
  }

  /** Modern era: the `subscriptions/listen` stream, once the client is ready. */
  listen(): void {
    const session = this.#connected?.session;
    if (session?.era !== 'modern') return;
    this.#listen = new ModernSubscriptions(
      (filter, signal) =>
        this.#send(
          McpMethod.SubscriptionsListen,
          { notifications: filter },
          { signal, timeoutMs: Infinity, maxTotalTimeoutMs: Infinity },
        ),
      session.capabilities,
      this.#shell.logger,
      this.serverName,
    );
    this.#listen.start();
  }

  /**
   * Stops the `subscriptions/listen` stream and the list refetches (the client is closing or lost
   * its connection).
   */
  stopListening(): void {
    this.#listen?.close();
    this.#events.close();
  }

  /** Stops listening to the peers this client made (the client closed). */
  detach(): void {
    for (const subscription of this.#subscriptions) subscription.dispose();
  }

  /** Wires a freshly made peer (a fallback replaces the first): notifications, requests, close. */
  #attach(peer: JsonRpcPeer): void {
    this.#peer = peer;
    this.detach();
    const shell = this.#shell;
    this.#subscriptions = [
      ...this.#input.registerLegacyHandlers(peer),
      ...this.#events.attach(peer),
      this.#connection.attach(peer),
      peer.onClose((reason) => {
        if (this.#connected?.peer === peer) shell.closed(reason);
      }),
    ];
  }

  // ---- primitives -------------------------------------------------------------------------

  async listTools(options: { signal?: AbortSignal }): Promise<ToolListing> {
    const listing = await this.#listTools(options.signal);
    this.#events.tools.seed(listing.tools);
    return listing;
  }

  async #listTools(signal: AbortSignal | undefined): Promise<ToolListing> {
    const { items: listed, ...hints } = await this.#list<Tool>(
      McpMethod.ToolsList,
      'tools',
      signal,
    );
    const { items: tools, excluded } = this.#tools.accept(listed);
    for (const { name, reason } of excluded)
      this.#shell.logger.warn(aboutServer(this.serverName, `excluded tool '${name}': ${reason}`));
    return { tools, excluded, ...hints };
  }

  callTool(name: string, args: JsonObject, options: CallOptions): Promise<Answer> {
    const serverName = this.serverName;
    // Sync for all but the first call of a tool with an outputSchema (compiled before sending).
    const refusal = this.#tools.refusal(name);
    if (refusal !== undefined) {
      const refuse = (excluded: string) =>
        Promise.reject(excludedToolError(serverName, name, excluded));
      if (typeof refusal === 'string') return refuse(refusal);
      return refusal.then((excluded) =>
        excluded === undefined ? this.callTool(name, args, options) : refuse(excluded),
      );
    }
    // A task only where the caller accepts one and the server may answer one.
    const extensions =
      options.task === true && this.tasks.supported ? { ...TASK_EXTENSIONS } : undefined;
    // One `.then` on the hot path; the schema check (async, lazily loaded) only for tools that
    // declare an outputSchema.
    return this.request<CallToolResult>(
      McpMethod.ToolsCall,
      { name, arguments: args },
      options,
      extensions,
    ).then(
      (result) => this.#checkedResult(name, result, extensions !== undefined),
      (error: unknown) => this.#afterCallError(error, name, args, options, extensions),
    );
  }

  #checkedResult(
    name: string,
    result: CallToolResult,
    taskAccepted: boolean,
  ): Answer | Promise<Answer> {
    if (taskAccepted && isCreateTaskResult(result)) return result;
    if (!isObject(result) || !Array.isArray(result.content)) {
      throw new McpHostError('PROTOCOL_VIOLATION', `malformed result from tool '${name}'`, {
        serverName: this.serverName,
        method: McpMethod.ToolsCall,
        tool: name,
      });
    }
    return this.#tools.check(name, result);
  }

  /**
   * HeaderMismatch: the tool's x-mcp-header annotations changed (or were never listed), so the
   * Mcp-Param-* headers were wrong. Relist, as the spec advises, and try once more. Any other
   * error is the call's.
   */
  async #afterCallError(
    error: unknown,
    name: string,
    args: JsonObject,
    options: CallOptions,
    extensions: Record<string, JsonObject> | undefined,
  ): Promise<Answer> {
    if (!(error instanceof JsonRpcError) || error.code !== McpErrorCode.HeaderMismatch) throw error;
    if (!this.#tools.checksHeaderAnnotations) throw error;
    this.#shell.logger.info(
      aboutServer(this.serverName, `tool '${name}': header mismatch; relisting tools and retrying`),
    );
    await this.#listTools(options.signal);
    const result = await this.request<CallToolResult>(
      McpMethod.ToolsCall,
      { name, arguments: args },
      options,
      extensions,
    );
    return this.#checkedResult(name, result, extensions !== undefined);
  }

  async listResources(options: { signal?: AbortSignal }): Promise<ResourceListing> {
    const { items: resources, ...hints } = await this.#list<Resource>(
      McpMethod.ResourcesList,
      'resources',
      options.signal,
    );
    this.#events.resources.seed(resources);
    return { resources, ...hints };
  }

  async listResourceTemplates(options: { signal?: AbortSignal }): Promise<ResourceTemplateListing> {
    const { items: resourceTemplates, ...hints } = await this.#list<ResourceTemplate>(
      McpMethod.ResourceTemplatesList,
      'resourceTemplates',
      options.signal,
    );
    return { resourceTemplates, ...hints };
  }

  readResource(uri: string, options: CallOptions): Promise<ReadResourceResult> {
    return this.request<ReadResourceResult>(McpMethod.ResourcesRead, { uri }, options);
  }

  subscribeResource(uri: string, options: { signal?: AbortSignal }): Promise<void> {
    return this.#subscription(uri, true, options);
  }

  unsubscribeResource(uri: string, options: { signal?: AbortSignal }): Promise<void> {
    return this.#subscription(uri, false, options);
  }

  /** Legacy: `resources/(un)subscribe`. Modern: the URI joins or leaves the listen stream's filter. */
  async #subscription(
    uri: string,
    subscribe: boolean,
    options: { signal?: AbortSignal },
  ): Promise<void> {
    this.#require(
      this.session?.capabilities.resources?.subscribe === true,
      'resource subscriptions',
    );
    const listen = this.#listen;
    if (listen !== undefined) {
      if (subscribe) listen.subscribe(uri);
      else listen.unsubscribe(uri);
      return;
    }
    const method = subscribe ? McpMethod.ResourcesSubscribe : McpMethod.ResourcesUnsubscribe;
    await this.request(method, { uri }, options);
  }

  async listPrompts(options: { signal?: AbortSignal }): Promise<PromptListing> {
    const { items: prompts, ...hints } = await this.#list<Prompt>(
      McpMethod.PromptsList,
      'prompts',
      options.signal,
    );
    this.#events.prompts.seed(prompts);
    return { prompts, ...hints };
  }

  getPrompt(
    name: string,
    args: Record<string, string>,
    options: CallOptions,
  ): Promise<GetPromptResult> {
    return this.request<GetPromptResult>(McpMethod.PromptsGet, { name, arguments: args }, options);
  }

  complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context: { arguments?: Record<string, string> },
    options: { signal?: AbortSignal },
  ): Promise<CompleteResult> {
    const params: JsonObject = { ref, argument };
    if (context.arguments !== undefined) params.context = { arguments: context.arguments };
    return this.request<CompleteResult>(McpMethod.Complete, params, options);
  }

  // ---- skills (the io.modelcontextprotocol/skills extension, SEP-2640) ----------------------

  get supportsSkills(): boolean {
    return isObject(this.session?.capabilities.extensions?.[SKILLS_EXTENSION]);
  }

  async listSkills(options: { signal?: AbortSignal }): Promise<SkillListing> {
    this.#require(this.supportsSkills, `the skills extension (${SKILLS_EXTENSION})`);
    const { items, ...hints } = await this.#list<unknown>(
      McpMethod.SkillsList,
      'skills',
      options.signal,
    );
    return { ...skillEntriesOf(items, this.serverName, this.#shell.logger), ...hints };
  }

  get supportsSkillDirectoryRead(): boolean {
    const settings = this.session?.capabilities.extensions?.[SKILLS_EXTENSION];
    return isObject(settings) && settings.directoryRead === true;
  }

  async readSkillDirectory(
    uri: string,
    options: { cursor?: string; signal?: AbortSignal; timeoutMs?: number },
  ): Promise<SkillDirectoryPage> {
    const what = `skill directory reads (${SKILLS_EXTENSION} directoryRead)`;
    this.#require(this.supportsSkillDirectoryRead, what);
    const { cursor, ...call } = options;
    const params = cursor === undefined ? { uri } : { uri, cursor };
    const page = await this.request<unknown>(McpMethod.ResourcesDirectoryRead, params, call);
    return skillDirectoryPageOf(page, uri, this.serverName);
  }

  async getSkill(uri: string, options: CallOptions): Promise<SkillEntry> {
    this.#require(this.supportsSkills, `the skills extension (${SKILLS_EXTENSION})`);
    const result = await this.request<JsonObject>(McpMethod.SkillsGet, { uri }, options);
    return skillGetEntry(result, uri, this.serverName);
  }

  async loadSkill(skill: string | SkillEntry, options: LoadSkillOptions): Promise<LoadedSkill> {
    const entry =
      typeof skill === 'string'
        ? await this.getSkill(skill, options)
        : callerSkillEntry(skill, this.serverName);
    const { loadSkill } = await import('./skills/load-skill.js');
    return loadSkill(
      (uri, call) => this.readResource(uri, call),
      entry,
      { serverName: this.serverName },
      options,
    );
  }

  readSkillFile(
    entry: SkillEntry,
    uri: string,
    options: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<SkillFile> {
    const checked = callerSkillEntry(entry, this.serverName);
    const read = (file: string, call: CallOptions) => this.readResource(file, call);
    const about = { serverName: this.serverName };
    return import('./skills/load-skill.js').then((skills) =>
      skills.readSkillFile(read, checked, uri, about, options),
    );
  }

  async setLoggingLevel(level: LoggingLevel, options: { signal?: AbortSignal }): Promise<void> {
    if (this.#requests !== undefined) this.#requests.logLevel = level;
    if (this.session?.era === 'legacy')
      await this.request(McpMethod.LoggingSetLevel, { level }, options);
  }

  async ping(options: { signal?: AbortSignal; timeoutMs?: number }): Promise<void> {
    await this.request(
      this.session?.era === 'modern' ? McpMethod.Discover : McpMethod.Ping,
      undefined,
      options,
    );
  }

  notifyRootsChanged(): void {
    if (this.session?.era !== 'legacy') return;
    const peer = this.#connected?.peer;
    if (peer === undefined || !this.#shell.ready()) throw this.#shell.notReady();
    peer.notify(McpMethod.RootsListChanged);
  }

  // ---- plumbing ---------------------------------------------------------------------------

  #list<T>(
    method: string,
    key: string,
    signal: AbortSignal | undefined,
  ): Promise<{ items: T[] } & CacheHints> {
    const fetchPage = (cursor: string | undefined): Promise<JsonObject> =>
      this.request<JsonObject>(method, cursor === undefined ? {} : { cursor }, { signal });
    const maxPages = this.#shell.options.maxPages ?? DEFAULT_CLIENT_OPTIONS.maxPages;
    return collectPages<T>(fetchPage, key, maxPages, { method, serverName: this.serverName });
  }

  /** One request with the call options applied; in a span with `telemetry` (`tracedRequest`). */
  request<T>(
    method: string,
    params: JsonObject | undefined,
    options: CallOptions,
    extensions?: Record<string, JsonObject>, // declared in the request's `_meta` (modern era)
    traced = this.#shell.options.telemetry === undefined,
  ): Promise<T> {
    const clientOptions = this.#shell.options;
    if (!traced)
      return tracedRequest(clientOptions.telemetry!, this, method, params, options, (sent) =>
        this.request<T>(method, sent, options, extensions, true),
      );
    const own =
      extensions !== undefined || options.input !== undefined || options.resume !== undefined
        ? { input: options.input, resume: options.resume, extensions }
        : undefined;
    return this.#send<T>(
      method,
      params,
      {
        signal: options.signal,
        timeoutMs: options.timeoutMs ?? clientOptions.requestTimeoutMs,
        onProgress: options.onProgress as ((params: unknown) => void) | undefined,
      },
      own,
    );
  }

  #send<T>(
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions,
    own?: RequestInput,
  ): Promise<T> {
    const requests = this.#requests;
    if (requests === undefined || !this.#shell.ready())
      return Promise.reject(this.#shell.notReady());
    // stdio and in-memory: the era request itself, nothing wrapped around the hot path.
    if (this.#remote === undefined) return requests.request<T>(method, params, options, own);
    return this.#remote.request<T>(method, params, options, own);
  }

  #require(condition: boolean, what: string): void {
    if (!condition) {
      throw new McpHostError('CAPABILITY_NOT_SUPPORTED', `the server does not support ${what}`, {
        serverName: this.serverName,
      });
    }
  }
}
