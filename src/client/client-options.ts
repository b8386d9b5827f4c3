import type { Logger } from '../internal/logger.js';
import type { JsonObject } from '../jsonrpc/message.js';
import type { Telemetry, TelemetryContext } from '../internal/telemetry.js';
import type { Transport } from '../jsonrpc/transport.js';
import type { TransportDefinition } from '../transport/transport-definition.js';
import type { SchemaValidator } from '../schema/schema-validator.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../jsonrpc/peer-options.js';
import type {
  CacheHints,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  Implementation,
  InputRequest,
  LoggingLevel,
  ProgressNotificationParams,
  Prompt,
  Resource,
  ResourceTemplate,
  Root,
  Tool,
} from '../protocol/types.js';
import type { ProtocolEra } from '../protocol/versions.js';

/** Context given to a handler of server input. */
export interface ServerInputContext {
  readonly serverName: string | undefined;
  /** Aborted when the server cancels, the request is abandoned, or the connection closes. */
  readonly signal: AbortSignal;
  /**
   * Modern era only (an `input_required` round): answer later instead of now. The request then
   * fails with `INPUT_DEFERRED`, whose `details.continuation` (plain JSON) resumes it, in this
   * process or another, with `CallOptions.resume`. A legacy server request is live on its
   * connection: it cannot wait for another process, so legacy handlers get no `defer`.
   */
  readonly defer?: () => never;
}

/**
 * A modern request paused by a deferred input request (`INPUT_DEFERRED`'s
 * `details.continuation`): plain JSON, to keep, show a person and resume with
 * `CallOptions.resume` once `inputRequests` are answered.
 */
export interface InputContinuation {
  /** The input requests still unanswered, by the server's keys. */
  inputRequests: Record<string, InputRequest>;
  /** Answers already given in the same round, by key. */
  inputResponses: Record<string, unknown>;
  /** The server's state of the request, to echo byte for byte. */
  requestState?: string;
}

/** Resumes a modern request paused by `INPUT_DEFERRED` (see `CallOptions.resume`). */
export interface InputResume {
  /** Every answer of the round: the continuation's `inputResponses` and the deferred ones. */
  inputResponses: Record<string, unknown>;
  /** The continuation's `requestState`, as it was. */
  requestState?: string;
}

/**
 * Answers to what a server may ask of the client: an LLM completion (sampling), the client's
 * roots, or input from the user (elicitation, as a form or by sending them to a URL). Only the
 * capabilities whose handler is given are advertised; the same handlers serve legacy
 * server-to-client requests and modern `input_required` results.
 */
export interface ServerInputHandlers {
  sampling?: (
    params: CreateMessageRequestParams,
    context: ServerInputContext,
  ) => Promise<CreateMessageResult>;
  roots?: (context: ServerInputContext) => Promise<Root[]> | Root[];
  elicitation?: {
    form?: (params: ElicitRequestParams, context: ServerInputContext) => Promise<ElicitResult>;
    url?: (params: ElicitRequestParams, context: ServerInputContext) => Promise<ElicitResult>;
  };
}

/** What the era cache needs of a state store (`StateStore` satisfies it). */
export interface EraStore {
  get<T = unknown>(namespace: string, key: string): Promise<T | undefined>;
  set(namespace: string, key: string, value: unknown): Promise<void>;
}

/** The era a server was found to speak, as cached. */
export interface CachedEra {
  era: ProtocolEra;
  version: string;
  /**
   * `sse` when the server refused the transport it was given at the HTTP level and spoke that
   * transport's fallback (the legacy HTTP+SSE transport): the next connect opens it directly.
   */
  transport?: 'sse';
}

export interface McpClientOptions {
  /**
   * How to reach the server: a plain definition (`{ type: 'stdio', command, args }`, or
   * `{ type: 'http' | 'sse' | 'websocket', url, headers }`: the client builds the transport, loading
   * its module on first use), a function that makes a transport, or a transport instance. Give a
   * definition or a function for stdio servers: a legacy server that dies on the era probe is then
   * started again once and opened with `initialize`; an instance can be opened only once.
   */
  transport: TransportDefinition | Transport | (() => Transport | Promise<Transport>);
  /** The server's configured name, used in errors, logs and events. */
  serverName?: string;
  /** A stable identity of the server's definition (see `serverIdentity`): keys the era cache. */
  identity?: string;
  /** Where the detected era (and a transport fallback) is remembered across runs (namespace `era`). */
  stateStore?: EraStore;
  clientInfo?: Implementation;
  handlers?: ServerInputHandlers;
  /** Pin the era instead of detecting it (`auto` by default). */
  era?: ProtocolEra | 'auto';
  /** Pin the protocol version (its era is implied). */
  protocolVersion?: string;
  /** Idle timeout of each request (default 60 s). */
  requestTimeoutMs?: number;
  /** How long to wait for the `server/discover` probe before treating the server as legacy (default 3 s). */
  discoverTimeoutMs?: number;
  /** How long the whole connect may take, probe and handshake included (default 60 s). */
  connectTimeoutMs?: number;
  /**
   * Over HTTP, how requests without side effects (listings, reads, `prompts/get`, `ping`,
   * completion; never `tools/call`) are retried after 408, 429, 502, 503, 504 or a 5xx with
   * `Retry-After`: 3 attempts in all with jittered exponential backoff from 250 ms, honouring
   * `Retry-After` up to 10 s by default. `false` turns retries off.
   */
  retry?: RetryPolicy | false;
  /**
   * Modern era over HTTP: when a response stream breaks before the response, the request is sent
   * again as a new request, as the spec asks. Choose at-most-once instead for every tool of this
   * server (`true`) or for the named tools: their calls then fail with `STREAM_INTERRUPTED`
   * (`details.maybeExecuted: true`) and are never sent twice. Default `false`.
   */
  atMostOnce?: boolean | readonly string[];
  /** Modern era: rounds of `input_required` before giving up (default 8). */
  maxInputRounds?: number;
  /** Most pages fetched by one list call (default 100). */
  maxPages?: number;
  /** Modern era: the log level asked for on each request; legacy: sent with `logging/setLevel`. */
  logLevel?: LoggingLevel;
  /**
   * Checks tool schemas when listing, without compiling them (a tool whose schema is invalid,
   * too deep or too large is excluded with a warning), and `structuredContent` against
   * `outputSchema` when calling (compiled before the tool's first call). Shared between clients
   * to share its cache; `false` turns validation off. Default: one per client.
   */
  schemaValidator?: SchemaValidator | false;
  /** Wait this long after a list_changed notification before refetching (default 50 ms). */
  listChangedDebounceMs?: number;
  logger?: Logger;
  /**
   * Reports each request as a CLIENT span (and its duration), its trace context sent in the
   * request's `_meta` (`traceparent`, `tracestate`), e.g. `openTelemetry()` from `mcp-host/otel`.
   * Default none: nothing is traced and no `_meta` is added.
   */
  telemetry?: Telemetry;
}

