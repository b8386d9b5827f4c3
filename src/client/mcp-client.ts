import { JsonRpcError } from '../errors/json-rpc-error.js';
import { aboutServer, McpHostError, withoutServerName } from '../errors/mcp-host-error.js';
import type { Disposable } from '../internal/disposable.js';
import { Emitter } from '../internal/emitter.js';
import { silentLogger, type Logger } from '../internal/logger.js';
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
import type { ProtocolEra } from '../protocol/versions.js';
import {
  DEFAULT_CLIENT_OPTIONS,
  type CallOptions,
  type McpClientOptions,
  type McpClientState,
  type PromptListing,
  type ResourceListing,
  type ResourceTemplateListing,
  type ToolCallParams,
  type ToolListing,
} from './client-options.js';
import { ClientTasks, TASK_EXTENSIONS } from './client-tasks.js';
import { startTransportEarly } from './early-transport.js';
import type { EraRequests, RequestInput } from './era-requests.js';
import { excludedToolError, ListedTools } from './listed-tools.js';
import type { ModernSubscriptions } from './modern-subscriptions.js';
import { loadSessionCode, type SessionCode } from './session-code.js';
import { ConnectionStats } from './connection-stats.js';
import type { ConnectedPeer, Session } from './open-session.js';
import { collectPages } from './pagination.js';
import type { RemoteRequests } from './remote-requests.js';
import { ServerEvents } from './server-events.js';
import { ServerInput } from './server-input.js';
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

/** Options of a call that accepts no task, and what one that may accept one resolves with. */
type NoTask = CallOptions & { task?: false };
type Answer = CallToolResult | CreateTaskResult;

/**
 * One MCP server, whichever era it speaks. `connect()` detects the era (or uses a pinned or
 * cached one), opens the session, and from then on every call carries what its era needs:
 * nothing extra for legacy servers, `_meta` on every request for modern ones, with
 * `input_required` results answered through the same handlers that serve legacy server requests.
 * See docs/eras.md and docs/lifecycle.md.
 */
export class McpClient implements AsyncDisposable {
  readonly serverName: string | undefined;
  /**
   * The server's tasks (the tasks extension, SEP-2663): `get`, `update` and `cancel` a task a
   * `callTool(..., { task: true })` answered with (see `ClientTasks`).
   */
  readonly tasks: ClientTasks;
  readonly #options: McpClientOptions;
  readonly #logger: Logger;
  readonly #input: ServerInput;
  readonly #clientInfo: Implementation;
  readonly #closeEmitter = new Emitter<McpHostError | undefined>();
  readonly #events: ServerEvents;
  readonly #connection: ConnectionStats;
  /** What the last tool listing said: usable tools, excluded ones, header parameters. */
  readonly #tools: ListedTools;
  #state: McpClientState = 'new';
  #connected: ConnectedPeer | undefined;
  /** The last peer made (while connecting too): what `close()` closes and waits for. */
  #peer: JsonRpcPeer | undefined;
  /** Why the client closed on its own (a crash, a failed connect): the cause of later refusals. */
  #closeReason: unknown;
  /** The session's requests, in its era (set once connected). */
  #requests: EraRequests | undefined;
  /** Over HTTP (transports that carry headers): the retry and recovery policy around them. */
  #remote: RemoteRequests | undefined;
  #connecting: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #logLevel: LoggingLevel | undefined;
  #subscriptions: Disposable[] = [];
  #listen: ModernSubscriptions | undefined;
  /**
   * Aborted as soon as the client starts closing or loses its connection; a connect under way
   * listens to it too, so that `close()` gives the connect up at once.
   */
  readonly #closeController = new AbortController();

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
  /**
   * Something the server sent was thrown away: a response nobody waits for (an id never used, or a
   * duplicate or late answer), JSON that is not JSON-RPC, a line that is not JSON, a message over
   * `maxMessageBytes`. Reports of junk and of unknown and late responses are rate-limited; `stats`
   * counts every one.
   */
  readonly onDiscarded;

