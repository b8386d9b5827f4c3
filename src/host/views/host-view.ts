import type { ToolCallParams } from '../../client/client-options.js';
import { McpHostError } from '../../errors/mcp-host-error.js';
import type { Disposable } from '../../internal/disposable.js';
import type { JsonObject } from '../../jsonrpc/message.js';
import { matchesUriTemplate } from '../../protocol/uri-template.js';
import type {
  CallToolResult,
  CreateTaskResult,
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  LoggingLevel,
  LoggingMessageParams,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from '../../protocol/types.js';
import type { HostCallOptions, NoTask, ToolCallAnswer as Answer } from '../calls/call-pipeline.js';
import type { HostRequestOptions } from '../host-resources.js';
import {
  soleSkillOwner,
  type HostSkill,
  type HostSkillEntry,
  type HostSkills,
  type SkillRequestOptions,
  type SkillServer,
} from '../host-skills.js';
import type { SkillDirectoryPage } from '../../client/skills/skill-entry.js';
import type { ToolsChangedEvent } from '../catalogue/tool-catalogue.js';
import type { CallContext, HostTool } from '../host-tool.js';
import type { ViewAccess } from './view-access.js';

/** What a view needs of its host: `McpHost` hands one to each view it makes. */
export interface ViewHost {
  /** The host's tools as this caller sees them (the host's permissions and filter applied). */
  tools(context: CallContext | undefined): HostTool[];
  /** Every tool in the host's list, no caller's rules applied. */
  listed(): readonly HostTool[];
  /** `host.callTool`, with the view's rules and budget threaded into its pipeline. */
  callTool(
    name: string,
    args: JsonObject,
    options: HostCallOptions,
    view: ViewAccess,
  ): Promise<CallToolResult | CreateTaskResult>;
  onToolsChanged(listener: (event: ToolsChangedEvent) => void): Disposable;
  resources(): Promise<Array<Resource & { server: string }>>;
  resourceTemplates(): Promise<Array<ResourceTemplate & { server: string }>>;
  readResource(
    uri: string,
    options: HostRequestOptions & { server?: string },
  ): Promise<ReadResourceResult>;
  prompts(): Promise<Array<Prompt & { server: string; originalName: string }>>;
  /** The server a namespaced prompt name belongs to (prompts are listed when none is known). */
  promptServer(name: string): Promise<string | undefined>;
  getPrompt(
    name: string,
    args: Record<string, string>,
    options: HostRequestOptions,
  ): Promise<GetPromptResult>;
  /** The registered servers' names. */
  servers(): string[];
  /** The server a completion reference belongs to (`INVALID_ARGUMENT` when none). */
  completionTarget(ref: CompletionReference): Promise<{ server: string }>;
  complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context: { arguments?: Record<string, string> },
    options: { signal?: AbortSignal },
  ): Promise<CompleteResult>;
  subscribeResource(
    uri: string,
    options: { server?: string; signal?: AbortSignal },
  ): Promise<string>;
  unsubscribeResource(
    uri: string,
    options: { server?: string; signal?: AbortSignal },
  ): Promise<void>;
  setLoggingLevel(
    level: LoggingLevel,
    options: { server?: string; signal?: AbortSignal },
  ): Promise<void>;
  onLogMessage(listener: (message: LoggingMessageParams & { server: string }) => void): Disposable;
  onResourceUpdated(listener: (update: { server: string; uri: string }) => void): Disposable;
  /** The host's skills (listing, routing by skill URI, entries, directory reads). */
  readonly skills: HostSkills;
}

/**
 * One agent's narrower view of a host (`host.view(options)` or `host.view('name')`): only the
 * tools of its servers that its `allow`/`block` globs let through, with its own per-agent
 * permissions (after the host's: both must allow) and result budget (when smaller than the
 * host's). Many views share the host's one pooled connection per server.
 *
 * A view holds no connection, no timer and nothing to close: it is a lens on its host and lives
 * as long as you keep it. A view of a closed host fails as the host does. Every call goes through
 * the host's pipeline (permissions, approval, pins, budgets, metrics, events; events carry the
 * view's name); a tool outside the view is invisible in `tools()` and refused by `callTool` with
 * `TOOL_DENIED` naming the tool and the view, before anything is sent.
 */
export class HostView {
  readonly #host: ViewHost;
  readonly #access: ViewAccess;

  /** @internal Made by `McpHost.view`. */
  constructor(host: ViewHost, access: ViewAccess) {
    this.#host = host;
    this.#access = access;
  }

