import { McpHostError } from '../errors/mcp-host-error.js';
import { Emitter } from '../internal/emitter.js';
import { silentLogger, type Logger } from '../internal/logger.js';
import { settlesWithin } from '../internal/wait.js';
import type { JsonObject } from '../jsonrpc/message.js';
import type {
  CallToolResult,
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  LoggingLevel,
  LoggingMessageParams,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Root,
  Tool,
} from '../protocol/types.js';
import type { Disposable } from '../internal/disposable.js';
import type { ToolCallParams } from '../client/client-options.js';
import {
  createCallPipeline,
  type HostCallOptions,
  type NoTask,
  type ToolCallAnswer as Answer,
  type ToolCallEvent,
  type ToolCallHandler,
} from './calls/call-pipeline.js';
import { CallerView } from './catalogue/caller-view.js';
import { ToolCatalogue, type ToolsChangedEvent } from './catalogue/tool-catalogue.js';
import {
  DEFAULT_HOST_OPTIONS,
  type CatalogueSnapshot,
  type DrainOptions,
  type McpHostOptions,
  toStartSummary,
  type StartSummary,
} from './host-options.js';
import { HostResources, type HostRequestOptions } from './host-resources.js';
import { checkedRoots } from './host-roots.js';
import type { HostSkill, HostSkillEntry, LoadedHostSkill, SkillServer } from './host-skills.js';
import { HostSkills, type SkillRequestOptions } from './host-skills.js';
import type { SkillDirectoryPage } from '../client/skills/skill-entry.js';
import { HostTasks } from './host-tasks.js';
import type { LoadSkillOptions, SkillFile } from '../client/skills/load-skill.js';
import type { CallContext, HostTool, NativeTool } from './host-tool.js';
import { assertServerKey } from './naming/server-key.js';
import { HostMetrics, type MetricsSnapshot } from './observe/metrics.js';
import type { PinEvent } from './pins/pin-types.js';
import { quarantinedTool } from './pins/quarantined-tool.js';
import type { ToolPins } from './pins/tool-pins.js';
import { createHostPins } from './pins/host-pins.js';
import type { HostServerDefinition } from './server-definition.js';
import {
  authRequiredEvent,
  ServerOAuth,
  tokenStoreLoader,
  type AuthorizationUrl,
  type AuthRequiredEvent,
} from './server-oauth.js';
import type { TokenStore } from '../auth/token-store.js';
import { registeredServer, ServerSlot } from './slot/server-slot.js';
import type { ServerStatus } from './slot/server-status.js';
import type { ToolReviewer } from './slot/server-tools.js';
import { HostView, type ViewHost } from './views/host-view.js';
import { ViewAccess, type ViewOptions } from './views/view-access.js';

/** One tool the pin check holds back, as `McpHost.quarantined()` lists it. */
export interface QuarantinedSummary {
  server: string;
  tool: string;
  reason: string;
  pin: string | undefined;
  summary: string;
}

/** A server's log message (`notifications/message`), with the server it comes from. */
export type HostLogMessage = LoggingMessageParams & { server: string };

/**
 * Many MCP servers as one toolset. Servers are added, removed, enabled, disabled and restarted by
 * name at run time and supervised (restart with backoff, crash-loop limit, health checks). Their
 * tools, and native tools registered beside them, are offered under one namespace
 * (`mcp__{server}__{tool}`), behind the host's filter, permissions and approval hook; one
 * `callTool` routes each call to its server through one pipeline (see `call-pipeline.ts`). See
 * docs/host.md.
 */
