import type { CallOptions } from '../client/mcp-client.js';
import type { JsonRpcError } from '../errors/index.js';
import { McpHostError, toMcpHostError } from '../errors/index.js';
import { Emitter } from '../internal/emitter.js';
import { silentLogger, type Logger } from '../internal/logger.js';
import type {
  CallToolResult,
  GetPromptResult,
  JsonObject,
  Prompt,
  ReadResourceResult,
  Resource,
  Tool,
} from '../protocol/index.js';
import { createSchemaValidator, type SchemaValidator } from '../schema/index.js';
import { createAuditRecord, type AuditSink } from './audit.js';
import { classifyCallError, type CallOutcome } from './call-outcome.js';
import { cleanArguments } from './clean-arguments.js';
import { HostMetrics, type MetricsSnapshot } from './metrics.js';
import type { PinEvent, PinPolicy } from './pin-types.js';
import { quarantinedError } from './quarantined-error.js';
import { ToolPins } from './tool-pins.js';
import { serverKeyProblems, type ToolNamingOptions } from './tool-names.js';
import { ToolAccess, type AccessDenial } from './tool-filters.js';
import { MemoryStateStore } from '../state/state-store.js';
import { applyResultBudget, resultByteLength } from './result-budget.js';
import { traceToolCallEnd, traceToolCallError, traceToolCallStart } from './tracing.js';
import type {
  CallContext,
  HostOptions,
  HostServerDefinition,
  HostTool,
  NativeTool,
} from './host-options.js';
import { HostCatalogue, type CatalogueEntry } from './host-catalogue.js';
import { ServerSlot, type HealthCheckOptions, type ToolReview } from './server-slot.js';
import type { ServerStatus } from './server-status.js';
import type { RestartOptions } from './restart-policy.js';
import { settlesWithin } from '../internal/wait.js';

export const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;
export const DEFAULT_HOST_CLOSE_TIMEOUT_MS = 5_000;

/** How a server leaves (`removeServer`) or gives way to a new definition (`replaceServer`). */
export interface DrainOptions {
  /**
   * How long its calls in flight (and queued) may take to finish before its connection is closed
   * (default 0: at once); calls still pending then fail with a typed error (`CONNECTION_CLOSED`
   * or `SERVER_UNAVAILABLE`). New calls never reach it meanwhile.
   */
  drainTimeoutMs?: number;
}

/** The tool lists of a host's servers, as plain JSON (see `McpHost.snapshot()`). */
export interface CatalogueSnapshot {
  version: 1;
  servers: Record<string, { tools: Tool[] }>;
}

/** Options of one `host.callTool`. */
export interface HostCallOptions extends CallOptions {
  /** Who is calling: seen by the filter, per-agent permissions and the approval hook. */
  context?: CallContext;
  /**
   * Send the call again (once, after the server is back) if the connection was lost while it was
   * in flight, accepting that the server may run it twice. Without it, only a call that certainly
   * never reached the server is resent, or one a `trusted` server marks read-only or idempotent.
   */
  retry?: boolean;
}

/** A tool call as events and audit see it (no argument values). */
export interface ToolCallEvent {
  phase: 'started' | 'completed' | 'failed';
  tool: string;
  server: string | undefined;
  originalName: string;
  agent: string | undefined;
  /** Milliseconds since the call started (0 when it starts). */
  durationMs: number;
  /** `ok`, `tool_error` (an `isError` result) or the failure's code (`jsonrpc:<n>` for JSON-RPC errors). */
  outcome?: string;
  error?: McpHostError | JsonRpcError;
}

/** The host's whole tool list changed: what was added and removed, by exposed name. */
export interface ToolsChangedEvent {
  server: string | undefined;
  added: string[];
  removed: string[];
  changed: string[];
}

