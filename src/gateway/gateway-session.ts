import { JsonRpcError, JsonRpcErrorCode } from '../errors/json-rpc-error.js';
import type { McpHostError } from '../errors/mcp-host-error.js';
import { toMcpHostError } from '../errors/to-mcp-host-error.js';
import type { Disposable } from '../internal/disposable.js';
import type { Logger } from '../internal/logger.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { JsonRpcPeer } from '../jsonrpc/peer.js';
import type { RequestContext } from '../jsonrpc/peer-options.js';
import type { Transport } from '../jsonrpc/transport.js';
import { mcpPeerConventions } from '../protocol/conventions.js';
import { isObject } from '../protocol/guards.js';
import { McpMethod } from '../protocol/methods.js';
import type {
  Implementation,
  InitializeResult,
  ProgressNotificationParams,
  ServerCapabilities,
} from '../protocol/types.js';
import { LATEST_LEGACY_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import { toolCallFailure, toRequestError } from './gateway-errors.js';
import type { GatewaySource } from './gateway-source.js';
import { pageOf } from './pagination.js';

/**
 * Where one connection stands: `new` until the client's `initialize`, `initializing` until its
 * `notifications/initialized`, `ready` while it is served, `closed` for good.
 */
export type GatewaySessionState = 'new' | 'initializing' | 'ready' | 'closed';

/** What every session of one gateway shares. */
export interface GatewaySessionOptions {
  source: GatewaySource;
  serverInfo: Implementation;
  instructions: string | undefined;
  pageSize: number;
  logger: Logger;
}

/** The capabilities the gateway declares: lists that change, and say so. */
const CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: true },
  resources: { listChanged: true },
  prompts: { listChanged: true },
};

type ListKind = 'tools' | 'resources' | 'prompts';

/** How long a call that reported progress waits for the client to have handled it. */
const PROGRESS_PING_MS = 1_000;

const LIST_CHANGED: Record<ListKind, string> = {
  tools: McpMethod.ToolsListChanged,
  resources: McpMethod.ResourcesListChanged,
  prompts: McpMethod.PromptsListChanged,
};

/**
 * One client of the gateway, in the legacy era (2024-11-05 to 2025-11-25), over one transport: the
 * `initialize` handshake with version negotiation, `ping`, the tools, resources and prompts of the
 * gateway's source (paginated), progress passed on from the backend to the client and the
 * client's `notifications/cancelled` aborting the backend call. A `list_changed` notification is
 * sent when what this client is offered really changed: each list is compared with what the
 * client was last told of, so a change elsewhere in the host (another view's tools, a server
 * restarting to the same tools) sends nothing.
 */
export class GatewaySession {
  readonly #peer: JsonRpcPeer;
  readonly #options: GatewaySessionOptions;
  readonly #subscriptions: Disposable[] = [];
  #state: GatewaySessionState = 'new';
  /** What the client was last told of each list (its JSON), when known. */
  readonly #known = new Map<ListKind, string>();
  /** The servers connected when the resources and prompts were last compared (none yet). */
  #connected: string | undefined;
  /** One comparison of resources and prompts at a time (each lists every server). */
  #compare: Promise<void> = Promise.resolve();
  #compareQueued = false;
  #toolsCheckQueued = false;