export class McpHost implements AsyncDisposable {
  readonly #options: McpHostOptions;
  readonly #logger: Logger;
  /** The registered servers, by name, in registration order. */
  readonly #slots = new Map<string, ServerSlot>();
  /** Servers removed or replaced that are still finishing their calls (see DrainOptions). */
  readonly #retiring = new Set<ServerSlot>();
  readonly #catalogue: ToolCatalogue;
  readonly #view: CallerView;
  readonly #pipeline: ToolCallHandler;
  readonly #resources: HostResources;
  readonly #skills: HostSkills;
  readonly #metrics = new HostMetrics();
  readonly #pins: ToolPins | undefined;
  readonly #pinWatch: Disposable | undefined; // other processes' pin changes; ended on close
  readonly #review: ToolReviewer;
  readonly #statusEmitter = new Emitter<ServerStatus>();
  readonly #toolsEmitter = new Emitter<ToolsChangedEvent>();
  readonly #callEmitter = new Emitter<ToolCallEvent>();
  readonly #pinEmitter = new Emitter<PinEvent>();
  readonly #authEmitter = new Emitter<AuthRequiredEvent>();
  readonly #resourcesEmitter = new Emitter<{ server: string }>();
  readonly #promptsEmitter = new Emitter<{ server: string }>();
  readonly #logEmitter = new Emitter<HostLogMessage>();
  readonly #updatedEmitter = new Emitter<{ server: string; uri: string }>();
  readonly #tokenStore: () => Promise<TokenStore>;
  /** The named views (`McpHostOptions.views`), compiled at construction. */
  readonly #views = new Map<string, HostView>();
  #viewHost: ViewHost | undefined;
  /** The host-wide roots (`McpHostOptions.roots`, `setRoots`), checked and frozen. */
  #roots: readonly Root[] | undefined;
  #closing: Promise<void> | undefined;

  /** A server changed state (connecting, ready, restarting, crash_loop, ...). */
  readonly onServerStatus = this.#statusEmitter.event;
  /** The tool list changed (a server connected, relisted, or left; a native tool came or went). */
  readonly onToolsChanged = this.#toolsEmitter.event;
  /** A connected server's relisted resources differ (a server coming or going: `onServerStatus`). */
  readonly onResourcesChanged = this.#resourcesEmitter.event;
  /** A connected server's prompt list changed (as `onResourcesChanged`, for prompts). */
  readonly onPromptsChanged = this.#promptsEmitter.event;
  /**
   * A server's log message (`notifications/message`), with its name; rate-limited per server. A
   * server sends them at the level it was given (`setLoggingLevel`, or its `client.logLevel`).
   */
  readonly onLogMessage = this.#logEmitter.event;
  /** A resource subscribed to (`subscribeResource`) changed, on the server named. */
  readonly onResourceUpdated = this.#updatedEmitter.event;
  /** The tasks its calls created (`callTool(..., { task: true })`): see `HostTasks`. */
  readonly tasks: HostTasks;
  /** Every tool call: started, then completed or failed (exactly once each). */
  readonly onToolCall = this.#callEmitter.event;
  /** Tool pinning: a tool pinned, quarantined (with the diff) or no longer listed. */
  readonly onPinEvent = this.#pinEmitter.event;
  /**
   * A server with `oauth` needs a person to log in (it is now `needs_auth`, or, for a step-up, a
   * tool call failed with `AUTH_REQUIRED` and the server stays connected): the event names the
   * server, the scopes and, when the login was started, the URL to open. Log it in with
   * `startAuthorization` and `completeAuthorization`.
   */
  readonly onAuthRequired = this.#authEmitter.event;