export interface McpHostOptions extends HostOptions {
  restart?: RestartOptions;
  health?: HealthCheckOptions;
  /** Check arguments against the tool's `inputSchema` before sending (default true). */
  validateArguments?: boolean;
  schemaValidator?: SchemaValidator;
  /**
   * How MCP tools are named: `prefix` (default `mcp`), `separator` (default `__`), a `format`
   * function, or `providerSafe: false` to keep names as the format makes them (see ToolNames).
   */
  naming?: ToolNamingOptions;
  /**
   * Tool pinning (rug-pull defence): `trust-on-first-use` (default) pins each server's first
   * listing and quarantines a tool whose definition changes later; `strict` also holds new tools;
   * or a policy object; `false` turns it off. Pins live in `stateStore` (in memory without one).
   */
  pins?: PinPolicy | false;
  /**
   * Per-agent tool permissions (`context.agent`): allow and block globs over exposed names, or
   * over `server/tool` for a glob containing `/`; block wins; the key `*` applies to agents not
   * listed and to callers without one. Applied when listing and when calling, like `filter`.
   */
  /**
   * A catalogue saved by `snapshot()`: each server's tools are offered (and callable: the call
   * waits for the connect) before the server has connected; its first listing replaces them.
   */
  snapshot?: CatalogueSnapshot;
  permissions?: Readonly<Record<string, { allow?: readonly string[]; block?: readonly string[] }>>;
  /** Receives one record per call (time, caller, server, tool, argument digest, outcome, duration). */
  audit?: AuditSink;
  /** Put the (redacted) argument values in audit records too (default false: a digest only). */
  auditArguments?: boolean;
}

/**
 * Many MCP servers as one toolset. Servers are added, removed, enabled, disabled and restarted by
 * name at run time and supervised (restart with backoff, crash-loop limit, health checks). Their
 * tools, and native tools registered beside them, are offered under one namespace
 * (`mcp__{server}__{tool}`), behind the host's filter, permissions and approval hook; one
 * `callTool` routes each call to its server. See docs/host.md.
 */
export class McpHost implements AsyncDisposable {
  readonly #options: McpHostOptions;
  readonly #logger: Logger;
  readonly #slots = new Map<string, ServerSlot>();
  /** Servers removed or replaced that are still finishing their calls (see DrainOptions). */
  readonly #retiring = new Set<ServerSlot>();
  readonly #catalogue: HostCatalogue;
  readonly #validator: SchemaValidator | undefined;
  readonly #statusEmitter = new Emitter<ServerStatus>();
  readonly #toolsEmitter = new Emitter<ToolsChangedEvent>();
  readonly #callEmitter = new Emitter<ToolCallEvent>();
  readonly #metrics = new HostMetrics();
  readonly #pins: ToolPins | undefined;
  readonly #access: ToolAccess<HostTool> | undefined;
  readonly #pinEmitter = new Emitter<PinEvent>();
  #closing: Promise<void> | undefined;

  /** A server changed state (connecting, ready, restarting, crash_loop, ...). */
  readonly onServerStatus = this.#statusEmitter.event;
  /** The tool list changed (a server connected, relisted, or left; a native tool came or went). */
  readonly onToolsChanged = this.#toolsEmitter.event;
  /** Every tool call: started, then completed or failed. */
  readonly onToolCall = this.#callEmitter.event;
  /** Tool pinning: a tool pinned, quarantined (with the diff) or no longer listed. */
  readonly onPinEvent = this.#pinEmitter.event;