  constructor(options: McpClientOptions) {
    this.#options = options;
    this.serverName = options.serverName;
    this.#logger = options.logger ?? silentLogger;
    // The default validator is made by connect(), with the session's code (nothing is listed
    // before the session opens).
    this.#tools = new ListedTools(options.schemaValidator || undefined);
    this.#input = new ServerInput(options.handlers ?? {}, options.serverName);
    this.#clientInfo = options.clientInfo ?? DEFAULT_CLIENT_OPTIONS.clientInfo;
    this.#logLevel = options.logLevel;
    this.#events = new ServerEvents(
      {
        tools: async () => (await this.#listTools(undefined)).tools,
        resources: async () =>
          (await this.#list<Resource>(McpMethod.ResourcesList, 'resources', undefined)).items,
        prompts: async () =>
          (await this.#list<Prompt>(McpMethod.PromptsList, 'prompts', undefined)).items,
      },
      options.listChangedDebounceMs ?? DEFAULT_CLIENT_OPTIONS.listChangedDebounceMs,
      this.#logger,
      options.serverName,
    );
    this.onLogMessage = this.#events.log.event;
    this.onResourceUpdated = this.#events.resourceUpdated.event;
    this.onToolsChanged = this.#events.tools.onChange;
    this.onResourcesChanged = this.#events.resources.onChange;
    this.onPromptsChanged = this.#events.prompts.onChange;
    this.#connection = new ConnectionStats(this.#logger, options.serverName);
    this.onDiscarded = this.#connection.discarded.event;
    this.tasks = new ClientTasks({
      serverName: options.serverName,
      session: () => this.session,
      request: (method, params, requestOptions, extensions) =>
        this.#request(method, params, requestOptions, extensions),
    });
  }

  get state(): McpClientState {
    return this.#state;
  }
  /** What the session learnt: era, version, server info, capabilities, instructions. */
  get session(): Readonly<Session> | undefined {
    return this.#connected?.session;
  }
  get era(): ProtocolEra | undefined {
    return this.#connected?.session.era;
  }
  /**
   * What the client sent, received and discarded, over every connection it opened (a copy; the
   * counters only grow): requests and notifications both ways, and what was thrown away
   * (`unknownResponses`, `lateResponses`, `invalidMessages`, `junkMessages`, `oversizedMessages`).
   */
  get stats(): PeerStats {
    return this.#connection.stats;
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
      throw new McpHostError('INVALID_ARGUMENT', 'connect() after close', {
        serverName: this.serverName,
        cause: this.#closeReason,
      });
    this.#state = 'connecting';
    // The caller's signal or close(), whichever comes first, gives the connect up.
    const linked = linkSignals(signal, this.#closeController.signal);
    // A local server's process first, then the session's code, loaded while the server starts.
    const early = linked.signal.aborted
      ? undefined
      : startTransportEarly(this.#options.transport, this.serverName, this.#logger);
    try {
      await early?.made;
      const code = await loadSessionCode();
      if (this.#options.schemaValidator === undefined)
        this.#tools.validator = code.createSchemaValidator();
      const connected = await code.openSession({
        options:
          early === undefined ? this.#options : { ...this.#options, transport: early.transport },
        clientInfo: this.#clientInfo,
        input: this.#input,
        signal: linked.signal,
        attach: (peer) => this.#attach(peer),
        requestHeaders: this.#tools.requestHeaders,
        logger: this.#logger,
      });
      this.#connected = connected;
      if (this.#state !== 'connecting') {
        await connected.peer.close();
        throw new McpHostError('CONNECTION_CLOSED', 'closed while connecting', {
          serverName: this.serverName,
        });
      }
      this.#startRequests(connected, code);
      this.#state = 'ready';
      const { session } = connected;
      if (session.era === 'modern') {
        this.#listen = new code.ModernSubscriptions(
          (filter, signal) =>
            this.#send(
              McpMethod.SubscriptionsListen,
              { notifications: filter },
              { signal, timeoutMs: Infinity, maxTotalTimeoutMs: Infinity },
            ),
          session.capabilities,
          this.#logger,
          this.serverName,
        );
        this.#listen.start();
      }
      if (
        session.era === 'legacy' &&
        this.#logLevel !== undefined &&
        session.capabilities.logging !== undefined
      ) {
        await this.setLoggingLevel(this.#logLevel);
      }
    } catch (error) {
      if (this.#state === 'connecting') {
        this.#state = 'closed';
        // A connect given up by close() is no reason to report: the caller closed.
        if (this.#closing === undefined) this.#closeReason = error;
      }
      throw error;
    } finally {
      linked.cleanup();
      await early?.closeIfUnclaimed();
    }
  }

  /** The requests of the open session, and over HTTP the policy around them. */
  #startRequests({ peer, transport, session }: ConnectedPeer, code: SessionCode): void {
    const closeSignal = this.#closeController.signal;
    const requests = new code.EraRequests(
      {
        peer,
        transport,
        session,
        input: this.#input,
        clientInfo: this.#clientInfo,
        maxInputRounds: this.#options.maxInputRounds ?? DEFAULT_CLIENT_OPTIONS.maxInputRounds,
        serverName: this.serverName,
        closeSignal,
      },
      this.#logLevel,
    );
    this.#requests = requests;
    // Transports that carry headers (HTTP): annotated tool parameters are mirrored into headers,
    // and requests get the HTTP retry and session-recovery policy.
    const carriesHeaders = typeof transport.setRequestHeaders === 'function';
    this.#tools.checkHeaderAnnotations = carriesHeaders;
    if (!carriesHeaders) return;
    this.#remote = new code.RemoteRequests({
      requests,
      recovery:
        session.era === 'legacy'
          ? new code.SessionRecovery({
              peer,
              transport,
              session,
              clientInfo: this.#clientInfo,
              capabilities: this.#input.capabilities,
              serverName: this.serverName,
              timeoutMs: this.#options.connectTimeoutMs ?? DEFAULT_CLIENT_OPTIONS.connectTimeoutMs,
              closeSignal,
            })
          : undefined,
      clientOptions: this.#options,
      logger: this.#logger,
      serverName: this.serverName,
      closeSignal,
    });
  }

  /** Wires a freshly made peer (a fallback replaces the first): notifications, requests, close. */
  #attach(peer: JsonRpcPeer): void {
    this.#peer = peer;
    for (const subscription of this.#subscriptions) subscription.dispose();
    this.#subscriptions = [
      ...this.#input.registerLegacyHandlers(peer),
      ...this.#events.attach(peer),
      this.#connection.attach(peer),
      peer.onClose((reason) => this.#onPeerClosed(peer, reason)),
    ];
  }

  #onPeerClosed(peer: JsonRpcPeer, reason: McpHostError | undefined): void {
    if (this.#connected?.peer !== peer || this.#state === 'closed') return;
    this.#state = 'closed';
    this.#closeReason = reason;
    this.#shutdownWatchers(reason);
    this.#closeEmitter.fire(reason);
    this.#closeEmitter.clear();
  }

  // ---- primitives -------------------------------------------------------------------------

  /**
   * Every tool, all pages (so there is no `nextCursor`); tools with unusable definitions are left
   * out and named in `excluded`.
   */
  async listTools(options: { signal?: AbortSignal } = {}): Promise<ToolListing> {
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
      this.#logger.warn(aboutServer(this.serverName, `excluded tool '${name}': ${reason}`));
    return { tools, excluded, ...hints };
  }

  /**
   * Calls a tool: `callTool(name, args?, options?)`, or `callTool({ name, arguments }, options?)` as
   * the official SDK takes it. A result with `isError: true` is returned (it is data for the
   * model), and so is `structuredContent` that does not match the tool's `outputSchema` (as an
   * error result); only protocol, transport and timeout failures reject. Over HTTP, a
   * HeaderMismatch (-32020: the tool's `x-mcp-header` annotations changed) relists the tools and
   * tries once more.
   */
  callTool(name: string, args?: JsonObject, options?: NoTask): Promise<CallToolResult>;
  callTool(name: string, args: JsonObject | undefined, options: CallOptions): Promise<Answer>;
  callTool(params: ToolCallParams, options?: NoTask): Promise<CallToolResult>;
  callTool(params: ToolCallParams, options: CallOptions): Promise<Answer>;
  callTool(
    nameOrParams: string | ToolCallParams,
    argsOrOptions?: JsonObject | CallOptions,
    maybeOptions?: CallOptions,
  ): Promise<Answer> {
    if (typeof nameOrParams === 'string')
      return this.#callTool(
        nameOrParams,
        (argsOrOptions as JsonObject | undefined) ?? {},
        maybeOptions ?? {},
      );
    return this.#callTool(
      nameOrParams.name,
      nameOrParams.arguments ?? {},
      (argsOrOptions as CallOptions | undefined) ?? {},
    );
  }