/** How requests without side effects are retried after a transient HTTP failure. */
export interface RetryPolicy {
  /** Attempts in all, the first included (default 3; 1 turns retries off). */
  maxAttempts?: number;
  /** The first backoff; each later one doubles, with full jitter (default 250 ms). */
  baseDelayMs?: number;
  /**
   * The longest wait before a retry (default 10 s). A `Retry-After` asking for longer is not
   * waited for: the request fails at once with the server's error (`details.retryAfterMs`).
   */
  maxDelayMs?: number;
}

/** The defaults of `RetryPolicy`. */
export const DEFAULT_RETRY_POLICY = Object.freeze({
  maxAttempts: 3,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
} satisfies Required<RetryPolicy>);

/** Every default of `McpClientOptions`, in one frozen object (docs/eras.md). */
export const DEFAULT_CLIENT_OPTIONS = Object.freeze({
  era: 'auto',
  clientInfo: Object.freeze({ name: 'mcp-host', version: '0.1.0' }),
  requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
  connectTimeoutMs: 60_000,
  discoverTimeoutMs: 3_000,
  retry: DEFAULT_RETRY_POLICY,
  atMostOnce: false,
  maxInputRounds: 8,
  maxPages: 100,
  listChangedDebounceMs: 50,
} as const satisfies Partial<McpClientOptions>);

export type McpClientState = 'new' | 'connecting' | 'ready' | 'closing' | 'closed';

/** A tool call as one object, the way the official SDK's `callTool` takes it. */
export interface ToolCallParams {
  name: string;
  arguments?: JsonObject;
}

/** Options of one request (`callTool`, `readResource`, `getPrompt`, ...). */
export interface CallOptions {
  signal?: AbortSignal;
  /** Idle timeout of this request (default: the client's `requestTimeoutMs`). */
  timeoutMs?: number;
  /** Progress notifications for this call; they also restart its idle timeout. */
  onProgress?: (progress: ProgressNotificationParams) => void;
  /**
   * Modern era: handlers of this request's `input_required` rounds, over the client's field by
   * field (and advertised in this request's `_meta` in their place). A legacy server's requests
   * are not tied to one of ours, so the client's own handlers answer them and these are unused.
   */
  input?: ServerInputHandlers;
  /**
   * Modern era: send this request as the next round of one a handler deferred (`INPUT_DEFERRED`),
   * with the round's answers and the server's `requestState`. A legacy server refuses it
   * (`INVALID_ARGUMENT`): its input requests cannot outlive their connection.
   */
  resume?: InputResume;
  /**
   * `callTool` only: accept a task (the tasks extension, SEP-2663). When the server declared the
   * extension, the call declares it in its `_meta`, and the server may answer with a
   * `CreateTaskResult` (`resultType: "task"`, a `taskId` to poll with `getTask`) instead of the
   * result. Without it, or with a server that did not declare it, the call is an ordinary one.
   */
  task?: boolean;
  /**
   * With `telemetry`: the span this request is made for (a served request's span), so that the
   * request's span is its child. Default: the tracing system's ambient context.
   */
  traceContext?: TelemetryContext;
}

/**
 * Every tool of the server, minus those whose definition is unusable (each named in `excluded`
 * with the reason), with the modern era's cache hints. All pages are fetched, so unlike the
 * official SDK's one-page result there is no `nextCursor`.
 */
export interface ToolListing extends CacheHints {
  tools: Tool[];
  excluded: { name: string; reason: string }[];
}

/** Every resource of the server (all pages), with the modern era's cache hints. */
export interface ResourceListing extends CacheHints {
  resources: Resource[];
}

/** Every resource template of the server (all pages), with the modern era's cache hints. */
export interface ResourceTemplateListing extends CacheHints {
  resourceTemplates: ResourceTemplate[];
}

/** Every prompt of the server (all pages), with the modern era's cache hints. */
export interface PromptListing extends CacheHints {
  prompts: Prompt[];
}