  constructor(options: McpHostOptions = {}) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#catalogue = new HostCatalogue(options.naming);
    this.#validator =
      options.validateArguments === false
        ? undefined
        : (options.schemaValidator ?? createSchemaValidator());
    this.#access =
      options.permissions === undefined
        ? undefined
        : new ToolAccess({ agents: options.permissions });
    if (options.pins !== false) {
      this.#pins = new ToolPins({
        store: options.stateStore ?? new MemoryStateStore(),
        policy: options.pins ?? 'trust-on-first-use',
        logger: this.#logger,
      });
      this.#pins.onEvent((event) => this.#pinEmitter.fire(event));
    }
    for (const server of options.servers ?? []) this.#addSlot(server);
  }

  /**
   * Approves the held definition of a quarantined tool (only the one shown, when `pin` is given)
   * and relists the server's tools, so the tool is offered again.
   */
  async approveTool(server: string, tool: string, options: { pin?: string } = {}): Promise<void> {
    const slot = this.#slot(server);
    if (this.#pins === undefined)
      throw new McpHostError('INVALID_ARGUMENT', 'tool pinning is off (pins: false)');
    await this.#pins.approve(identityOf(slot.definition), tool, options);
    await slot.refreshTools();
  }

  /** The tools held back by the pin check, per server, with the reason and the diff. */
  quarantined(): Array<{
    server: string;
    tool: string;
    reason: string;
    pin: string | undefined;
    summary: string;
  }> {
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

  // ---- servers ----------------------------------------------------------------------------------

  /** Connects every enabled, non-lazy server in parallel; resolves when each has settled. */
  async start(): Promise<ServerStatus[]> {
    this.#assertOpen();
    await Promise.all(
      [...this.#slots.values()]
        .filter((slot) => slot.definition.lazy !== true)
        .map((slot) => slot.connect()),
    );
    return this.status();
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
    this.#catalogue.removeServer(name, (event) => this.#toolsEmitter.fire(event));
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
    const fire = (event: ToolsChangedEvent): void => this.#toolsEmitter.fire(event);
    if (slot.tools.length > 0) this.#catalogue.setServerTools(slot, slot.tools, fire);
    else this.#catalogue.removeServer(definition.name, fire);
    this.#statusEmitter.fire(slot.status());
    const retired = this.#retire(old, options.drainTimeoutMs ?? 0);
    if (definition.lazy !== true) await slot.connect();
    await retired;
    return slot.status();
  }

  /** Connects a server now (an idle or lazy one, or one waiting for its next restart). */
  async connectServer(name: string): Promise<ServerStatus> {
    return this.#act(name, (slot) => slot.connect());
  }

  /** Closes a server's connection but keeps it enabled (`idle`): its next call reconnects it. */
  async disconnectServer(name: string): Promise<ServerStatus> {
    return this.#act(name, (slot) => slot.disconnect());
  }

  async enableServer(name: string): Promise<ServerStatus> {
    return this.#act(name, (slot) => slot.enable());
  }

  async disableServer(name: string): Promise<ServerStatus> {
    return this.#act(name, (slot) => slot.disable());
  }

  /** Reconnects a server now: also the way out of `crash_loop`, `failed` and `needs_auth`. */
  async restartServer(name: string): Promise<ServerStatus> {
    return this.#act(name, (slot) => slot.restart());
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

  async #act(name: string, action: (slot: ServerSlot) => Promise<void>): Promise<ServerStatus> {
    const slot = this.#slot(name);
    await action(slot);
    return slot.status();
  }

  /** Every server's status, in registration order. */
  status(): ServerStatus[] {
    return [...this.#slots.values()].map((slot) => slot.status());
  }

  serverStatus(name: string): ServerStatus {
    return this.#slot(name).status();
  }

  // ---- tools ------------------------------------------------------------------------------------

  /** Registers a native tool beside the MCP tools; its name must be free (`INVALID_ARGUMENT`). */
  registerTool(tool: NativeTool): void {
    this.#assertOpen();
    this.#catalogue.addNative(tool, (event) => this.#toolsEmitter.fire(event));
  }

  unregisterTool(name: string): boolean {
    return this.#catalogue.removeNative(name, (event) => this.#toolsEmitter.fire(event));
  }

  /**
   * Every tool the caller may see: ready servers' tools (after static filters and the pin check)
   * and native tools, under their exposed names, minus what the host's filter hides from it.
   */
  tools(context?: CallContext): HostTool[] {
    for (const slot of this.#slots.values()) void slot.tools; // stale-while-revalidate
    const filter = this.#options.filter;
    const access = this.#access;
    const all = this.#catalogue.list();
    if (filter === undefined && access === undefined) return all;
    return all.filter(
      (tool) =>
        (access === undefined || this.#permitted(access, tool, context) === undefined) &&
        (filter === undefined || this.#shows(filter, tool, context)),
    );
  }

  /**
   * Calls a tool by its exposed name, wherever it lives. Refused before sending (typed errors):
   * an unknown name (`TOOL_NOT_FOUND`), a tool hidden from this caller or refused by the approval
   * hook (`TOOL_DENIED`), a quarantined tool (`TOOL_QUARANTINED`), a server that is down
   * (`SERVER_UNAVAILABLE`, at once), a full queue (`QUEUE_FULL`). Arguments that do not match the
   * tool's `inputSchema`, and native tools that throw, give an error result the model can read.
   */
  callTool(
    name: string,
    args: JsonObject = {},
    options: HostCallOptions = {},
  ): Promise<CallToolResult> {
    const entry = this.#catalogue.get(name);
    if (entry === undefined) return Promise.reject(this.#missing(name));
    const context = options.context;
    const access = this.#access;
    if (access !== undefined) {
      const denial = this.#permitted(access, entry.tool, context);
      if (denial !== undefined)
        return Promise.reject(
          this.#denied(entry, `not permitted for agent '${context?.agent ?? '*'}'`),
        );
    }
    const filter = this.#options.filter;
    if (filter !== undefined && !this.#shows(filter, entry.tool, context))
      return Promise.reject(this.#denied(entry, 'hidden from this caller by the host filter'));
    return this.#call(entry, args, options);
  }

  async #call(
    entry: CatalogueEntry,
    args: JsonObject,
    options: HostCallOptions,
  ): Promise<CallToolResult> {
    const started = performance.now();
    const tool = entry.tool;
    const agent = options.context?.agent;
    const trace = traceToolCallStart(tool.server, tool.name, args, agent);
    this.#event('started', tool, agent, 0);
    let result: CallToolResult;
    try {
      const approve = this.#options.approve;
      if (approve !== undefined) {
        let approved: boolean;
        try {
          approved = await approve({ tool, args, context: options.context });
        } catch (error) {
          throw this.#denied(entry, 'the approval hook failed', error);
        }
        if (!approved) throw this.#denied(entry, 'refused by the approval hook');
      }
      const cleaned = cleanArguments(args, tool.inputSchema);
      const invalid = await this.#checkArguments(tool, cleaned);
      result =
        invalid ??
        (entry.kind === 'native'
          ? await runNative(entry.native, cleaned, options)
          : // A server replaced since the lookup (a changed configuration) takes the call.
            await (this.#slots.get(entry.slot.name) ?? entry.slot).callTool(
              tool.originalName,
              cleaned,
              {
                signal: options.signal,
                timeoutMs: options.timeoutMs ?? this.#options.callTimeoutMs,
                onProgress: options.onProgress,
              },
              options.retry === true ||
                (entry.slot.definition.trusted === true &&
                  (tool.annotations?.readOnlyHint === true ||
                    tool.annotations?.idempotentHint === true)),
            ));
    } catch (error) {
      const failure = toMcpHostError(error, { serverName: tool.server, tool: tool.name });
      const { outcome, errorCode } = classifyCallError(failure);
      const durationMs = performance.now() - started;
      this.#metrics.recordCall({
        server: tool.server,
        tool: tool.name,
        durationMs,
        outcome,
        errorCode,
      });
      this.#audit(tool, agent, args, outcome, durationMs, errorCode);
      traceToolCallError(trace, failure, outcome, errorCode);
      this.#event('failed', tool, agent, durationMs, errorCode, failure);
      throw failure;
    }
    const outcome = result.isError === true ? 'tool_error' : 'ok';
    const budget = this.#options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
    const bytesIn = resultByteLength(result);
    if (budget > 0 && bytesIn > budget) {
      const limited = applyResultBudget(result, { maxBytes: budget });
      if (limited.truncated)
        this.#logger.info(
          `tool '${tool.name}': result of ${bytesIn} bytes cut to the ${budget}-byte budget`,
        );
      result = limited.result;
    }
    const durationMs = performance.now() - started;
    this.#metrics.recordCall({
      server: tool.server,
      tool: tool.name,
      durationMs,
      outcome,
      bytesIn,
    });
    this.#audit(tool, agent, args, outcome, durationMs, undefined);
    traceToolCallEnd(trace, result, outcome);
    this.#event('completed', tool, agent, durationMs, outcome);
    return result;
  }

  #event(
    phase: ToolCallEvent['phase'],
    tool: HostTool,
    agent: string | undefined,
    durationMs: number,
    outcome?: string,
    error?: McpHostError | JsonRpcError,
  ): void {
    if (this.#callEmitter.listenerCount === 0) return;
    this.#callEmitter.fire({
      phase,
      tool: tool.name,
      server: tool.server,
      originalName: tool.originalName,
      agent,
      durationMs,
      ...(outcome === undefined ? {} : { outcome }),
      ...(error === undefined ? {} : { error }),
    });
  }

  #audit(
    tool: HostTool,
    caller: string | undefined,
    args: JsonObject,
    outcome: CallOutcome,
    durationMs: number,
    errorCode: string | undefined,
  ): void {
    const sink = this.#options.audit;
    if (sink === undefined) return;
    try {
      sink(
        createAuditRecord(
          {
            caller,
            server: tool.server,
            tool: tool.name,
            arguments: args,
            outcome,
            durationMs,
            errorCode,
          },
          { includeArguments: this.#options.auditArguments === true },
        ),
      );
    } catch (error) {
      this.#logger.warn('host: the audit sink threw', { error: String(error) });
    }
  }

  /** Per-server and per-tool counters and latency percentiles since the host started. */
  metrics(): MetricsSnapshot {
    return this.#metrics.snapshot();
  }

  /** The host filter's verdict; a filter that throws hides the tool (and is logged). */
  #shows(
    filter: NonNullable<HostOptions['filter']>,
    tool: HostTool,
    context: CallContext | undefined,
  ): boolean {
    try {
      return filter(tool, context);
    } catch (error) {
      this.#logger.warn(`host: the tool filter threw on '${tool.name}'; the tool is hidden`, {
        error: String(error),
      });
      return false;
    }
  }

  /** Why the per-agent permissions hide a tool from this caller, or undefined. */
  #permitted(
    access: ToolAccess<HostTool>,
    tool: HostTool,
    context: CallContext | undefined,
  ): AccessDenial | undefined {
    return access.checkStatic(tool, context?.agent === undefined ? {} : { agent: context.agent });
  }

  /** An error result naming what is wrong with the arguments, or undefined when they are fine. */
  async #checkArguments(tool: HostTool, args: JsonObject): Promise<CallToolResult | undefined> {
    if (this.#validator === undefined) return undefined;
    const compiled = await this.#validator.compile(tool.inputSchema);
    if (!compiled.ok) return undefined; // the listing excluded tools with unusable schemas
    const verdict = compiled.validate(args);
    if (verdict.valid) return undefined;
    return {
      isError: true,
      content: [
        {
          type: 'text',
          text: `Invalid arguments for tool '${tool.name}': ${verdict.message}. Check the tool's input schema and call it again.`,
        },
      ],
    };
  }

  // ---- resources and prompts ------------------------------------------------------------------

  /** Every ready server's resources, each with the server it comes from. */
  async resources(): Promise<Array<Resource & { server: string }>> {
    const lists = await Promise.allSettled(
      this.#connected()
        .filter((slot) => slot.client?.session?.capabilities.resources !== undefined)
        .map(async (slot) => {
          const listing = await slot.client!.listResources();
          return listing.items.map((resource) => ({ ...resource, server: slot.name }));
        }),
    );
    return this.#fulfilled(lists);
  }

  /** The lists that arrived; a server whose list failed is left out (and logged), not fatal. */
  #fulfilled<T>(lists: PromiseSettledResult<T[]>[]): T[] {
    const items: T[] = [];
    for (const list of lists) {
      if (list.status === 'fulfilled') items.push(...list.value);
      else this.#logger.warn('host: a server failed to list', { error: String(list.reason) });
    }
    return items;
  }

  /** Reads a resource, routed by URI to the server that listed it (or named by `server`). */
  async readResource(
    uri: string,
    options: { server?: string; signal?: AbortSignal } = {},
  ): Promise<ReadResourceResult> {
    const slot =
      options.server !== undefined ? this.#slot(options.server) : await this.#ownerOf(uri);
    const client = await slot.ready();
    return client.readResource(uri, { signal: options.signal });
  }

  /** Every ready server's prompts under namespaced names (`mcp__{server}__{prompt}`). */
  async prompts(): Promise<Array<Prompt & { server: string; originalName: string }>> {
    const lists = await Promise.allSettled(
      this.#connected()
        .filter((slot) => slot.client?.session?.capabilities.prompts !== undefined)
        .map(async (slot) => {
          const listing = await slot.client!.listPrompts();
          const names = this.#catalogue.setPrompts(
            slot.name,
            listing.items.map((prompt) => prompt.name),
          );
          return listing.items.flatMap((prompt, i) =>
            names[i] === undefined
              ? []
              : [{ ...prompt, name: names[i], originalName: prompt.name, server: slot.name }],
          );
        }),
    );
    return this.#fulfilled(lists);
  }

  /** Gets a prompt by its namespaced name. */
  async getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<GetPromptResult> {
    let target = this.#catalogue.resolvePrompt(name);
    if (target === undefined) {
      // Prompt names are assigned when prompts are listed: list them if this host has not yet.
      await this.prompts();
      target = this.#catalogue.resolvePrompt(name);
    }
    if (target === undefined || !this.#slots.has(target.server))
      throw new McpHostError('INVALID_ARGUMENT', `no prompt is named '${name}'`, {
        details: { prompt: name },
      });
    const client = await this.#slot(target.server).ready();
    return client.getPrompt(target.prompt, args, options);
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
    const all = Promise.allSettled(
      [...this.#slots.values(), ...this.#retiring].map((slot) => slot.close()),
    );
    const bound = this.#options.closeTimeoutMs ?? DEFAULT_HOST_CLOSE_TIMEOUT_MS;
    if (!(await settlesWithin(all, bound, { ref: true })))
      this.#logger.warn(`host: servers still closing after ${bound} ms`);
    await all;
    this.#statusEmitter.clear();
    this.#toolsEmitter.clear();
    this.#callEmitter.clear();
  }

  // ---- plumbing -------------------------------------------------------------------------------

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
    if (this.#slots.has(definition.name))
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `a server named '${definition.name}' is already registered`,
        { serverName: definition.name },
      );
    // A key that cannot namespace tools (empty, too long, containing the separator, or the same
    // as another key once sanitised) is refused here rather than silently offering no tools.
    const problem = serverKeyProblems(
      [...this.#slots.keys(), definition.name],
      this.#options.naming,
    ).find((p) => p.server === definition.name);
    if (problem !== undefined)
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `server key '${definition.name}': ${problem.message}`,
        {
          serverName: definition.name,
          details: { reason: problem.reason },
        },
      );
    const slot = this.#createSlot(
      definition,
      this.#options.snapshot?.servers[definition.name]?.tools,
    );
    this.#slots.set(definition.name, slot);
    if (slot.tools.length > 0)
      this.#catalogue.setServerTools(slot, slot.tools, (event) => this.#toolsEmitter.fire(event));
    return slot;
  }

  /**
   * A slot for `definition`. Its events count only while it is the one registered under its name
   * (a removed or replaced server still finishing its calls must not touch its successor's tools
   * or status); a removed one still reports its last status.
   */
  #createSlot(definition: HostServerDefinition, seed: readonly Tool[] | undefined): ServerSlot {
    return new ServerSlot(
      definition,
      {
        logger: this.#logger,
        stateStore: this.#options.stateStore,
        restart: this.#options.restart,
        health: this.#options.health,
        review: (reviewed, tools) => this.#review(reviewed, tools),
        statusChanged: (changed) => {
          const current = this.#slots.get(changed.name);
          if (current === undefined || current === changed)
            this.#statusEmitter.fire(changed.status());
        },
        toolsChanged: (changed) => {
          // Closing: no rebuild per server leaving, nobody will list tools again.
          if (this.#closing !== undefined || this.#slots.get(changed.name) !== changed) return;
          this.#catalogue.setServerTools(changed, changed.tools, (event) =>
            this.#toolsEmitter.fire(event),
          );
        },
      },
      seed,
    );
  }

  async #review(slot: ServerSlot, tools: Tool[]): Promise<ToolReview> {
    if (this.#pins === undefined) return { allowed: tools, quarantined: new Map() };
    const review = await this.#pins.review(identityOf(slot.definition), tools);
    for (const held of review.quarantined)
      this.#logger.warn(
        `server '${slot.name}': tool '${held.tool.name}' quarantined (${held.reason}): ${held.diff.summary}`,
      );
    return {
      allowed: review.allowed,
      quarantined: new Map(review.quarantined.map((held) => [held.tool.name, held])),
    };
  }

  #slot(name: string): ServerSlot {
    const slot = this.#slots.get(name);
    if (slot === undefined)
      throw new McpHostError('INVALID_ARGUMENT', `no server is named '${name}'`, {
        serverName: name,
      });
    return slot;
  }

  #connected(): ServerSlot[] {
    return [...this.#slots.values()].filter((slot) => slot.client !== undefined);
  }

  async #ownerOf(uri: string): Promise<ServerSlot> {
    for (const slot of this.#connected()) {
      const client = slot.client;
      if (client?.session?.capabilities.resources === undefined) continue;
      const listing = await client.listResources().catch(() => undefined);
      if (listing?.items.some((resource) => resource.uri === uri) === true) return slot;
    }
    throw new McpHostError('INVALID_ARGUMENT', `no connected server lists the resource '${uri}'`, {
      details: { uri },
    });
  }

  /** TOOL_QUARANTINED (with the diff) for a tool the pin check holds back, else TOOL_NOT_FOUND. */
  #missing(name: string): McpHostError {
    for (const slot of this.#slots.values()) {
      for (const held of slot.quarantined.values()) {
        if (this.#catalogue.quarantinedName(slot.name, held.tool.name) === name)
          return quarantinedError(slot.name, held.tool.name, held.diff, held.reason);
      }
    }
    return new McpHostError('TOOL_NOT_FOUND', `no tool is named '${name}'`, { tool: name });
  }

  #denied(entry: CatalogueEntry, reason: string, cause?: unknown): McpHostError {
    return new McpHostError('TOOL_DENIED', `tool '${entry.tool.name}' was refused: ${reason}`, {
      serverName: entry.tool.server,
      tool: entry.tool.name,
      details: { reason },
      ...(cause === undefined ? {} : { cause }),
    });
  }

  #assertOpen(): void {
    if (this.#closing !== undefined)
      throw new McpHostError('CONNECTION_CLOSED', 'the host is closed');
  }
}

function identityOf(definition: HostServerDefinition): string {
  return definition.identity ?? definition.name;
}

async function runNative(
  tool: NativeTool,
  args: JsonObject,
  options: HostCallOptions,
): Promise<CallToolResult> {
  const signal = options.signal ?? new AbortController().signal;
  try {
    const result = await tool.run(args, { signal, context: options.context });
    return typeof result === 'string' ? { content: [{ type: 'text', text: result }] } : result;
  } catch (error) {
    if (signal.aborted) throw error;
    const message = error instanceof Error ? error.message : String(error);
    return {
      isError: true,
      content: [{ type: 'text', text: `Tool '${tool.name}' failed: ${message}` }],
    };
  }
}