  constructor(transport: Transport, options: GatewaySessionOptions) {
    this.#options = options;
    this.#peer = new JsonRpcPeer(transport, {
      conventions: mcpPeerConventions,
      logger: options.logger,
    });
    this.#peer.onClose(() => this.#closed());
    this.#handle();
  }

  get state(): GatewaySessionState {
    return this.#state;
  }

  /** Fires once when the connection is gone (undefined after a local close). */
  onClose(listener: (reason: McpHostError | undefined) => void): Disposable {
    return this.#peer.onClose(listener);
  }

  /** Opens the transport and serves it. */
  async start(): Promise<void> {
    await this.#peer.start();
  }

  /** Closes the connection (in-flight backend calls are aborted). Idempotent. */
  async close(): Promise<void> {
    await this.#peer.close();
    this.#closed();
  }

  #closed(): void {
    this.#state = 'closed';
    for (const subscription of this.#subscriptions.splice(0)) subscription.dispose();
  }

  #handle(): void {
    const peer = this.#peer;
    peer.setRequestHandler(McpMethod.Initialize, (params) => this.#initialize(params));
    peer.setNotificationHandler(McpMethod.Initialized, () => this.#initialized());
    peer.setRequestHandler(McpMethod.Ping, () => ({}));
    const serve = (
      method: string,
      handler: (params: unknown, context: RequestContext) => unknown,
    ) =>
      peer.setRequestHandler(method, (params, context) => {
        if (this.#state === 'new')
          throw new JsonRpcError(
            JsonRpcErrorCode.InvalidRequest,
            `'${method}' before 'initialize': initialize the session first`,
          );
        return handler(params, context);
      });
    serve(McpMethod.ToolsList, (params) => this.#page('tools', this.#tools(), params));
    serve(McpMethod.ToolsCall, (params, context) => this.#callTool(params, context));
    serve(McpMethod.ResourcesList, async (params) =>
      this.#page('resources', await this.#resources(), params),
    );
    serve(McpMethod.ResourceTemplatesList, async (params) => {
      const templates = (await this.#options.source.resourceTemplates()).map(
        ({ server: _server, ...template }) => template,
      );
      const page = pageOf(templates, params, this.#options.pageSize);
      return { resourceTemplates: page.items, ...cursor(page.nextCursor) };
    });
    serve(McpMethod.ResourcesRead, (params, context) => this.#readResource(params, context));
    serve(McpMethod.PromptsList, async (params) =>
      this.#page('prompts', await this.#prompts(), params),
    );
    serve(McpMethod.PromptsGet, (params, context) => this.#getPrompt(params, context));
  }

  // ---- the handshake ----------------------------------------------------------------------------

  #initialize(params: unknown): InitializeResult {
    if (this.#state !== 'new')
      throw new JsonRpcError(JsonRpcErrorCode.InvalidRequest, 'the session is already initialized');
    if (!isObject(params) || typeof params.protocolVersion !== 'string')
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        "'initialize' needs a protocolVersion (a string)",
      );
    const asked = params.protocolVersion;
    // Version negotiation: the client's version when the gateway speaks it, else its newest.
    const protocolVersion = (LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(asked)
      ? asked
      : LATEST_LEGACY_PROTOCOL_VERSION;
    this.#state = 'initializing';
    this.#known.set('tools', fingerprint(this.#tools()));
    const { serverInfo, instructions } = this.#options;
    return {
      protocolVersion,
      capabilities: CAPABILITIES,
      serverInfo,
      ...(instructions === undefined ? {} : { instructions }),
    };
  }

  #initialized(): void {
    if (this.#state !== 'initializing') return;
    this.#state = 'ready';
    const source = this.#options.source;
    this.#subscriptions.push(
      source.onToolsChanged(() => this.#toolsMayHaveChanged()),
      source.onServersChanged(() => this.#serversMayHaveChanged()),
      source.onListsChanged(() => this.#compareLists()),
    );
    // A change between the handshake and now is announced as any other.
    this.#toolsMayHaveChanged();
    this.#serversMayHaveChanged();
  }

  // ---- lists and list_changed -------------------------------------------------------------------

  #tools(): JsonObject[] {
    return this.#options.source.tools().map((tool) => {
      const wire: JsonObject = { name: tool.name, inputSchema: tool.inputSchema };
      if (tool.title !== undefined) wire.title = tool.title;
      if (tool.description !== undefined) wire.description = tool.description;
      if (tool.outputSchema !== undefined) wire.outputSchema = tool.outputSchema;
      if (tool.annotations !== undefined) wire.annotations = tool.annotations;
      return wire;
    });
  }

  async #resources(): Promise<JsonObject[]> {
    return (await this.#options.source.resources()).map(({ server: _server, ...resource }) => ({
      ...resource,
    }));
  }

  async #prompts(): Promise<JsonObject[]> {
    return (await this.#options.source.prompts()).map(
      ({ server: _server, originalName: _originalName, ...prompt }) => ({ ...prompt }),
    );
  }

  /** A page of a list; the whole list is what the client now knows of (for list_changed). */
  #page(kind: ListKind, items: JsonObject[], params: unknown): JsonObject {
    const page = pageOf(items, params, this.#options.pageSize);
    if (this.#state === 'ready' && !this.#known.has(kind))
      this.#known.set(kind, fingerprint(items));
    return { [kind]: page.items, ...cursor(page.nextCursor) };
  }

  /** The source's tools changed: compared once the current burst of events is over. */
  #toolsMayHaveChanged(): void {
    if (this.#toolsCheckQueued) return;
    this.#toolsCheckQueued = true;
    queueMicrotask(() => {
      this.#toolsCheckQueued = false;
      if (this.#state === 'ready') this.#announceIf('tools', fingerprint(this.#tools()));
    });
  }

  /** A server came or went: its resources and prompts may have too, when the set really changed. */
  #serversMayHaveChanged(): void {
    const connected = this.#options.source.connectedServers().join('\n');
    if (connected === this.#connected) return;
    this.#connected = connected;
    this.#compareLists();
  }

  /**
   * Lists the resources and prompts and compares them with what the client knows: one comparison
   * at a time (each lists every server), and at most one more queued behind it.
   */
  #compareLists(): void {
    if (this.#compareQueued) return;
    this.#compareQueued = true;
    this.#compare = this.#compare
      .then(async () => {
        this.#compareQueued = false;
        if (this.#state !== 'ready') return;
        const [resources, prompts] = await Promise.all([this.#resources(), this.#prompts()]);
        if (this.#state !== 'ready') return;
        this.#announceIf('resources', fingerprint(resources));
        this.#announceIf('prompts', fingerprint(prompts));
      })
      .catch((error: unknown) =>
        this.#options.logger.warn('gateway: comparing resources and prompts failed', {
          error: toMcpHostError(error).message,
        }),
      );
  }

  /** Sends `list_changed` when `now` differs from what the client knows (first time: learns it). */
  #announceIf(kind: ListKind, now: string): void {
    const known = this.#known.get(kind);
    this.#known.set(kind, now);
    if (known === undefined || known === now) return;
    this.#notify(LIST_CHANGED[kind]);
  }

  #notify(method: string, params?: JsonObject): void {
    if (this.#peer.state !== 'open') return;
    try {
      this.#peer.notify(method, params);
    } catch (error) {
      this.#options.logger.debug(`gateway: could not send '${method}'`, {
        error: toMcpHostError(error).message,
      });
    }
  }

  // ---- calls ------------------------------------------------------------------------------------

  async #callTool(params: unknown, context: RequestContext): Promise<JsonObject> {
    if (!isObject(params) || typeof params.name !== 'string')
      throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, "'tools/call' needs a tool name");
    const args = params.arguments ?? {};
    if (!isObject(args))
      throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'the arguments must be an object');
    const token = progressTokenOf(params);
    let progressed = false;
    const onProgress =
      token === undefined
        ? undefined
        : (progress: ProgressNotificationParams) => {
            progressed = true;
            this.#notify(McpMethod.Progress, {
              progressToken: token,
              progress: progress.progress,
              ...(progress.total === undefined ? {} : { total: progress.total }),
              ...(progress.message === undefined ? {} : { message: progress.message }),
            });
          };
    let result: JsonObject;
    try {
      result = await this.#options.source.callTool(params.name, args, {
        signal: context.signal,
        ...(onProgress === undefined ? {} : { onProgress }),
      });
    } catch (error) {
      result = toolCallFailure(error, params.name);
    }
    if (progressed) await this.#progressDelivered();
    return result;
  }

  /**
   * Resolves once the client has handled the progress notifications sent so far: a `ping` sent
   * after them is answered after them (bounded by PROGRESS_PING_MS; a client that does not answer
   * in time gets the result anyway). Without it the official v1 SDK client drops the progress of
   * a fast call: it handles a notification a microtask after a response read with it, by when the
   * response has removed the call's progress handler.
   */
  async #progressDelivered(): Promise<void> {
    try {
      await this.#peer.request(McpMethod.Ping, undefined, {
        timeoutMs: PROGRESS_PING_MS,
        sendCancel: false,
      });
    } catch {
      // No answer in time, or the connection is going: the result goes out (or not) as it would.
    }
  }

  async #readResource(params: unknown, context: RequestContext): Promise<JsonObject> {
    if (!isObject(params) || typeof params.uri !== 'string')
      throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, "'resources/read' needs a uri");
    try {
      return await this.#options.source.readResource(params.uri, { signal: context.signal });
    } catch (error) {
      throw toRequestError(error, 'resource');
    }
  }

  async #getPrompt(params: unknown, context: RequestContext): Promise<JsonObject> {
    if (!isObject(params) || typeof params.name !== 'string')
      throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, "'prompts/get' needs a name");
    const args = params.arguments ?? {};
    if (!isObject(args) || !Object.values(args).every((value) => typeof value === 'string'))
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        "a prompt's arguments must be an object of strings",
      );
    try {
      return await this.#options.source.getPrompt(params.name, args as Record<string, string>, {
        signal: context.signal,
      });
    } catch (error) {
      throw toRequestError(error, 'prompt');
    }
  }
}

function cursor(nextCursor: string | undefined): { nextCursor?: string } {
  return nextCursor === undefined ? {} : { nextCursor };
}

function progressTokenOf(params: JsonObject): string | number | undefined {
  const token = isObject(params._meta) ? params._meta.progressToken : undefined;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/** A list as text, for "did it change": its JSON, in its order. */
function fingerprint(items: readonly unknown[]): string {
  return JSON.stringify(items);
}