  #callTool(name: string, args: JsonObject, options: CallOptions): Promise<Answer> {
    const serverName = this.serverName;
    // Sync for all but the first call of a tool with an outputSchema (compiled before sending).
    const refusal = this.#tools.refusal(name);
    if (refusal !== undefined) {
      const refuse = (excluded: string) =>
        Promise.reject(excludedToolError(serverName, name, excluded));
      if (typeof refusal === 'string') return refuse(refusal);
      return refusal.then((excluded) =>
        excluded === undefined ? this.#callTool(name, args, options) : refuse(excluded),
      );
    }
    // A task only where the caller accepts one and the server may answer one.
    const extensions =
      options.task === true && this.tasks.supported ? { ...TASK_EXTENSIONS } : undefined;
    // One `.then` on the hot path; the schema check (async, lazily loaded) only for tools that
    // declare an outputSchema.
    return this.#request<CallToolResult>(
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
    this.#logger.info(
      aboutServer(this.serverName, `tool '${name}': header mismatch; relisting tools and retrying`),
    );
    await this.#listTools(options.signal);
    const result = await this.#request<CallToolResult>(
      McpMethod.ToolsCall,
      { name, arguments: args },
      options,
      extensions,
    );
    return this.#checkedResult(name, result, extensions !== undefined);
  }

  /** Every resource, all pages. */
  async listResources(options: { signal?: AbortSignal } = {}): Promise<ResourceListing> {
    const { items: resources, ...hints } = await this.#list<Resource>(
      McpMethod.ResourcesList,
      'resources',
      options.signal,
    );
    this.#events.resources.seed(resources);
    return { resources, ...hints };
  }

  /** Every resource template, all pages. */
  async listResourceTemplates(
    options: { signal?: AbortSignal } = {},
  ): Promise<ResourceTemplateListing> {
    const { items: resourceTemplates, ...hints } = await this.#list<ResourceTemplate>(
      McpMethod.ResourceTemplatesList,
      'resourceTemplates',
      options.signal,
    );
    return { resourceTemplates, ...hints };
  }

  readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    return this.#request<ReadResourceResult>(McpMethod.ResourcesRead, { uri }, options);
  }

  /**
   * Subscribes to a resource's updates, which arrive as `onResourceUpdated`. Legacy:
   * `resources/subscribe`. Modern: the URI joins the `subscriptions/listen` stream's filter.
   */
  async subscribeResource(uri: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#require(
      this.session?.capabilities.resources?.subscribe === true,
      'resource subscriptions',
    );
    if (this.#listen !== undefined) this.#listen.subscribe(uri);
    else await this.#request(McpMethod.ResourcesSubscribe, { uri }, options);
  }

  async unsubscribeResource(uri: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#require(
      this.session?.capabilities.resources?.subscribe === true,
      'resource subscriptions',
    );
    if (this.#listen !== undefined) this.#listen.unsubscribe(uri);
    else await this.#request(McpMethod.ResourcesUnsubscribe, { uri }, options);
  }

  /** Every prompt, all pages. */
  async listPrompts(options: { signal?: AbortSignal } = {}): Promise<PromptListing> {
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
    args: Record<string, string> = {},
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    return this.#request<GetPromptResult>(McpMethod.PromptsGet, { name, arguments: args }, options);
  }

  complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context: { arguments?: Record<string, string> } = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<CompleteResult> {
    const params: JsonObject = { ref, argument };
    if (context.arguments !== undefined) params.context = { arguments: context.arguments };
    return this.#request<CompleteResult>(McpMethod.Complete, params, options);
  }

  // ---- skills (the io.modelcontextprotocol/skills extension, SEP-2640) ----------------------

  /**
   * Whether the server declared the skills extension (in `capabilities.extensions` of its
   * `initialize` result, or of `server/discover`). Only then are `skills/list` and `skills/get`
   * sent.
   */
  get supportsSkills(): boolean {
    return isObject(this.session?.capabilities.extensions?.[SKILLS_EXTENSION]);
  }

  /**
   * Every skill the server lists (all pages, at most `maxPages`): entries only, no file is read.
   * Invalid entries are left out and named in `excluded`. Fails with CAPABILITY_NOT_SUPPORTED,
   * sending nothing, when the server did not declare the extension.
   */
  async listSkills(options: { signal?: AbortSignal } = {}): Promise<SkillListing> {
    this.#require(this.supportsSkills, `the skills extension (${SKILLS_EXTENSION})`);
    const { items, ...hints } = await this.#list<unknown>(
      McpMethod.SkillsList,
      'skills',
      options.signal,
    );
    return { ...skillEntriesOf(items, this.serverName, this.#logger), ...hints };
  }

  /**
   * Whether the server declared `directoryRead` in its skills extension settings: only then is
   * `resources/directory/read` sent.
   */
  get supportsSkillDirectoryRead(): boolean {
    const settings = this.session?.capabilities.extensions?.[SKILLS_EXTENSION];
    return isObject(settings) && settings.directoryRead === true;
  }

  /**
   * One page of a skill directory's direct children (`resources/directory/read`, the skills
   * extension's `directoryRead`): pass the page's `nextCursor` as `cursor` for the next. Fails
   * with CAPABILITY_NOT_SUPPORTED, sending nothing, when the server did not declare
   * `directoryRead`; a URI that is not a directory is the server's -32602.
   */
  async readSkillDirectory(
    uri: string,
    options: { cursor?: string; signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<SkillDirectoryPage> {
    const what = `skill directory reads (${SKILLS_EXTENSION} directoryRead)`;
    this.#require(this.supportsSkillDirectoryRead, what);
    const { cursor, ...call } = options;
    const params = cursor === undefined ? { uri } : { uri, cursor };
    const page = await this.#request<unknown>(McpMethod.ResourcesDirectoryRead, params, call);
    return skillDirectoryPageOf(page, uri, this.serverName);
  }

  /** The entry of one skill by its `SKILL.md` URI (`skills/get`); no file is read. */
  async getSkill(uri: string, options: CallOptions = {}): Promise<SkillEntry> {
    this.#require(this.supportsSkills, `the skills extension (${SKILLS_EXTENSION})`);
    const result = await this.#request<JsonObject>(McpMethod.SkillsGet, { uri }, options);
    return skillGetEntry(result, uri, this.serverName);
  }

  /**
   * Loads a skill when it is used (never earlier: listing reads no file): from the entry given
   * (as `listSkills` returned it), or by URI, whose entry `skills/get` fetches first. The entry's
   * limits are checked before any read, then `SKILL.md` is read and its size, digest and
   * frontmatter verified, then each supporting file (unless `files: 'skill-md'`). A failure is a
   * SKILL_VERIFICATION_FAILED or SKILL_TOO_LARGE error naming the server, the skill and what did
   * not match; unverified content is never returned. See docs/agents.md (Skills).
   */
  async loadSkill(
    skill: string | SkillEntry,
    options: LoadSkillOptions = {},
  ): Promise<LoadedSkill> {
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

  /**
   * Reads one file of a skill and verifies it against the entry (the one the skill was loaded
   * from): a file the entry does not list is refused (SKILL_VERIFICATION_FAILED, `unlisted`).
   */
  readSkillFile(
    entry: SkillEntry,
    uri: string,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<SkillFile> {
    const checked = callerSkillEntry(entry, this.serverName);
    const read = (file: string, call: CallOptions) => this.readResource(file, call);
    const about = { serverName: this.serverName };
    return import('./skills/load-skill.js').then((skills) =>
      skills.readSkillFile(read, checked, uri, about, options),
    );
  }

  /** Legacy: `logging/setLevel`. Modern: the level rides on every later request's `_meta`. */
  async setLoggingLevel(
    level: LoggingLevel,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    this.#logLevel = level;
    if (this.#requests !== undefined) this.#requests.logLevel = level;
    if (this.era === 'legacy') await this.#request(McpMethod.LoggingSetLevel, { level }, options);
  }

  /** A liveness check that bypasses every cache: `ping` (legacy) or `server/discover` (modern). */
  async ping(options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<void> {
    await this.#request(
      this.era === 'modern' ? McpMethod.Discover : McpMethod.Ping,
      undefined,
      options,
    );
  }

  /** Tells a legacy server the client's roots changed (modern servers ask again when they need them). */
  notifyRootsChanged(): void {
    if (this.era !== 'legacy') return;
    const peer = this.#connected?.peer;
    if (peer === undefined || this.#state !== 'ready') throw this.#notReady();
    peer.notify(McpMethod.RootsListChanged);
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * Refuses new work and gives up a connect under way at once (never waiting out its timeout),
   * then closes the connection: over stdio the shutdown ladder, bounded by its own graces. A
   * connect that failed or was abandoned may have left its process closing: that is waited for
   * too, so when `close()` resolves the server's process tree is gone.
   */
  async #close(): Promise<void> {
    if (this.#state === 'connecting') {
      this.#shutdownWatchers(
        new McpHostError('CONNECTION_CLOSED', 'closed while connecting', {
          serverName: this.serverName,
        }),
      );
      await this.#connecting?.catch(() => {});
    }
    const peer = this.#peer;
    if (this.#state !== 'closed') this.#state = 'closing';
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
          new McpHostError('CONNECTION_CLOSED', 'the client closed', {
            serverName: this.serverName,
          }),
      );
    }
    this.#events.close();
    this.#connection.close();
    this.#listen?.close();
  }

  // ---- plumbing ---------------------------------------------------------------------------

  #list<T>(
    method: string,
    key: string,
    signal: AbortSignal | undefined,
  ): Promise<{ items: T[] } & CacheHints> {
    const fetchPage = (cursor: string | undefined): Promise<JsonObject> =>
      this.#request<JsonObject>(method, cursor === undefined ? {} : { cursor }, { signal });
    const maxPages = this.#options.maxPages ?? DEFAULT_CLIENT_OPTIONS.maxPages;
    return collectPages<T>(fetchPage, key, maxPages, { method, serverName: this.serverName });
  }

  /** One request with the call options applied; in a span with `telemetry` (`tracedRequest`). */
  #request<T>(
    method: string,
    params: JsonObject | undefined,
    options: CallOptions,
    extensions?: Record<string, JsonObject>, // declared in the request's `_meta` (modern era)
    traced = this.#options.telemetry === undefined,
  ): Promise<T> {
    if (!traced)
      return tracedRequest(this.#options.telemetry!, this, method, params, options, (sent) =>
        this.#request<T>(method, sent, options, extensions, true),
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
        timeoutMs: options.timeoutMs ?? this.#options.requestTimeoutMs,
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
    if (requests === undefined || this.#state !== 'ready') return Promise.reject(this.#notReady());
    // stdio and in-memory: the era request itself, nothing wrapped around the hot path.
    if (this.#remote === undefined) return requests.request<T>(method, params, options, own);
    return this.#remote.request<T>(method, params, options, own);
  }

  /**
   * The refusal of work while not ready; once the client closed on its own (a crash, a failed
   * connect), it names why, briefly, and carries that error as its `cause`.
   */
  #notReady(): McpHostError {
    const reason = this.#closeReason;
    const serverName = this.serverName;
    const why = !(reason instanceof Error)
      ? ''
      : `: ${serverName === undefined ? reason.message : withoutServerName(serverName, reason.message)}`;
    return new McpHostError(
      this.#state === 'new' ? 'NOT_CONNECTED' : 'CONNECTION_CLOSED',
      `the client is ${this.#state}${why}`,
      { serverName: this.serverName, cause: reason },
    );
  }

  #require(condition: boolean, what: string): void {
    if (!condition) {
      throw new McpHostError('CAPABILITY_NOT_SUPPORTED', `the server does not support ${what}`, {
        serverName: this.serverName,
      });
    }
  }
}