  /** The view's name (its key in `McpHostOptions.views`, or `ViewOptions.name`). */
  get name(): string {
    return this.#access.name;
  }

  /** The tools this caller may see through this view, under the host's exposed names. */
  tools(context?: CallContext): HostTool[] {
    return this.#access.visible(this.#host.tools(context), context);
  }

  /**
   * Calls a tool of the view by its exposed name, as `host.callTool` does (both forms); a tool
   * outside the view, or one its permissions refuse this caller, is refused with `TOOL_DENIED`.
   * `{ task: true }` accepts a task, as for `host.callTool` (read it with `host.tasks`).
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
      return this.#host.callTool(
        nameOrParams,
        (argsOrOptions as JsonObject | undefined) ?? {},
        maybeOptions ?? {},
        this.#access,
      );
    return this.#host.callTool(
      nameOrParams.name,
      nameOrParams.arguments ?? {},
      (argsOrOptions as HostCallOptions | undefined) ?? {},
      this.#access,
    );
  }

  /**
   * Fires when the host's tool list changes in a way that touches this view: the event lists only
   * the view's tools (added, removed, changed); a change elsewhere does not fire it.
   */
  onToolsChanged(listener: (event: ToolsChangedEvent) => void): Disposable {
    let known = this.#names();
    return this.#host.onToolsChanged((event) => {
      const now = this.#names();
      const change: ToolsChangedEvent = {
        server: event.server,
        added: event.added.filter((name) => now.has(name)),
        removed: event.removed.filter((name) => known.has(name)),
        changed: event.changed.filter((name) => now.has(name) || known.has(name)),
      };
      known = now;
      if (change.added.length + change.removed.length + change.changed.length > 0) listener(change);
    });
  }

  /** The resources of the view's servers, each with the server it comes from. */
  async resources(): Promise<Array<Resource & { server: string }>> {
    return (await this.#host.resources()).filter((resource) =>
      this.#access.hasServer(resource.server),
    );
  }

  /** The resource templates of the view's servers, each with the server it comes from. */
  async resourceTemplates(): Promise<Array<ResourceTemplate & { server: string }>> {
    return (await this.#host.resourceTemplates()).filter((template) =>
      this.#access.hasServer(template.server),
    );
  }

  /**
   * Reads a resource of one of the view's servers, routed by URI to the first that lists it, else
   * to the first whose resource template matches it (or to the one named by `server`, which must
   * be in the view: `INVALID_ARGUMENT` otherwise).
   */
  async readResource(
    uri: string,
    options: HostRequestOptions & { server?: string } = {},
  ): Promise<ReadResourceResult> {
    return this.#host.readResource(uri, { ...options, server: await this.#ownerOf(uri, options) });
  }

  /**
   * Subscribes to a resource of one of the view's servers (routed as `readResource` is); resolves
   * with the server's name. See `McpHost.subscribeResource`.
   */
  async subscribeResource(
    uri: string,
    options: { server?: string; signal?: AbortSignal } = {},
  ): Promise<string> {
    return this.#host.subscribeResource(uri, {
      ...options,
      server: await this.#ownerOf(uri, options),
    });
  }

  /** Ends the subscriptions to `uri` on the view's servers (or the one named). */
  async unsubscribeResource(
    uri: string,
    options: { server?: string; signal?: AbortSignal } = {},
  ): Promise<void> {
    if (options.server !== undefined) this.#assertServer(options.server);
    const servers = options.server === undefined ? this.#servers() : [options.server];
    await Promise.all(
      servers.map((server) => this.#host.unsubscribeResource(uri, { ...options, server })),
    );
  }

  /** Completes an argument of a prompt or resource template of the view's servers. */
  async complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context: { arguments?: Record<string, string> } = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<CompleteResult> {
    const target = await this.#host.completionTarget(ref).catch(() => undefined);
    if (target === undefined || !this.#access.hasServer(target.server))
      throw new McpHostError('INVALID_ARGUMENT', `view '${this.name}' has no such reference`, {
        details: { ref, view: this.name },
      });
    return this.#host.complete(ref, argument, context, options);
  }

  /** Sets the log level of the view's servers (see `McpHost.setLoggingLevel`). */
  async setLoggingLevel(
    level: LoggingLevel,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    await Promise.all(
      this.#servers().map((server) =>
        this.#host.setLoggingLevel(level, { ...options, server }).catch(() => {}),
      ),
    );
  }

  /** The log messages of the view's servers. */
  onLogMessage(listener: (message: LoggingMessageParams & { server: string }) => void): Disposable {
    return this.#host.onLogMessage((message) => {
      if (this.#access.hasServer(message.server)) listener(message);
    });
  }

  /** Updates of subscribed resources of the view's servers. */
  onResourceUpdated(listener: (update: { server: string; uri: string }) => void): Disposable {
    return this.#host.onResourceUpdated((update) => {
      if (this.#access.hasServer(update.server)) listener(update);
    });
  }

  // ---- skills -----------------------------------------------------------------------------------

  /** The skills of the view's servers (see `McpHost.skills`). */
  async skills(options: { signal?: AbortSignal } = {}): Promise<HostSkill[]> {
    return (await this.#host.skills.skills(options)).filter((skill) =>
      this.#access.hasServer(skill.server),
    );
  }

  /** The view's servers that declared the skills extension. */
  skillServers(): SkillServer[] {
    return this.#host.skills.skillServers().filter((entry) => this.#access.hasServer(entry.server));
  }

  /**
   * A skill's entry by its `SKILL.md` URI, from the view's server that lists it (see
   * `McpHost.getSkill`); a skill only servers outside the view list is INVALID_ARGUMENT.
   */
  async getSkill(uri: string, options: SkillRequestOptions = {}): Promise<HostSkillEntry> {
    const server = await this.#skillOwnerOf(uri, options);
    return this.#host.skills.getSkill(uri, { ...options, server });
  }

  /** One page of a skill directory of the view's servers (see `McpHost.readSkillDirectory`). */
  async readSkillDirectory(
    uri: string,
    options: SkillRequestOptions & { cursor?: string } = {},
  ): Promise<SkillDirectoryPage> {
    const server = await this.#skillOwnerOf(uri, options);
    return this.#host.skills.readSkillDirectory(uri, { ...options, server });
  }

  async #skillOwnerOf(uri: string, options: SkillRequestOptions): Promise<string> {
    if (options.server !== undefined) {
      this.#assertServer(options.server);
      return options.server;
    }
    const owners = await this.#host.skills.ownersOf(uri, { signal: options.signal });
    return soleSkillOwner(
      uri,
      owners.filter((server) => this.#access.hasServer(server)),
      ` of view '${this.name}'`,
    );
  }

  /**
   * The view's server that owns `uri`: the one named, the first listing it, the one whose skills
   * hold it, the first template.
   */
  async #ownerOf(uri: string, options: { server?: string }): Promise<string> {
    if (options.server !== undefined) {
      this.#assertServer(options.server);
      return options.server;
    }
    const listed = (await this.resources()).find((resource) => resource.uri === uri);
    if (listed !== undefined) return listed.server;
    const skillOwners = (await this.#host.skills.ownersOf(uri).catch(() => [])).filter((server) =>
      this.#access.hasServer(server),
    );
    if (skillOwners.length > 0) return soleSkillOwner(uri, skillOwners, ` of view '${this.name}'`);
    const owner = (await this.resourceTemplates()).find((template) =>
      matchesUriTemplate(template.uriTemplate, uri),
    );
    if (owner === undefined)
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `no server of view '${this.name}' lists the resource '${uri}'`,
        { details: { uri, view: this.name } },
      );
    return owner.server;
  }

  #servers(): string[] {
    return this.#host.servers().filter((server) => this.#access.hasServer(server));
  }

  /** The prompts of the view's servers, under the host's namespaced names. */
  async prompts(): Promise<Array<Prompt & { server: string; originalName: string }>> {
    return (await this.#host.prompts()).filter((prompt) => this.#access.hasServer(prompt.server));
  }

  /** Gets a prompt of one of the view's servers by its namespaced name. */
  async getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: HostRequestOptions = {},
  ): Promise<GetPromptResult> {
    const server = await this.#host.promptServer(name);
    if (server === undefined || !this.#access.hasServer(server))
      throw new McpHostError('INVALID_ARGUMENT', `view '${this.name}' has no prompt '${name}'`, {
        details: { prompt: name, view: this.name },
      });
    return this.#host.getPrompt(name, args, options);
  }

  #names(): Set<string> {
    const names = new Set<string>();
    for (const tool of this.#host.listed()) if (this.#access.includes(tool)) names.add(tool.name);
    return names;
  }

  #assertServer(server: string): void {
    if (!this.#access.hasServer(server))
      throw new McpHostError('INVALID_ARGUMENT', `not in view '${this.name}'`, {
        serverName: server,
        details: { view: this.name },
      });
  }
}
