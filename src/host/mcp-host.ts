import { McpHostError } from '../errors/mcp-host-error.js';
import { Emitter } from '../internal/emitter.js';
import { silentLogger, type Logger } from '../internal/logger.js';
import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  Tool,
} from '../protocol/types.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { settlesWithin } from '../internal/wait.js';
import {
  HostCalls,
  missingToolError,
  type HostCallOptions,
  type ToolCallEvent,
} from './host-calls.js';
import { HostCatalogue } from './host-catalogue.js';
import {
  createHostPins,
  identityOf,
  quarantinedTools,
  type QuarantinedSummary,
} from './host-pins.js';
import type { CallContext, HostServerDefinition, HostTool, NativeTool } from './host-options.js';
import { HostResources } from './host-resources.js';
import type {
  CatalogueSnapshot,
  DrainOptions,
  McpHostOptions,
  ToolsChangedEvent,
} from './mcp-host-options.js';
import { HostMetrics, type MetricsSnapshot } from './metrics.js';
import type { PinEvent } from './pin-types.js';
import { ServerSlot } from './server-slot.js';
import { type SlotHost } from './slot-host.js';
import { createSlotHost } from './slot-host.js';
import type { ServerStatus } from './server-status.js';
import { assertServerKey } from './server-key.js';
import type { ToolPins } from './tool-pins.js';

export const DEFAULT_HOST_CLOSE_TIMEOUT_MS = 5_000;

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
  readonly #statusEmitter = new Emitter<ServerStatus>();
  readonly #toolsEmitter = new Emitter<ToolsChangedEvent>();
  readonly #callEmitter = new Emitter<ToolCallEvent>();
  readonly #metrics = new HostMetrics();
  readonly #pins: ToolPins | undefined;
  readonly #pinEmitter = new Emitter<PinEvent>();
  readonly #calls: HostCalls;
  readonly #fireTools = (event: ToolsChangedEvent): void => this.#toolsEmitter.fire(event);
  readonly #resources: HostResources;
  #closing: Promise<void> | undefined;
  /** What every slot of this host is given (see createSlotHost). */
  #slotHost: SlotHost | undefined;

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
    this.#calls = new HostCalls({
      options,
      logger: this.#logger,
      metrics: this.#metrics,
      callEmitter: this.#callEmitter,
      slots: this.#slots,
    });
    this.#resources = new HostResources({
      slots: this.#slots,
      catalogue: this.#catalogue,
      logger: this.#logger,
      slot: (name) => this.#slot(name),
    });
    this.#pins = createHostPins(options.pins, options.stateStore, this.#logger, (event) =>
      this.#pinEmitter.fire(event),
    );
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
  quarantined(): QuarantinedSummary[] {
    return quarantinedTools(this.#slots.values());
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
    this.#catalogue.removeServer(name, this.#fireTools);
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
    if (slot.tools.length > 0) this.#catalogue.setServerTools(slot, slot.tools, this.#fireTools);
    else this.#catalogue.removeServer(definition.name, this.#fireTools);
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
    this.#catalogue.addNative(tool, this.#fireTools);
  }

  unregisterTool(name: string): boolean {
    return this.#catalogue.removeNative(name, this.#fireTools);
  }

  /**
   * Every tool the caller may see: ready servers' tools (after static filters and the pin check)
   * and native tools, under their exposed names, minus what the host's filter hides from it.
   */
  tools(context?: CallContext): HostTool[] {
    for (const slot of this.#slots.values()) void slot.tools; // stale-while-revalidate
    return this.#calls.visible(this.#catalogue.list(), context);
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
    if (entry === undefined)
      return Promise.reject(missingToolError(this.#slots.values(), this.#catalogue, name));
    const refusal = this.#calls.refusal(entry, options.context);
    if (refusal !== undefined) return Promise.reject(refusal);
    return this.#calls.call(entry, args, options);
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

  /** Reads a resource, routed by URI to the server that listed it (or named by `server`). */
  readResource(
    uri: string,
    options: { server?: string; signal?: AbortSignal } = {},
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
    options: { signal?: AbortSignal } = {},
  ): Promise<GetPromptResult> {
    return this.#resources.getPrompt(name, args, options);
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
    assertServerKey(this.#slots, definition.name, this.#options.naming);
    const slot = this.#createSlot(
      definition,
      this.#options.snapshot?.servers[definition.name]?.tools,
    );
    this.#slots.set(definition.name, slot);
    if (slot.tools.length > 0) this.#catalogue.setServerTools(slot, slot.tools, this.#fireTools);
    return slot;
  }

  #createSlot(definition: HostServerDefinition, seed: readonly Tool[] | undefined): ServerSlot {
    this.#slotHost ??= createSlotHost({
      options: this.#options,
      logger: this.#logger,
      pins: this.#pins,
      registered: (name) => this.#slots.get(name),
      closing: () => this.#closing !== undefined,
      fireStatus: (slot) => this.#statusEmitter.fire(slot.status()),
      setServerTools: (slot) => this.#catalogue.setServerTools(slot, slot.tools, this.#fireTools),
    });
    return new ServerSlot(definition, this.#slotHost, seed);
  }

  #slot(name: string): ServerSlot {
    const slot = this.#slots.get(name);
    if (slot === undefined)
      throw new McpHostError('INVALID_ARGUMENT', `no server is named '${name}'`, {
        serverName: name,
      });
    return slot;
  }

  #assertOpen(): void {
    if (this.#closing !== undefined)
      throw new McpHostError('CONNECTION_CLOSED', 'the host is closed');
  }
}