  constructor(options: McpHostOptions = {}) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#roots = options.roots === undefined ? undefined : checkedRoots(options.roots);
    this.#catalogue = new ToolCatalogue(options.naming);
    this.#view = new CallerView(options, this.#logger);
    this.#pipeline = createCallPipeline({
      options,
      logger: this.#logger,
      metrics: this.#metrics,
      events: this.#callEmitter,
      view: this.#view,
      catalogue: this.#catalogue,
      servers: this.#slots,
    });
    this.#tokenStore = tokenStoreLoader(options.tokenStore, options.stateStore);
    this.#resources = new HostResources(this.#slots, options.naming, this.#logger, (uri) =>
      this.#skills.ownersOf(uri),
    );
    this.#skills = new HostSkills(this.#slots, options.naming, this.#logger);
    this.tasks = new HostTasks(this.#slots, options);
    ({
      pins: this.#pins,
      review: this.#review,
      watch: this.#pinWatch,
    } = createHostPins({
      policy: options.pins ?? DEFAULT_HOST_OPTIONS.pins,
      store: options.stateStore,
      servers: () => this.#slots.values(),
      onEvent: (event) => this.#pinEmitter.fire(event),
      logger: this.#logger,
    }));
    for (const server of options.servers ?? []) this.#addSlot(server);
    for (const [name, view] of Object.entries(options.views ?? {}))
      this.#views.set(name, new HostView(this.#portForViews(), new ViewAccess(view, name)));
  }

  // ---- servers ----------------------------------------------------------------------------------

  /**
   * Connects every enabled, non-lazy server in parallel; resolves when each has settled, with a
   * summary: every status, the servers that are ready, and those that failed and why (one failing
   * server never holds up the others).
   */
  async start(): Promise<StartSummary> {
    this.#assertOpen();
    await Promise.all(
      [...this.#slots.values()]
        .filter((slot) => slot.definition.lazy !== true)
        .map((slot) => slot.connect()),
    );
    return toStartSummary(this.status());
  }

  /** Registers a server (and connects it unless disabled or lazy). Names are unique. */
  async addServer(definition: HostServerDefinition): Promise<ServerStatus> {
    this.#assertOpen();
    const slot = this.#addSlot(definition);
    if (definition.lazy !== true) await slot.connect();
    return slot.status();
  }

  /**
   * Forgets a server: its tools leave the list at once, its calls in flight may finish within
   * `drainTimeoutMs`, then its connection is closed. Resolves once it is closed.
   */
  async removeServer(name: string, options: DrainOptions = {}): Promise<void> {
    const slot = this.#slot(name);
    this.#slots.delete(name);
    this.#fireTools(this.#catalogue.removeServer(name));
    await this.#retire(slot, options.drainTimeoutMs ?? 0);
  }

  /**
   * Swaps a server's definition for a new one under the same name (a changed configuration): the
   * new connection takes every new call at once (its tools stay listed while it connects, unless
   * its tool filter changed), while the old one finishes its calls in flight within
   * `drainTimeoutMs` and is then closed. Resolves once the new server's connect has settled and
   * the old one is closed.
   */
  async replaceServer(
    definition: HostServerDefinition,
    options: DrainOptions = {},
  ): Promise<ServerStatus> {
    this.#assertOpen();
    const old = this.#slot(definition.name);
    const sameFilter = JSON.stringify(old.definition.tools) === JSON.stringify(definition.tools);
    const slot = this.#createSlot(definition, sameFilter ? old.tools : undefined);
    this.#slots.set(definition.name, slot); // same key: keeps its place in the status order
    this.#fireTools(this.#catalogue.setServerTools(definition.name, slot.tools));
    this.#statusEmitter.fire(slot.status());
    const retired = this.#retire(old, options.drainTimeoutMs ?? 0);
    if (definition.lazy !== true) await slot.connect();
    await retired;
    return slot.status();
  }

  /** Connects a server now (an idle or lazy one, or one waiting for its next restart). */
  connectServer(name: string): Promise<ServerStatus> {
    return this.#act(name, (slot) => slot.connect());
  }

  /** Closes a server's connection but keeps it enabled (`idle`): its next call reconnects it. */
  disconnectServer(name: string): Promise<ServerStatus> {
    return this.#act(name, (slot) => slot.disconnect());
  }

  enableServer(name: string): Promise<ServerStatus> {
    return this.#act(name, (slot) => slot.enable());
  }

  disableServer(name: string): Promise<ServerStatus> {
    return this.#act(name, (slot) => slot.disable());
  }

  /** Reconnects a server now: also the way out of `crash_loop`, `failed` and `needs_auth`. */
  restartServer(name: string): Promise<ServerStatus> {
    return this.#act(name, (slot) => slot.restart());
  }

  /**
   * Starts an OAuth login for a server with `oauth` (the first of two steps): discovery, the
   * client, then the authorization URL a person opens. `INVALID_ARGUMENT` for a server without
   * `oauth`.
   */
  async startAuthorization(
    name: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<AuthorizationUrl> {
    this.#assertOpen();
    return this.#oauth(name).start(options);
  }

  /**
   * Finishes the login `startAuthorization` (or the server's refusal, see `onAuthRequired`)
   * started, with the URL the browser was sent back to or the code; the tokens are saved and the
   * server is connected. Resolves with its status once that connect has settled. A wrong `state`,
   * a replayed or expired one, or a wrong `iss` is refused (`AUTH_FAILED`) before anything is
   * redeemed.
   */
  async completeAuthorization(
    name: string,
    redirectUrlOrCode: string | URL,
  ): Promise<ServerStatus> {
    this.#assertOpen();
    await this.#oauth(name).complete(redirectUrlOrCode);
    return this.restartServer(name);
  }

  /**
   * Replaces the host-wide roots (see `McpHostOptions.roots`; each a `file://` URI, else
   * `INVALID_ARGUMENT`) and sends `notifications/roots/list_changed` to every connected legacy
   * server that was given them. A server that connected before any roots were set was not told
   * the host has roots: it sees them from its next connect.
   */
  setRoots(roots: readonly Root[]): void {
    this.#assertOpen();
    this.#roots = checkedRoots(roots);
    for (const slot of this.#slots.values()) slot.notifyRootsChanged();
  }

  /** Every server's status, in registration order. */
  status(): ServerStatus[] {
    return [...this.#slots.values()].map((slot) => slot.status());
  }

  serverStatus(name: string): ServerStatus {
    return this.#slot(name).status();
  }

  /**
   * The current tool lists, per server, as plain JSON: give it to a later host's `snapshot`
   * option so it can answer `tools()` before its servers connect.
   */
  snapshot(): CatalogueSnapshot {
    const servers: CatalogueSnapshot['servers'] = {};
    for (const slot of this.#slots.values())
      if (slot.tools.length > 0) servers[slot.name] = { tools: structuredClone([...slot.tools]) };
    return { version: 1, servers };
  }

  // ---- tools ------------------------------------------------------------------------------------

  /** Registers a native tool beside the MCP tools; its name must be free (`INVALID_ARGUMENT`). */
  registerTool(tool: NativeTool): void {
    this.#assertOpen();
    this.#fireTools(this.#catalogue.addNative(tool));
  }

  /** Withdraws a native tool; false when none has that name. */
  unregisterTool(name: string): boolean {
    const change = this.#catalogue.removeNative(name);
    this.#fireTools(change);
    return change !== undefined;
  }

  /**
   * Every tool the caller may see: ready servers' tools (after static filters and the pin check)
   * and native tools, under their exposed names, minus what the permissions and the host filter
   * hide from it. A listing older than its TTL is refreshed in the background meanwhile.
   */
  tools(context?: CallContext): HostTool[] {
    for (const slot of this.#slots.values()) slot.refreshToolsIfStale();
    return this.#view.visible(this.#catalogue.list(), context);
  }

  /**
   * Calls a tool by its exposed name, wherever it lives: `callTool(name, args?, options?)`, or
   * `callTool({ name, arguments }, options?)` as the official SDK takes it. Every call runs the
   * host's pipeline (see `call-pipeline.ts`). Refused before sending (typed errors): an unknown
   * name (`TOOL_NOT_FOUND`), a tool hidden from this caller or refused by the approval hook
   * (`TOOL_DENIED`), a quarantined tool (`TOOL_QUARANTINED`), a server that is down
   * (`SERVER_UNAVAILABLE`, at once), a full queue (`QUEUE_FULL`). Arguments that do not match the
   * tool's `inputSchema`, and native tools that throw, give an error result the model can read.
   * With `{ task: true }` a server of the tasks extension may answer with a `CreateTaskResult`
   * (`isCreateTaskResult`) instead: see `host.tasks`.
   */
  callTool(name: string, args?: JsonObject, options?: NoTask): Promise<CallToolResult>;
  callTool(name: string, args: JsonObject | undefined, options: HostCallOptions): Promise<Answer>;
  callTool(params: ToolCallParams, options?: NoTask): Promise<CallToolResult>;
  callTool(params: ToolCallParams, options: HostCallOptions): Promise<Answer>;
  callTool(
    nameOrParams: string | ToolCallParams,
    argsOrOptions?: JsonObject | HostCallOptions,
    maybeOptions?: HostCallOptions,
  ): Promise<Answer> {
    if (typeof nameOrParams === 'string')
      return this.#call(
        nameOrParams,
        (argsOrOptions as JsonObject | undefined) ?? {},
        maybeOptions ?? {},
        undefined,
      );
    return this.#call(
      nameOrParams.name,
      nameOrParams.arguments ?? {},
      (argsOrOptions as HostCallOptions | undefined) ?? {},
      undefined,
    );
  }

  /**
   * A narrower view of this host for one agent: only the tools of `servers` that `allow`/`block`
   * let through, with its own per-agent `permissions` (after the host's: both must allow) and
   * `maxResultBytes` (when smaller than the host's), over the same pooled connections. Or a named
   * view from `McpHostOptions.views` (`INVALID_ARGUMENT` naming it when there is none). A view
   * holds no connection and needs no close; see `HostView`.
   */
  view(options: ViewOptions | string): HostView {
    this.#assertOpen();
    if (typeof options !== 'string')
      return new HostView(this.#portForViews(), new ViewAccess(options));
    const named = this.#views.get(options);
    if (named === undefined)
      throw new McpHostError('INVALID_ARGUMENT', `no view is named '${options}'`, {
        details: { view: options, views: [...this.#views.keys()] },
      });
    return named;
  }

  #call(
    name: string,
    args: JsonObject,
    options: HostCallOptions,
    view: ViewAccess | undefined,
  ): Promise<Answer> {
    const tool =
      this.#catalogue.get(name)?.tool ??
      quarantinedTool(this.#slots.values(), this.#catalogue, name);
    if (tool === undefined)
      return Promise.reject(
        new McpHostError('TOOL_NOT_FOUND', `no tool is named '${name}'`, { tool: name }),
      );
    const task = options.task === true;
    const called = this.#pipeline({
      tool,
      args,
      context: options.context,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      onProgress: options.onProgress,
      retry: options.retry === true,
      input: options.input === undefined && options.resume === undefined ? undefined : options,
      task,
      traceContext: options.traceContext,
      // Always present (undefined without a view): every call object has one shape.
      view,
    });
    return task ? this.tasks.track(tool.server, called) : called;
  }

  /**
   * Approves the held definition of a quarantined tool (only the one shown, when `pin` is given)
   * and relists the server's tools, so the tool is offered again.
   */
  async approveTool(server: string, tool: string, options: { pin?: string } = {}): Promise<void> {
    const slot = this.#slot(server);
    if (this.#pins === undefined)
      throw new McpHostError('INVALID_ARGUMENT', 'tool pinning is off (pins: false)');
    await this.#pins.approve(slot.identity, tool, options);
    await slot.refreshTools();
  }

  /** The tools held back by the pin check, per server, with the reason and the diff. */
  quarantined(): QuarantinedSummary[] {
    return [...this.#slots.values()].flatMap((slot) =>
      [...slot.quarantined.values()].map((held) => ({
        server: slot.name,
        tool: held.tool.name,
        reason: held.reason,
        pin: held.pin,
        summary: held.diff.summary,
      })),
    );
  }

  /** Per-server and per-tool counters and latency percentiles since the host started. */
  metrics(): MetricsSnapshot {
    return this.#metrics.snapshot();
  }

  // ---- resources and prompts ------------------------------------------------------------------

  /** Every ready server's resources, each with the server it comes from. */
  resources(): Promise<Array<Resource & { server: string }>> {
    return this.#resources.resources();
  }

  /** Every ready server's resource templates, each with the server it comes from. */
  resourceTemplates(): Promise<Array<ResourceTemplate & { server: string }>> {
    return this.#resources.resourceTemplates();
  }

  /**
   * Reads a resource, routed by URI to the first connected server that lists it (or to the one
   * named by `server`, for a URI several servers list).
   */
  readResource(
    uri: string,
    options: HostRequestOptions & { server?: string } = {},
  ): Promise<ReadResourceResult> {
    return this.#resources.readResource(uri, options);
  }

  /** Every ready server's prompts under namespaced names (`mcp__{server}__{prompt}`). */
  prompts(): Promise<Array<Prompt & { server: string; originalName: string }>> {
    return this.#resources.prompts();
  }

  /** Gets a prompt by its namespaced name. */
  getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: HostRequestOptions = {},
  ): Promise<GetPromptResult> {
    return this.#resources.getPrompt(name, args, options);
  }

  /**
   * Completes an argument (`completion/complete`) of a prompt, by its namespaced name, or of a
   * resource template, by its URI template, on the server that owns it. `INVALID_ARGUMENT` for an
   * unknown prompt or template, `CAPABILITY_NOT_SUPPORTED` when that server offers no completions.
   */
  complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context: { arguments?: Record<string, string> } = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<CompleteResult> {
    return this.#resources.complete(ref, argument, context, options);
  }

  /**
   * Subscribes to a resource's updates (`onResourceUpdated`) on the server that owns the URI (as
   * `readResource` routes it, or the one named), kept across its reconnections; resolves with the
   * server's name. `CAPABILITY_NOT_SUPPORTED` when it does not offer subscriptions.
   */
  subscribeResource(
    uri: string,
    options: { server?: string; signal?: AbortSignal } = {},
  ): Promise<string> {
    return this.#resources.subscribeResource(uri, options);
  }

  /** Ends the subscriptions to `uri` (on every server subscribed, or the one named). */
  async unsubscribeResource(
    uri: string,
    options: { server?: string; signal?: AbortSignal } = {},
  ): Promise<void> {
    const slots =
      options.server === undefined ? [...this.#slots.values()] : [this.#slot(options.server)];
    await Promise.all(
      slots.map((slot) => slot.unsubscribeResource(uri, { signal: options.signal })),
    );
  }

  /**
   * Sets the log level of every server (or of the one named), now and on their later connections:
   * legacy servers that declared `logging` get `logging/setLevel`, modern ones get the level on
   * each request. A server that fails to take it is logged (or, when named, rejects).
   */
  async setLoggingLevel(
    level: LoggingLevel,
    options: { server?: string; signal?: AbortSignal } = {},
  ): Promise<void> {
    if (options.server !== undefined) {
      await this.#slot(options.server).setLoggingLevel(level, { signal: options.signal });
      return;
    }
    const results = await Promise.allSettled(
      [...this.#slots.values()].map((slot) =>
        slot.setLoggingLevel(level, { signal: options.signal }),
      ),
    );
    for (const result of results)
      if (result.status === 'rejected')
        this.#logger.warn('host: a server did not take the log level', {
          error: String(result.reason),
        });
  }

  // ---- skills (the io.modelcontextprotocol/skills extension) -----------------------------------

  /**
   * Every ready server's skills, listed (`skills/list`) from the servers that declared the skills
   * extension only, under namespaced names (`mcp__{server}__{skill}`). No skill file is read.
   */
  skills(options: { signal?: AbortSignal } = {}): Promise<HostSkill[]> {
    return this.#skills.skills(options);
  }

  /** The connected servers that declared the skills extension (and whether they read directories). */
  skillServers(): SkillServer[] {
    return this.#skills.skillServers();
  }

  /** A skill's entry by its SKILL.md URI (`skills/get`), from the one server listing it. */
  getSkill(uri: string, options: SkillRequestOptions = {}): Promise<HostSkillEntry> {
    return this.#skills.getSkill(uri, options);
  }

  /** One page of a skill directory (`resources/directory/read`), routed as `getSkill` is. */
  readSkillDirectory(
    uri: string,
    options: SkillRequestOptions & { cursor?: string } = {},
  ): Promise<SkillDirectoryPage> {
    return this.#skills.readSkillDirectory(uri, options);
  }

  /**
   * Loads a skill by its namespaced name when it is used: reads its files from the server it comes
   * from and verifies each against the listed entry (size, digest, `SKILL.md`'s frontmatter, and
   * the limits: 16 MiB and 512 files by default). Fails with SKILL_VERIFICATION_FAILED or
   * SKILL_TOO_LARGE, naming the server, the skill and what did not match. See
   * docs/agents.md (Skills).
   */
  loadSkill(name: string, options: LoadSkillOptions = {}): Promise<LoadedHostSkill> {
    return this.#skills.loadSkill(name, options);
  }

  /**
   * Reads one more file of a loaded skill (one loaded with `files: 'skill-md'`, when the model
   * needs the file): from the server the skill came from, verified against the entry it was
   * loaded from. A file that entry does not list is refused (SKILL_VERIFICATION_FAILED).
   */
  readSkillFile(
    skill: LoadedHostSkill,
    uri: string,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<SkillFile> {
    return this.#skills.readSkillFile(skill, uri, options);
  }

  // ---- lifetime ---------------------------------------------------------------------------------

  /** Closes every server in parallel, within `closeTimeoutMs` (their transports kill what is left). */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #close(): Promise<void> {
    this.#pinWatch?.dispose();
    const all = Promise.allSettled(
      [...this.#slots.values(), ...this.#retiring].map((slot) => slot.close()),
    );
    const bound = this.#options.closeTimeoutMs ?? DEFAULT_HOST_OPTIONS.closeTimeoutMs;
    if (!(await settlesWithin(all, bound, { ref: true })))
      this.#logger.warn(`host: servers still closing after ${bound} ms`);
    await all;
    this.#statusEmitter.clear();
    this.#toolsEmitter.clear();
    this.#callEmitter.clear();
    this.#authEmitter.clear();
    this.#resourcesEmitter.clear();
    this.#promptsEmitter.clear();
    this.#logEmitter.clear();
    this.#updatedEmitter.clear();
  }

  // ---- plumbing -------------------------------------------------------------------------------

  async #act(name: string, action: (slot: ServerSlot) => Promise<void>): Promise<ServerStatus> {
    const slot = this.#slot(name);
    await action(slot);
    return slot.status();
  }

  /** Lets a removed or replaced server finish its calls (up to `drainTimeoutMs`), then closes it. */
  async #retire(slot: ServerSlot, drainTimeoutMs: number): Promise<void> {
    this.#retiring.add(slot);
    try {
      if (drainTimeoutMs > 0)
        await settlesWithin(slot.limiter.whenIdle(), drainTimeoutMs, { ref: true });
      await slot.close();
    } finally {
      this.#retiring.delete(slot);
    }
  }

  #addSlot(definition: HostServerDefinition): ServerSlot {
    assertServerKey(this.#slots, definition.name, this.#options.naming);
    this.#catalogue.place(definition.name);
    const slot = this.#createSlot(
      definition,
      this.#options.snapshot?.servers[definition.name]?.tools,
    );
    this.#slots.set(definition.name, slot);
    if (slot.tools.length > 0)
      this.#fireTools(this.#catalogue.setServerTools(slot.name, slot.tools));
    return slot;
  }

  /**
   * A slot whose reports count only while it is the one registered under its name: a removed or
   * replaced server still finishing its calls must not touch its successor's tools or status (a
   * removed one still reports its last status).
   */
  #createSlot(definition: HostServerDefinition, seed: readonly Tool[] | undefined): ServerSlot {
    const slot = new ServerSlot(definition, {
      logger: this.#logger,
      stateStore: this.#options.stateStore,
      restart: this.#options.restart,
      health: this.#options.health,
      review: this.#review,
      seedTools: seed,
      roots: () => this.#roots,
      telemetry: this.#options.telemetry,
      oauth:
        definition.oauth === undefined
          ? undefined
          : new ServerOAuth(
              definition.name,
              definition.transport,
              definition.oauth,
              this.#tokenStore,
              this.#options.oauth,
            ),
    });
    // All live as long as the slot: nothing to dispose.
    slot.onStatusChange(() => {
      const current = this.#slots.get(slot.name);
      if (current !== undefined && current !== slot) return;
      const status = slot.status();
      this.#statusEmitter.fire(status);
      if (status.state === 'needs_auth' && slot.oauth !== undefined)
        this.#authEmitter.fire(authRequiredEvent(slot.name, slot.lastFailure));
    });
    // A call refused for want of scopes keeps the server connected; its login is announced too.
    slot.onStepUp((error) => {
      if (this.#slots.get(slot.name) === slot)
        this.#authEmitter.fire(authRequiredEvent(slot.name, error));
    });
    slot.onListChange((kind) => {
      if (this.#closing !== undefined || this.#slots.get(slot.name) !== slot) return;
      (kind === 'resources' ? this.#resourcesEmitter : this.#promptsEmitter).fire({
        server: slot.name,
      });
    });
    slot.onLogMessage((message) => {
      if (this.#slots.get(slot.name) === slot)
        this.#logEmitter.fire({ ...message, server: slot.name });
    });
    slot.onResourceUpdated(({ uri }) => {
      if (this.#slots.get(slot.name) === slot)
        this.#updatedEmitter.fire({ server: slot.name, uri });
    });
    slot.onToolsChange(() => {
      // Closing: no rebuild per server leaving, nobody will list tools again.
      if (this.#closing !== undefined || this.#slots.get(slot.name) !== slot) return;
      this.#fireTools(this.#catalogue.setServerTools(slot.name, slot.tools));
    });
    return slot;
  }

  #fireTools(change: ToolsChangedEvent | undefined): void {
    if (change !== undefined) this.#toolsEmitter.fire(change);
  }

  /** What views see of this host (one object, shared by every view). */
  #portForViews(): ViewHost {
    this.#viewHost ??= {
      tools: (context) => this.tools(context),
      listed: () => this.#catalogue.list(),
      callTool: (name, args, options, view) => this.#call(name, args, options, view),
      onToolsChanged: (listener) => this.onToolsChanged(listener),
      resources: () => this.resources(),
      resourceTemplates: () => this.resourceTemplates(),
      readResource: (uri, options) => this.readResource(uri, options),
      prompts: () => this.prompts(),
      promptServer: (name) => this.#resources.promptServer(name),
      getPrompt: (name, args, options) => this.getPrompt(name, args, options),
      servers: () => [...this.#slots.keys()],
      completionTarget: (ref) => this.#resources.completionTarget(ref),
      complete: (ref, argument, context, options) => this.complete(ref, argument, context, options),
      subscribeResource: (uri, options) => this.subscribeResource(uri, options),
      unsubscribeResource: (uri, options) => this.unsubscribeResource(uri, options),
      setLoggingLevel: (level, options) => this.setLoggingLevel(level, options),
      onLogMessage: (listener) => this.onLogMessage(listener),
      onResourceUpdated: (listener) => this.onResourceUpdated(listener),
      skills: this.#skills,
    };
    return this.#viewHost;
  }

  #oauth(name: string): ServerOAuth {
    const oauth = this.#slot(name).oauth;
    if (oauth === undefined)
      throw new McpHostError('INVALID_ARGUMENT', `server '${name}' has no OAuth settings (oauth)`, {
        serverName: name,
      });
    return oauth;
  }

  #slot(name: string): ServerSlot {
    return registeredServer(this.#slots, name);
  }

  #assertOpen(): void {
    if (this.#closing !== undefined)
      throw new McpHostError('CONNECTION_CLOSED', 'the host is closed');
  }
}
