import { aboutServer, McpHostError, withoutServerName } from '../errors/mcp-host-error.js';
import { Emitter } from '../internal/emitter.js';
import { silentLogger, type Logger } from '../internal/logger.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { zeroPeerStats, type DiscardEvent, type PeerStats } from '../jsonrpc/peer-options.js';
import type {
  CallToolResult,
  CompleteResult,
  CompletionReference,
  CreateTaskResult,
  DetailedTask,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  LoggingMessageParams,
  Prompt,
  ReadResourceResult,
  Resource,
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
import type { TaskRequests } from './client-tasks.js';
import type { ClientShell, ConnectedClient } from './connected-client.js';
import { startTransportEarly } from './early-transport.js';
import type { ListChange } from './list-watcher.js';
import type { Session } from './open-session.js';
import type { ClientEmitters } from './server-events.js';
import { loadSessionCode } from './session-code.js';
import type { LoadedSkill, LoadSkillOptions, SkillFile } from './skills/load-skill.js';
import type { SkillDirectoryPage, SkillEntry, SkillListing } from './skills/skill-entry.js';

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
  readonly #clientInfo: Implementation;
  readonly #closeEmitter = new Emitter<McpHostError | undefined>();
  /** The events below; the session side fires them (made when its code has loaded). */
  readonly #emitters: ClientEmitters;
  #state: McpClientState = 'new';
  /**
   * The session side, from the first connect on (made with the session's code, which loads while
   * a local server starts): the session, the requests, the listings.
   */
  #session: ConnectedClient | undefined;
  /** Why the client closed on its own (a crash, a failed connect): the cause of later refusals. */
  #closeReason: unknown;
  #connecting: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #logLevel: LoggingLevel | undefined;
  /**
   * Aborted as soon as the client starts closing or loses its connection; a connect under way
   * listens to it too, so that `close()` gives the connect up at once.
   */
  readonly #closeController = new AbortController();

  /** Fires once when the connection is gone: with the reason, or undefined after `close()`. */
  readonly onClose = this.#closeEmitter.event;
  /** Log messages the server sends (rate-limited per server). */
  readonly onLogMessage: Emitter<LoggingMessageParams>['event'];
  /** A subscribed resource changed. */
  readonly onResourceUpdated: Emitter<{ uri: string }>['event'];
  /** The tool list changed: refetched after a debounce, with what was added, removed and changed. */
  readonly onToolsChanged: Emitter<ListChange<Tool>>['event'];
  readonly onResourcesChanged: Emitter<ListChange<Resource>>['event'];
  readonly onPromptsChanged: Emitter<ListChange<Prompt>>['event'];
  /**
   * Something the server sent was thrown away: a response nobody waits for (an id never used, or a
   * duplicate or late answer), JSON that is not JSON-RPC, a line that is not JSON, a message over
   * `maxMessageBytes`. Reports of junk and of unknown and late responses are rate-limited; `stats`
   * counts every one.
   */
  readonly onDiscarded: Emitter<DiscardEvent>['event'];

  constructor(options: McpClientOptions) {
    this.#options = options;
    this.serverName = options.serverName;
    this.#logger = options.logger ?? silentLogger;
    this.#clientInfo = options.clientInfo ?? DEFAULT_CLIENT_OPTIONS.clientInfo;
    this.#logLevel = options.logLevel;
    const emitters: ClientEmitters = {
      log: new Emitter(),
      resourceUpdated: new Emitter(),
      tools: new Emitter(),
      resources: new Emitter(),
      prompts: new Emitter(),
      discarded: new Emitter((error) =>
        this.#logger.warn(aboutServer(this.serverName, 'an onDiscarded listener threw'), {
          error: error instanceof Error ? error.message : String(error),
        }),
      ),
    };
    this.#emitters = emitters;
    this.onLogMessage = emitters.log.event;
    this.onResourceUpdated = emitters.resourceUpdated.event;
    this.onToolsChanged = emitters.tools.event;
    this.onResourcesChanged = emitters.resources.event;
    this.onPromptsChanged = emitters.prompts.event;
    this.onDiscarded = emitters.discarded.event;
    this.tasks = new ClientTasks({
      supported: () => this.#session?.tasks.supported ?? false,
      use: (work) => this.#tasks(work),
    });
  }

  get state(): McpClientState {
    return this.#state;
  }
  /** What the session learnt: era, version, server info, capabilities, instructions. */
  get session(): Readonly<Session> | undefined {
    return this.#session?.session;
  }
  get era(): ProtocolEra | undefined {
    return this.#session?.session?.era;
  }
  /**
   * What the client sent, received and discarded, over every connection it opened (a copy; the
   * counters only grow): requests and notifications both ways, and what was thrown away
   * (`unknownResponses`, `lateResponses`, `invalidMessages`, `junkMessages`, `oversizedMessages`).
   */
  get stats(): PeerStats {
    return this.#session?.stats ?? zeroPeerStats();
  }
  /** The process id of a stdio server, when the transport has one. */
  get pid(): number | undefined {
    return this.#session?.pid;
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
    // A local server's process first, then the session's code, loaded while the server starts.
    const early =
      signal?.aborted === true || this.#closeController.signal.aborted
        ? undefined
        : startTransportEarly(this.#options.transport, this.serverName, this.#logger);
    try {
      await early?.made;
      const { ConnectedClient } = await loadSessionCode();
      const connected = new ConnectedClient(this.#shell());
      this.#session = connected;
      const session = await connected.open(early, signal);
      if (this.#state !== 'connecting') {
        await connected.peer?.close();
        throw new McpHostError('CONNECTION_CLOSED', 'closed while connecting', {
          serverName: this.serverName,
        });
      }
      connected.start();
      this.#state = 'ready';
      connected.listen();
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
      await early?.closeIfUnclaimed();
    }
  }

  /** What the session side needs of this client: its parts, and its state (kept here). */
  #shell(): ClientShell {
    return {
      serverName: this.serverName,
      options: this.#options,
      logger: this.#logger,
      clientInfo: this.#clientInfo,
      emitters: this.#emitters,
      closeSignal: this.#closeController.signal,
      logLevel: () => this.#logLevel,
      ready: () => this.#state === 'ready',
      notReady: () => this.#notReady(),
      closed: (reason) => this.#onConnectionClosed(reason),
    };
  }

  #onConnectionClosed(reason: McpHostError | undefined): void {
    if (this.#state === 'closed') return;
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
  listTools(options: { signal?: AbortSignal } = {}): Promise<ToolListing> {
    return this.#whenOpen((session) => session.listTools(options));
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
    const session = this.#session;
    if (session === undefined) return Promise.reject(this.#notReady());
    if (typeof nameOrParams === 'string')
      return session.callTool(
        nameOrParams,
        (argsOrOptions as JsonObject | undefined) ?? {},
        maybeOptions ?? {},
      );
    return session.callTool(
      nameOrParams.name,
      nameOrParams.arguments ?? {},
      (argsOrOptions as CallOptions | undefined) ?? {},
    );
  }

  /** Every resource, all pages. */
  listResources(options: { signal?: AbortSignal } = {}): Promise<ResourceListing> {
    return this.#whenOpen((session) => session.listResources(options));
  }

  /** Every resource template, all pages. */
  listResourceTemplates(options: { signal?: AbortSignal } = {}): Promise<ResourceTemplateListing> {
    return this.#whenOpen((session) => session.listResourceTemplates(options));
  }

  readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    return this.#whenOpen((session) => session.readResource(uri, options));
  }

  /**
   * Subscribes to a resource's updates, which arrive as `onResourceUpdated`. Legacy:
   * `resources/subscribe`. Modern: the URI joins the `subscriptions/listen` stream's filter.
   */
  subscribeResource(uri: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    return this.#whenOpen((session) => session.subscribeResource(uri, options));
  }

  unsubscribeResource(uri: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    return this.#whenOpen((session) => session.unsubscribeResource(uri, options));
  }

  /** Every prompt, all pages. */
  listPrompts(options: { signal?: AbortSignal } = {}): Promise<PromptListing> {
    return this.#whenOpen((session) => session.listPrompts(options));
  }

  getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    return this.#whenOpen((session) => session.getPrompt(name, args, options));
  }

  complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context: { arguments?: Record<string, string> } = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<CompleteResult> {
    return this.#whenOpen((session) => session.complete(ref, argument, context, options));
  }

  // ---- skills (the io.modelcontextprotocol/skills extension, SEP-2640) ----------------------

  /**
   * Whether the server declared the skills extension (in `capabilities.extensions` of its
   * `initialize` result, or of `server/discover`). Only then are `skills/list` and `skills/get`
   * sent.
   */
  get supportsSkills(): boolean {
    return this.#session?.supportsSkills ?? false;
  }

  /**
   * Every skill the server lists (all pages, at most `maxPages`): entries only, no file is read.
   * Invalid entries are left out and named in `excluded`. Fails with CAPABILITY_NOT_SUPPORTED,
   * sending nothing, when the server did not declare the extension.
   */
  listSkills(options: { signal?: AbortSignal } = {}): Promise<SkillListing> {
    return this.#whenOpen((session) => session.listSkills(options));
  }

  /**
   * Whether the server declared `directoryRead` in its skills extension settings: only then is
   * `resources/directory/read` sent.
   */
  get supportsSkillDirectoryRead(): boolean {
    return this.#session?.supportsSkillDirectoryRead ?? false;
  }

  /**
   * One page of a skill directory's direct children (`resources/directory/read`, the skills
   * extension's `directoryRead`): pass the page's `nextCursor` as `cursor` for the next. Fails
   * with CAPABILITY_NOT_SUPPORTED, sending nothing, when the server did not declare
   * `directoryRead`; a URI that is not a directory is the server's -32602.
   */
  readSkillDirectory(
    uri: string,
    options: { cursor?: string; signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<SkillDirectoryPage> {
    return this.#whenOpen((session) => session.readSkillDirectory(uri, options));
  }

  /** The entry of one skill by its `SKILL.md` URI (`skills/get`); no file is read. */
  getSkill(uri: string, options: CallOptions = {}): Promise<SkillEntry> {
    return this.#whenOpen((session) => session.getSkill(uri, options));
  }

  /**
   * Loads a skill when it is used (never earlier: listing reads no file): from the entry given
   * (as `listSkills` returned it), or by URI, whose entry `skills/get` fetches first. The entry's
   * limits are checked before any read, then `SKILL.md` is read and its size, digest and
   * frontmatter verified, then each supporting file (unless `files: 'skill-md'`). A failure is a
   * SKILL_VERIFICATION_FAILED or SKILL_TOO_LARGE error naming the server, the skill and what did
   * not match; unverified content is never returned. See docs/agents.md (Skills).
   */
  loadSkill(skill: string | SkillEntry, options: LoadSkillOptions = {}): Promise<LoadedSkill> {
    return this.#whenOpen((session) => session.loadSkill(skill, options));
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
    return this.#whenOpen((session) => session.readSkillFile(entry, uri, options));
  }

  /** Legacy: `logging/setLevel`. Modern: the level rides on every later request's `_meta`. */
  async setLoggingLevel(
    level: LoggingLevel,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    this.#logLevel = level;
    await this.#session?.setLoggingLevel(level, options);
  }

  /** A liveness check that bypasses every cache: `ping` (legacy) or `server/discover` (modern). */
  ping(options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<void> {
    return this.#whenOpen((session) => session.ping(options));
  }

  /** Tells a legacy server the client's roots changed (modern servers ask again when they need them). */
  notifyRootsChanged(): void {
    this.#session?.notifyRootsChanged();
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
    const session = this.#session;
    if (this.#state !== 'closed') this.#state = 'closing';
    this.#shutdownWatchers();
    try {
      await session?.peer?.close();
    } finally {
      session?.detach();
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
    for (const emitter of Object.values(this.#emitters) as Emitter<unknown>[]) emitter.clear();
    this.#session?.stopListening();
  }

  // ---- plumbing ---------------------------------------------------------------------------

  /**
   * A task request over the session side; before the first connect there is no session, so the
   * tasks are not supported (the requests' own refusal, sending nothing).
   */
  #tasks<T>(work: (tasks: TaskRequests) => Promise<T>): Promise<T> {
    const session = this.#session;
    if (session !== undefined) return work(session.tasks);
    return loadSessionCode().then(({ ConnectedClient }) =>
      work(ConnectedClient.tasksUnconnected(this.serverName)),
    );
  }

  /** The work of `use` over the session side, or the refusal when there is none yet. */
  #whenOpen<T>(use: (session: ConnectedClient) => Promise<T>): Promise<T> {
    const session = this.#session;
    return session === undefined ? Promise.reject(this.#notReady()) : use(session);
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
}

/** What `ClientTasks` needs of its client. */
interface TasksPort {
  supported(): boolean;
  use<T>(work: (tasks: TaskRequests) => Promise<T>): Promise<T>;
}

/**
 * The tasks of one server (the tasks extension, SEP-2663), as `McpClient.tasks`: a task is what a
 * `callTool(name, args, { task: true })` may answer instead of its result (a `CreateTaskResult`),
 * read, answered and cancelled here by its `taskId`. Each request declares the extension; a
 * server that did not declare it (`supported` false) is sent nothing
 * (`CAPABILITY_NOT_SUPPORTED`), and an id the server does not know is `TASK_NOT_FOUND`, naming it.
 */
export class ClientTasks {
  readonly #client: TasksPort;

  /** @internal Made by `McpClient`. */
  constructor(client: TasksPort) {
    this.#client = client;
  }

  /**
   * Whether the server may answer a tool call with a task: it speaks the modern era and declared
   * the extension. Only then does `callTool(..., { task: true })` offer it, and do these methods
   * send anything.
   */
  get supported(): boolean {
    return this.#client.supported();
  }

  /**
   * The task as the server has it now (`tasks/get`): its `status`, and once it is over the tool's
   * `result` (`completed`, maybe `isError`) or the `error` (`failed`); while `input_required`,
   * the `inputRequests` to answer with `update`.
   */
  get(taskId: string, options: CallOptions = {}): Promise<DetailedTask> {
    return this.#client.use((tasks) => tasks.get(taskId, options));
  }

  /**
   * Answers what the task waits for (`tasks/update`), by the keys of its `inputRequests` (some or
   * all); the server acknowledges and the task goes on (the next `get` says how).
   */
  update(
    taskId: string,
    inputResponses: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<void> {
    return this.#client.use((tasks) => tasks.update(taskId, inputResponses, options));
  }

  /** Asks the server to cancel the task (`tasks/cancel`); a finished task stays as it is. */
  cancel(taskId: string, options: CallOptions = {}): Promise<void> {
    return this.#client.use((tasks) => tasks.cancel(taskId, options));
  }
}
