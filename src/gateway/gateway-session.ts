import type { ServerInputHandlers } from '../client/client-options.js';
import { JsonRpcError, JsonRpcErrorCode } from '../errors/json-rpc-error.js';
import type { McpHostError } from '../errors/mcp-host-error.js';
import { toMcpHostError } from '../errors/to-mcp-host-error.js';
import type { Disposable } from '../internal/disposable.js';
import type { Logger } from '../internal/logger.js';
import type { Telemetry } from '../internal/telemetry.js';
import { onAbort } from '../internal/signals.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { JsonRpcPeer } from '../jsonrpc/peer.js';
import type { RequestContext } from '../jsonrpc/peer-options.js';
import type { Transport } from '../jsonrpc/transport.js';
import { mcpPeerConventions } from '../protocol/conventions.js';
import { isCreateTaskResult, isObject } from '../protocol/guards.js';
import { McpMethod, MetaKey } from '../protocol/methods.js';
import type {
  ClientCapabilities,
  Implementation,
  InitializeResult,
  InputRequest,
  ProgressNotificationParams,
} from '../protocol/types.js';
import { LATEST_LEGACY_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import { BridgedCall, type BridgedOutcome, type CallClient } from './bridged-call.js';
import { modernRefusal, toolCallFailure, toRequestError } from './gateway-errors.js';
import type { GatewayLogging } from './gateway-logging.js';
import type { GatewaySource } from './gateway-source.js';
import {
  ListChanges,
  wirePrompts,
  wireResources,
  wireTools,
  type ListKind,
} from './list-changes.js';
import {
  completeResult,
  GATEWAY_PROTOCOL_VERSIONS,
  isModernRequest,
  legacyResult,
  modernEnvelope,
  type ModernEnvelope,
} from './modern-request.js';
import { pageOf, pageResult } from './pagination.js';
import type { PendingInputStore } from './pending-input.js';
import type { UpstreamLogins } from './login/upstream-logins.js';
import type { ResourceSubscriptions } from './resource-subscriptions.js';
import { GatewaySkills } from './gateway-skills.js';
import { gatewayCapabilities } from './gateway-capabilities.js';
import { progressTokenOf, urlElicitationId } from './request-params.js';
import {
  promptRequest,
  resourceRequest,
  toolRequest,
  type BridgedRequest,
} from './bridged-requests.js';
import { tracedHandler, type ServedContext, type ServedHandler } from './traced-handler.js';
import { SessionMethods } from './session-methods.js';
import { declaresTasks, tasksNotDeclared, type GatewayTasks } from './tasks/gateway-tasks.js';

/**
 * Where one connection stands in the legacy era: `new` until the client's `initialize`,
 * `initializing` until its `notifications/initialized`, `ready` while it is served, `closed` for
 * good. Modern requests change nothing: each is served on its own.
 */
export type GatewaySessionState = 'new' | 'initializing' | 'ready' | 'closed';

/** What every session of one gateway shares. */
export interface GatewaySessionOptions {
  source: GatewaySource;
  serverInfo: Implementation;
  instructions: string | undefined;
  pageSize: number;
  logger: Logger;
  /** The gateway's calls in flight (what `ServerInputBridge` routes by). */
  calls: Set<BridgedCall>;
  /** Modern clients' calls waiting for their retry, shared by every connection. */
  pending: PendingInputStore<BridgedCall>;
  /** The host's own answers to what backends ask, for what a client cannot answer. */
  fallback: ServerInputHandlers | undefined;
  /** The source's log messages and the levels its clients asked for. */
  logging: GatewayLogging;
  /** The source's resource subscriptions, refcounted across connections. */
  subscriptions: ResourceSubscriptions;
  /** The gateway's upstream logins: their completion is told to the client that was sent there. */
  logins?: UpstreamLogins;
  /** The tasks created through the gateway, shared by every connection. */
  tasks: GatewayTasks;
  /** The named client served (its tasks are its own), or undefined for an unnamed one. */
  principal: string | undefined;
  /** Reports each request served as a SERVER span (see `GatewayOptions.telemetry`). */
  telemetry?: Telemetry | undefined;
  /** This gateway replica's id, on its spans (see `GatewayOptions.replicaId`). */
  replicaId?: string | undefined;
}

/** How long a call that reported progress waits for the client to have handled it. */
const PROGRESS_PING_MS = 1_000;

/**
 * How long a modern call that reported progress holds its result back: the era has no `ping` to
 * learn that the client handled the progress, and the official v2 client drops progress read in
 * the same chunk as the result (it handles a notification a microtask after the response that
 * removes its progress handler). Writes this far apart reach a reading client apart, so the
 * result waits only until this long after the last progress notification.
 */
const PROGRESS_FLUSH_MS = 50;

/** How long a legacy client has to answer a backend's request relayed to it. */
const RELAY_TIMEOUT_MS = 600_000;

const LIST_CHANGED: Record<ListKind, string> = {
  tools: McpMethod.ToolsListChanged,
  resources: McpMethod.ResourcesListChanged,
  prompts: McpMethod.PromptsListChanged,
};

/** The `subscriptions/listen` filter field of each list. */
const LISTEN_FLAG: Record<ListKind, string> = {
  tools: 'toolsListChanged',
  resources: 'resourcesListChanged',
  prompts: 'promptsListChanged',
};

type Handler = ServedHandler;
type ModernHandler = (
  params: JsonObject,
  context: ServedContext,
  envelope: ModernEnvelope,
) => unknown;

/**
 * One client connection of the gateway, over one transport, in either era.
 *
 * **Legacy** (2024-11-05 to 2025-11-25): the `initialize` handshake with version negotiation,
 * `ping`, the tools, resources and prompts of the gateway's source (paginated), progress passed on
 * from the backend to the client and the client's `notifications/cancelled` aborting the backend
 * call. A `list_changed` notification is sent when what this client is offered really changed.
 *
 * **Modern** (2026-07-28): a request whose `_meta` names a protocol version is served on its own,
 * whatever came before on the connection: `server/discover`, the same lists and calls with
 * `resultType` and caching hints, `subscriptions/listen` streams, and `input_required` rounds for
 * what a backend asks during a call (the pending call kept in the gateway, so the retry may come
 * on any connection).
 */
export class GatewaySession {
  readonly #peer: JsonRpcPeer;
  readonly #options: GatewaySessionOptions;
  readonly #changes: ListChanges;
  readonly #methods: SessionMethods;
  readonly #skills: GatewaySkills;
  #state: GatewaySessionState = 'new';
  /** The legacy session's protocol version (set by `initialize`). */
  #version: string | undefined;
  /** The legacy client, as calls reach it (set by `initialize`). */
  #client: CallClient | undefined;
  /** The URL-mode elicitations sent to this (legacy) client whose completion it is to be told. */
  readonly #urlElicitations = new Set<string>();
  readonly #loginsDone: Disposable | undefined;

  constructor(transport: Transport, options: GatewaySessionOptions) {
    this.#options = options;
    this.#peer = new JsonRpcPeer(transport, {
      conventions: mcpPeerConventions,
      logger: options.logger,
    });
    this.#changes = new ListChanges(options.source, options.logger, (kind) =>
      this.#notify(LIST_CHANGED[kind]),
    );
    this.#methods = new SessionMethods({
      source: options.source,
      logging: options.logging,
      subscriptions: options.subscriptions,
      notify: (method, params) => this.#notify(method, params),
    });
    this.#skills = new GatewaySkills(options.source, options.pageSize, options.logger);
    this.#loginsDone = options.logins?.onComplete((elicitationId) => {
      if (this.#urlElicitations.delete(elicitationId))
        this.#notify(McpMethod.ElicitationComplete, { elicitationId });
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
    this.#loginsDone?.dispose();
    this.#changes.close();
    this.#methods.close();
  }

  #handle(): void {
    const peer = this.#peer;
    // The modern era has no handshake and no `ping`: a request of it for either is -32601.
    const legacyOnly =
      (method: string, handler: Handler): Handler =>
      (params, context) => {
        if (isModernRequest(params))
          throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, `Method not found: ${method}`);
        return handler(params, context);
      };
    peer.setRequestHandler(
      McpMethod.Initialize,
      legacyOnly(McpMethod.Initialize, (params) => this.#initialize(params)),
    );
    peer.setNotificationHandler(McpMethod.Initialized, () => this.#initialized());
    peer.setRequestHandler(
      McpMethod.Ping,
      legacyOnly(McpMethod.Ping, () => ({})),
    );
    const source = this.#options.source;
    const info = this.#options.serverInfo;
    const listed = (result: JsonObject) => completeResult(result, info, true);
    this.#serve(
      McpMethod.ToolsList,
      (params) => this.#page('tools', wireTools(source), params),
      (params) => listed(this.#page('tools', wireTools(source), params)),
    );
    this.#serve(
      McpMethod.ToolsCall,
      (params, context) => this.#callTool(params, context),
      (params, context, envelope) => this.#callToolModern(params, context, envelope),
    );
    this.#serve(
      McpMethod.ResourcesList,
      async (params) => this.#page('resources', await wireResources(source), params),
      async (params) => listed(this.#page('resources', await wireResources(source), params)),
    );
    this.#serve(
      McpMethod.ResourceTemplatesList,
      (params) => this.#templates(params),
      async (params) => listed(await this.#templates(params)),
    );
    this.#serve(
      McpMethod.ResourcesRead,
      (params, context) =>
        this.#requestLegacy(resourceRequest(source, params, context.traceContext), params, context),
      (params, context, envelope) =>
        this.#requestModern(
          resourceRequest(source, params, context.traceContext),
          params,
          context,
          envelope,
        ),
    );
    this.#serve(
      McpMethod.PromptsList,
      async (params) => this.#page('prompts', await wirePrompts(source), params),
      async (params) => listed(this.#page('prompts', await wirePrompts(source), params)),
    );
    this.#serve(
      McpMethod.PromptsGet,
      (params, context) =>
        this.#requestLegacy(promptRequest(source, params, context.traceContext), params, context),
      (params, context, envelope) =>
        this.#requestModern(
          promptRequest(source, params, context.traceContext),
          params,
          context,
          envelope,
        ),
    );
    this.#serve(
      McpMethod.Complete,
      (params, context) => this.#methods.complete(params, context.signal, 'legacy'),
      (params, context, envelope) =>
        this.#atModernLevel(params, envelope, async () =>
          completeResult(
            await this.#methods.complete(params, context.signal, 'modern'),
            info,
            false,
          ),
        ),
    );
    this.#serve(
      McpMethod.LoggingSetLevel,
      (params) => this.#methods.setLevel(params, this.#client!),
      undefined,
    );
    this.#serve(
      McpMethod.ResourcesSubscribe,
      (params, context) => this.#methods.subscribe(params, context.signal),
      undefined,
    );
    this.#serve(
      McpMethod.ResourcesUnsubscribe,
      (params) => this.#methods.unsubscribe(params),
      undefined,
    );
    const skills = this.#skills;
    this.#serve(
      McpMethod.SkillsList,
      (params, context) => skills.list(params, context.signal),
      async (params, context) => listed(await skills.list(params, context.signal)),
    );
    this.#serve(
      McpMethod.SkillsGet,
      (params, context) => skills.get(params, context.signal, 'legacy'),
      async (params, context) => listed(await skills.get(params, context.signal, 'modern')),
    );
    this.#serve(
      McpMethod.ResourcesDirectoryRead,
      (params, context) => skills.readDirectory(params, context.signal, 'legacy'),
      async (params, context) =>
        listed(await skills.readDirectory(params, context.signal, 'modern')),
    );
    this.#serve(McpMethod.Discover, undefined, () => this.#discover());
    // The tasks extension (SEP-2663): modern only, for a request that declares it.
    const tasks = this.#options.tasks;
    const owner = this.#options.principal ?? '';
    const taskMethod = (
      method: string,
      run: (params: JsonObject, signal: AbortSignal) => Promise<JsonObject>,
    ) =>
      this.#serve(method, undefined, async (params, context, envelope) => {
        if (!declaresTasks(envelope.capabilities)) throw tasksNotDeclared(method);
        return completeResult(await run(params, context.signal), info, false);
      });
    taskMethod(McpMethod.TasksGet, (params, signal) => tasks.get(owner, params, signal));
    taskMethod(McpMethod.TasksUpdate, (params, signal) => tasks.update(owner, params, signal));
    taskMethod(McpMethod.TasksCancel, (params, signal) => tasks.cancel(owner, params, signal));
    this.#serve(McpMethod.SubscriptionsListen, undefined, (params, context) =>
      this.#listen(params, context),
    );
  }

  /**
   * Serves `method` in both eras: a request whose `_meta` names a protocol version is modern
   * (its envelope checked: -32602 when malformed, -32022 for a version the gateway does not
   * speak), any other is legacy (refused with -32600 before `initialize`). An era without a
   * handler answers -32601.
   */
  #serve(method: string, legacy: Handler | undefined, modern: ModernHandler | undefined): void {
    const notFound = () =>
      new JsonRpcError(JsonRpcErrorCode.MethodNotFound, `Method not found: ${method}`);
    const handler: Handler = (params, context) => {
      if (isModernRequest(params)) {
        const envelope = modernEnvelope(params);
        if (modern === undefined) throw notFound();
        return modern(params as JsonObject, context, envelope);
      }
      if (legacy === undefined) throw notFound();
      if (this.#state === 'new')
        throw new JsonRpcError(
          JsonRpcErrorCode.InvalidRequest,
          `'${method}' before 'initialize': initialize the session first`,
        );
      return legacy(params, context);
    };
    const telemetry = this.#options.telemetry;
    this.#peer.setRequestHandler(
      method,
      telemetry === undefined
        ? handler
        : tracedHandler(telemetry, method, handler, {
            replicaId: this.#options.replicaId,
            version: () => this.#version,
          }),
    );
  }

  // ---- the handshake (legacy) -------------------------------------------------------------------

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
    this.#version = protocolVersion;
    const capabilities = isObject(params.capabilities)
      ? (params.capabilities as ClientCapabilities)
      : {};
    this.#client = {
      era: 'legacy',
      capabilities,
      request: (method, requestParams, signal) => {
        const elicitationId = urlElicitationId(method, requestParams);
        if (elicitationId !== undefined) this.#urlElicitations.add(elicitationId);
        return this.#peer.request(method, requestParams, { signal, timeoutMs: RELAY_TIMEOUT_MS });
      },
      log: (message) => this.#notify(McpMethod.Message, message),
    };
    this.#changes.learn('tools', wireTools(this.#options.source));
    const { serverInfo, instructions } = this.#options;
    return {
      protocolVersion,
      capabilities: gatewayCapabilities(this.#options.source, 'legacy'),
      serverInfo,
      ...(instructions === undefined ? {} : { instructions }),
    };
  }

  #initialized(): void {
    if (this.#state !== 'initializing') return;
    this.#state = 'ready';
    // A change between the handshake and now is announced as any other.
    this.#changes.start();
  }

  // ---- discovery and subscriptions (modern) ---------------------------------------------------

  #discover(): JsonObject {
    const { serverInfo, instructions } = this.#options;
    return completeResult(
      {
        supportedVersions: [...GATEWAY_PROTOCOL_VERSIONS],
        capabilities: gatewayCapabilities(this.#options.source, 'modern'),
        ...(instructions === undefined ? {} : { instructions }),
      },
      serverInfo,
      true,
    );
  }

  /**
   * A `subscriptions/listen` stream: acknowledged with the list changes the gateway honours of
   * those asked for and the resources it subscribed to (`resourceSubscriptions`: the URIs some
   * server serves), then each real change of what this client is offered and each update of those
   * resources, until the client cancels it or the connection ends. Each stream
   * compares the lists with what it last told of, as a legacy session does.
   */
  async #listen(params: JsonObject, context: RequestContext): Promise<JsonObject> {
    const asked = isObject(params.notifications) ? params.notifications : {};
    const agreed: JsonObject = {};
    for (const flag of Object.values(LISTEN_FLAG)) if (asked[flag] === true) agreed[flag] = true;
    const meta = { [MetaKey.SubscriptionId]: context.id };
    const resources = await this.#methods.listenResources(
      asked.resourceSubscriptions,
      meta,
      context.signal,
    );
    if (resources.uris.length > 0) agreed.resourceSubscriptions = resources.uris;
    this.#notify(McpMethod.SubscriptionsAcknowledged, { _meta: meta, notifications: agreed });
    const changes = new ListChanges(this.#options.source, this.#options.logger, (kind) => {
      if (agreed[LISTEN_FLAG[kind]] === true) this.#notify(LIST_CHANGED[kind], { _meta: meta });
    });
    changes.start();
    try {
      await new Promise<void>((resolve) => onAbort(context.signal, () => resolve()));
    } finally {
      changes.close();
      resources.end();
    }
    return completeResult({ _meta: meta }, this.#options.serverInfo, false);
  }

  // ---- lists ------------------------------------------------------------------------------------

  /** A page of a list; the whole list is what a legacy client now knows of (for list_changed). */
  #page(kind: ListKind, items: JsonObject[], params: unknown): JsonObject {
    const page = pageOf(items, params, this.#options.pageSize);
    if (this.#state === 'initializing' || this.#state === 'ready') this.#changes.learn(kind, items);
    return pageResult(kind, page);
  }

  async #templates(params: unknown): Promise<JsonObject> {
    const templates = (await this.#options.source.resourceTemplates()).map(
      ({ server: _server, ...template }) => template,
    );
    const page = pageOf(templates, params, this.#options.pageSize);
    return pageResult('resourceTemplates', page);
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

  /** A new call of this gateway, registered as in flight until it is over. */
  #newCall(
    request: BridgedRequest,
    params: JsonObject,
    client: CallClient,
    inputResponses?: JsonObject,
  ): BridgedCall {
    const { source, calls, fallback } = this.#options;
    const server = request.server;
    // A legacy backend's input is asked live: answers sent ahead have nowhere to go. (The era is
    // looked up only then: finding it costs a pass over every server.)
    const ahead =
      inputResponses !== undefined && server !== undefined && source.serverEra(server) === 'modern'
        ? inputResponses
        : undefined;
    const call = new BridgedCall({
      ...request,
      progress: progressTokenOf(params) !== undefined,
      client,
      fallback,
      onDone: (done) => calls.delete(done),
    });
    calls.add(call);
    call.start(ahead);
    return call;
  }

  /**
   * A modern request's call: a new one, or with a `requestState` the retry of one that answered
   * `input_required` (its `inputResponses` given to it); -32602 for an unknown or expired state,
   * or one of another request. Answers sent without a `requestState` (a stateless retry) go to
   * the backend with a new call.
   */
  #modernCall(
    request: BridgedRequest,
    params: JsonObject,
    envelope: ModernEnvelope,
    client: CallClient = this.#modernClient(envelope),
  ): BridgedCall {
    if (params.requestState === undefined) {
      const responses = isObject(params.inputResponses) ? params.inputResponses : undefined;
      return this.#newCall(request, params, client, responses);
    }
    const responses = params.inputResponses ?? {};
    if (!isObject(responses))
      throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'inputResponses must be an object');
    const taken = this.#options.pending.take(params.requestState);
    if (taken === undefined || taken.kind !== request.kind || taken.name !== request.name) {
      taken?.cancel(new JsonRpcError(JsonRpcErrorCode.InvalidParams, 'requestState misused'));
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        'Unknown or expired requestState: send the request again',
      );
    }
    taken.answer(responses);
    return taken;
  }

  /** A modern client as its call reaches it: asked in rounds, never live; its log messages sent. */
  #modernClient(envelope: ModernEnvelope): CallClient {
    return {
      era: 'modern',
      capabilities: envelope.capabilities,
      request: () => Promise.reject(new Error('a modern client gets no server requests')),
      log: (message) => this.#notify(McpMethod.Message, message),
    };
  }

  /** An `input_required` result for the call's round: the call kept under a new `requestState`. */
  #inputRound(call: BridgedCall, inputRequests: Record<string, InputRequest>): JsonObject {
    const requestState = this.#options.pending.put(call);
    return { resultType: 'input_required', inputRequests, requestState };
  }

  /**
   * A legacy `prompts/get` or `resources/read`: what its backend asks on the way goes to the
   * client live (as a tool call's does); a failure is the request's JSON-RPC error.
   */
  async #requestLegacy(
    request: BridgedRequest,
    params: unknown,
    context: RequestContext,
  ): Promise<JsonObject> {
    const call = this.#newCall(request, params as JsonObject, this.#client!);
    const outcome = await call.next(context.signal);
    if (outcome.kind === 'result') return legacyResult(outcome.result);
    if (outcome.kind === 'input') {
      call.cancel(new Error('unexpected input round'));
      throw new JsonRpcError(JsonRpcErrorCode.InternalError, 'unexpected input round');
    }
    throw toRequestError(outcome.error, request.kind === 'prompt' ? 'prompt' : 'resource');
  }

  /**
   * A modern `prompts/get` or `resources/read`: its result (with the caching hints), or an
   * `input_required` round for what its backend asks (as for `tools/call`), answered by the
   * client's retry; a failure is the request's JSON-RPC error. The log level its `_meta` asks for
   * holds while it runs, as for a call.
   */
  #requestModern(
    request: BridgedRequest,
    params: JsonObject,
    context: RequestContext,
    envelope: ModernEnvelope,
  ): Promise<JsonObject> {
    return this.#atModernLevel(params, envelope, (client) =>
      this.#requestModernRound(request, params, context, envelope, client),
    );
  }

  /**
   * Runs a modern request with its client, the log level its `_meta` asks for holding while it
   * runs (see `SessionMethods.wantModern`).
   */
  async #atModernLevel<T>(
    params: JsonObject,
    envelope: ModernEnvelope,
    run: (client: CallClient) => Promise<T>,
  ): Promise<T> {
    const client = this.#modernClient(envelope);
    const release = await this.#methods.wantModern(params, client);
    try {
      return await run(client);
    } finally {
      release();
    }
  }

  async #requestModernRound(
    request: BridgedRequest,
    params: JsonObject,
    context: RequestContext,
    envelope: ModernEnvelope,
    client: CallClient,
  ): Promise<JsonObject> {
    const call = this.#modernCall(request, params, envelope, client);
    const outcome = await call.next(context.signal);
    if (outcome.kind === 'input') {
      try {
        return this.#inputRound(call, outcome.inputRequests);
      } catch (error) {
        call.cancel(error);
        throw toRequestError(error, request.kind === 'prompt' ? 'prompt' : 'resource', 'modern');
      }
    }
    if (outcome.kind === 'failed')
      throw (
        modernRefusal(outcome.error) ??
        toRequestError(outcome.error, request.kind === 'prompt' ? 'prompt' : 'resource', 'modern')
      );
    return completeResult(outcome.result, this.#options.serverInfo, true);
  }

  /** The progress sink of a request: its token's notifications, or none without a token. */
  #progressSink(
    params: JsonObject,
    onSent: () => void,
  ): ((progress: ProgressNotificationParams) => void) | undefined {
    const token = progressTokenOf(params);
    if (token === undefined) return undefined;
    return (progress) => {
      onSent();
      this.#notify(McpMethod.Progress, {
        progressToken: token,
        progress: progress.progress,
        ...(progress.total === undefined ? {} : { total: progress.total }),
        ...(progress.message === undefined ? {} : { message: progress.message }),
      });
    };
  }

  async #callTool(params: unknown, context: ServedContext): Promise<JsonObject> {
    let progressed = false;
    const request = toolRequest(this.#options.source, params, false, context.traceContext);
    const call = this.#newCall(request, params as JsonObject, this.#client!);
    const outcome = await call.next(
      context.signal,
      this.#progressSink(params as JsonObject, () => (progressed = true)),
    );
    const result = legacyResult(this.#final(call, outcome));
    if (progressed) await this.#progressDelivered();
    return result;
  }

  /**
   * A modern `tools/call`: a new call, or with a `requestState` the retry of one that answered
   * `input_required` (its `inputResponses` given to it). The call's next outcome is the answer:
   * its result, or another `input_required` round under a new `requestState`. An unknown or
   * expired state is -32602.
   */
  #callToolModern(
    params: JsonObject,
    context: ServedContext,
    envelope: ModernEnvelope,
  ): Promise<JsonObject> {
    return this.#atModernLevel(params, envelope, (client) => {
      const request = toolRequest(
        this.#options.source,
        params,
        declaresTasks(envelope.capabilities),
        context.traceContext,
      );
      return this.#roundModern(request, params, context, envelope, client);
    });
  }

  async #roundModern(
    request: BridgedRequest,
    params: JsonObject,
    context: RequestContext,
    envelope: ModernEnvelope,
    client: CallClient,
  ): Promise<JsonObject> {
    const name = request.name;
    const call = this.#modernCall(request, params, envelope, client);
    let lastProgress: number | undefined;
    const outcome = await call.next(
      context.signal,
      this.#progressSink(params, () => (lastProgress = performance.now())),
    );
    // Only the part of PROGRESS_FLUSH_MS since the last progress is left to wait.
    const hold =
      lastProgress === undefined ? 0 : PROGRESS_FLUSH_MS - (performance.now() - lastProgress);
    if (hold > 0) await new Promise((resolve) => setTimeout(resolve, hold));
    if (outcome.kind === 'input') {
      try {
        return this.#inputRound(call, outcome.inputRequests);
      } catch (error) {
        call.cancel(error);
        return completeResult(toolCallFailure(error, name), this.#options.serverInfo, false);
      }
    }
    if (outcome.kind === 'failed') {
      const refusal = modernRefusal(outcome.error);
      if (refusal !== undefined) throw refusal;
    }
    if (outcome.kind === 'result' && isCreateTaskResult(outcome.result)) {
      // A task: the client gets it under the gateway's id, routed to its backend for it alone.
      const { principal, source, tasks, serverInfo } = this.#options;
      const task = tasks.created(principal ?? '', source, outcome.result);
      return { ...task, _meta: { [MetaKey.ServerInfo]: { ...serverInfo } } };
    }
    return completeResult(this.#final(call, outcome), this.#options.serverInfo, false);
  }

  /** The result a call's outcome gives the client (a failure as an error result, or -32602). */
  #final(call: BridgedCall, outcome: BridgedOutcome): JsonObject {
    switch (outcome.kind) {
      case 'result':
        return outcome.result;
      case 'failed':
        return toolCallFailure(outcome.error, call.name);
      case 'input':
        // Only a modern client is asked for input in rounds; a legacy client is asked live.
        call.cancel(new Error('unexpected input round'));
        return toolCallFailure(new Error('unexpected input round'), call.name);
    }
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
}
