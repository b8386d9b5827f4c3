/**
 * The host's tool-call pipeline: every call, whatever it ends in, runs through one ordered chain
 * of interceptors in the `(next) => (call) => result` shape. From the outside in:
 *
 * 1. **observe**: the call event (`started`, then `completed` or `failed`), metrics, the audit
 *    record and the trace, each exactly once per call, whatever happens further in (a refusal, a
 *    tool error, a transport failure, a resend); and the result budget on what leaves the host
 *    (the view's, when the call came through a view with a smaller one).
 * 2. **access**: per-agent permissions, the host filter, then the view's rules for a call made
 *    through a view (`host.view`), then the approval hook (`TOOL_DENIED`).
 * 3. **pins**: a tool the pin check holds back is refused (`TOOL_QUARANTINED`).
 * 4. **the user's interceptors** (`McpHostOptions.interceptors`), in their order: a refused call
 *    never reaches them, and arguments they rewrite are still cleaned and validated.
 * 5. **arguments**: `null`s of optional properties dropped; checked against the tool's
 *    `inputSchema`, compiled on the tool's first call (a mismatch is an error result the model
 *    can read, not a throw; a schema that does not compile refuses the call, `INVALID_ARGUMENT`).
 * 6. **route**: a native tool runs in-process; an MCP tool goes to its server (connecting a lazy
 *    one, failing at once when it is down), through its call limiter (`maxInFlight`, `maxQueue`),
 *    sent again once it is back when `resend-rules.ts` says it may be.
 */
import type { CallOptions } from '../../client/client-options.js';
import type { McpClient } from '../../client/mcp-client.js';
import { excludedToolError, unusable } from '../../client/tool-exclusion.js';
import { acceptsDuplicates, mayResendToolCall } from '../../client/resend-rules.js';
import type { JsonRpcError } from '../../errors/json-rpc-error.js';
import { aboutServer, McpHostError } from '../../errors/mcp-host-error.js';
import { toMcpHostError } from '../../errors/to-mcp-host-error.js';
import type { Emitter } from '../../internal/emitter.js';
import type { Logger } from '../../internal/logger.js';
import type { TelemetryContext } from '../../internal/telemetry.js';
import type { JsonObject } from '../../jsonrpc/message.js';
import { isCreateTaskResult } from '../../protocol/guards.js';
import type {
  CallToolResult,
  CreateTaskResult,
  ProgressNotificationParams,
} from '../../protocol/types.js';
import type { SchemaCheck } from '../../schema/schema-check.js';
import { createSchemaValidator, type SchemaValidator } from '../../schema/schema-validator.js';
import { deniedError, type CallerView } from '../catalogue/caller-view.js';
import type { ToolCatalogue } from '../catalogue/tool-catalogue.js';
import type { ApprovalRequest, CallContext, HostTool, NativeTool } from '../host-tool.js';
import { createAuditRecord, type AuditSink } from '../observe/audit.js';
import { classifyCallError } from '../observe/call-outcome.js';
import type { HostMetrics } from '../observe/metrics.js';
import type { ViewAccess } from '../views/view-access.js';
import { traceToolCallEnd, traceToolCallError, traceToolCallStart } from '../observe/tracing.js';
import { quarantinedError } from '../pins/quarantined-error.js';
import type { ServerSlot } from '../slot/server-slot.js';
import { unavailableError } from '../slot/server-status.js';
import { resultByteLength } from './budget-size.js';
import { cleanArguments } from './clean-arguments.js';
import {
  applyResultBudget,
  DEFAULT_MAX_RESULT_BYTES,
  resultTruncation,
  withoutTruncationMarker,
  type ResultTruncation,
} from './result-budget.js';

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

/** The options of a call that accepts no task (its answer is a `CallToolResult`). */
export type NoTask = HostCallOptions & { task?: false };

/** What a call that may accept a task (`HostCallOptions.task`) resolves with. */
export type ToolCallAnswer = CallToolResult | CreateTaskResult;

/** One tool call as it moves through the pipeline. */
export interface ToolCall {
  /**
   * The tool as the host offers it (exposed name, server, original name, schemas). An interceptor
   * that replaces it routes the call elsewhere, past access and pins: rewrite `args` instead.
   */
  readonly tool: HostTool;
  /** The arguments; an interceptor may pass on a rewritten copy (it is validated after). */
  readonly args: JsonObject;
  readonly context: CallContext | undefined;
  readonly signal: AbortSignal | undefined;
  /** Idle timeout of the call (default: `callTimeoutMs`, else the client's request timeout). */
  readonly timeoutMs: number | undefined;
  readonly onProgress: ((progress: ProgressNotificationParams) => void) | undefined;
  /** The caller accepts that a call lost in flight is sent again (see `HostCallOptions.retry`). */
  readonly retry: boolean;
  /**
   * The call's own input handlers and resumption (modern era: `CallOptions.input`, `.resume`),
   * or undefined (always present, so every call object has one shape).
   */
  readonly input: Pick<CallOptions, 'input' | 'resume'> | undefined;
  /**
   * The caller accepts a task (`HostCallOptions.task`): a server that declared the tasks
   * extension may answer with a `CreateTaskResult` instead of the result.
   */
  readonly task: boolean;
  /** The span the call is made for (`CallOptions.traceContext`), set by the host. */
  readonly traceContext?: TelemetryContext | undefined;
  /**
   * The view the call came through (`HostView.callTool`), set by the host: its access rules run
   * after the host's and its result budget applies when smaller than the host's.
   */
  readonly view?: ViewAccess | undefined;
}

/**
 * Handles a call: the rest of the pipeline, as an interceptor sees it. A call that accepted a task
 * (`call.task`) may resolve with a `CreateTaskResult` instead of the result.
 */
export type ToolCallHandler = (call: ToolCall) => Promise<CallToolResult | CreateTaskResult>;

/**
 * Wraps the rest of the pipeline: `(next) => (call) => next(call)` passes a call on; an
 * interceptor may rewrite it (`next({ ...call, args })`), answer it itself, or refuse it (throw).
 */
export type ToolCallInterceptor = (next: ToolCallHandler) => ToolCallHandler;

/** A tool call as events and audit see it (no argument values). */
export interface ToolCallEvent {
  phase: 'started' | 'completed' | 'failed';
  tool: string;
  server: string | undefined;
  originalName: string;
  agent: string | undefined;
  /** The view the call came through (`HostView`), by its name; undefined for `host.callTool`. */
  view?: string;
  /** Milliseconds since the call started (0 when it starts). */
  durationMs: number;
  /** `ok`, `tool_error` (an `isError` result) or the failure's code (`jsonrpc:<n>` for JSON-RPC errors). */
  outcome?: string;
  error?: McpHostError | JsonRpcError;
  /**
   * On `completed`: the result was over `maxResultBytes` and cut (the same sizes as the result's
   * `_meta["io.mcp-host/truncated"]`).
   */
  truncated?: ResultTruncation;
}

/** The host options that shape calls (see `McpHostOptions`). */
export interface CallPolicyOptions {
  /**
   * Asked before every call (human in the loop); false, a throw or a rejection refuses the call
   * (`TOOL_DENIED`, the hook's error as its cause).
   */
  approve?: (request: ApprovalRequest) => boolean | Promise<boolean>;
  /**
   * Your own steps of every tool call, in order (logging, rate limits, argument rewriting): they
   * run after access, filters and the pin check, and before argument checking.
   */
  interceptors?: readonly ToolCallInterceptor[];
  /** Check arguments against the tool's `inputSchema` before sending (default true). */
  validateArguments?: boolean;
  schemaValidator?: SchemaValidator;
  /** Calls' default deadline, per call (default: the client's request timeout). */
  callTimeoutMs?: number;
  /** Largest result handed onward, in bytes of text (default 1 MiB; 0 turns the budget off). */
  maxResultBytes?: number;
  /** Receives one record per call (time, caller, server, tool, argument digest, outcome, duration). */
  audit?: AuditSink;
  /** Put the (redacted) argument values in audit records too (default false: a digest only). */
  auditArguments?: boolean;
}

/** What the pipeline works with: the host's own objects, shared, never copied. */
export interface CallPipelineParts {
  options: CallPolicyOptions;
  logger: Logger;
  metrics: HostMetrics;
  events: Emitter<ToolCallEvent>;
  /** Who may see and call what. */
  view: CallerView;
  /** Where native tools are found. */
  catalogue: ToolCatalogue;
  /** The registered servers, by name: a server replaced since the lookup takes the call. */
  servers: ReadonlyMap<string, ServerSlot>;
}

/** The whole pipeline, from `observe` to `route`, as one handler. */
export function createCallPipeline(parts: CallPipelineParts): ToolCallHandler {
  const stages: ToolCallInterceptor[] = [
    observe(parts),
    access(parts),
    pins(parts),
    ...(parts.options.interceptors ?? []),
    checkArguments(parts),
  ];
  let handler = route(parts);
  for (let i = stages.length - 1; i >= 0; i--) handler = stages[i]!(handler);
  return handler;
}

// ---- 1. observe -------------------------------------------------------------------------------

function observe(parts: CallPipelineParts): ToolCallInterceptor {
  const { options, logger, metrics, events } = parts;
  const hostBudget = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const event = (
    phase: ToolCallEvent['phase'],
    call: ToolCall,
    durationMs: number,
    outcome?: string,
    error?: McpHostError | JsonRpcError,
    truncated?: ResultTruncation,
  ): void => {
    if (events.listenerCount === 0) return;
    const { tool } = call;
    events.fire({
      phase,
      tool: tool.name,
      server: tool.server,
      originalName: tool.originalName,
      agent: call.context?.agent,
      ...(call.view === undefined ? {} : { view: call.view.name }),
      durationMs,
      ...(outcome === undefined ? {} : { outcome }),
      ...(error === undefined ? {} : { error }),
      ...(truncated === undefined ? {} : { truncated }),
    });
  };
  const audit = (
    call: ToolCall,
    outcome: Parameters<typeof createAuditRecord>[0]['outcome'],
    durationMs: number,
    errorCode: string | undefined,
  ): void => {
    const sink = options.audit;
    if (sink === undefined) return;
    try {
      sink(
        createAuditRecord(
          {
            caller: call.context?.agent,
            server: call.tool.server,
            tool: call.tool.name,
            arguments: call.args,
            outcome,
            durationMs,
            errorCode,
          },
          { includeArguments: options.auditArguments === true },
        ),
      );
    } catch (error) {
      logger.warn('host: the audit sink threw', { error: String(error) });
    }
  };
  return (next) => (call) => {
    const started = performance.now();
    const { tool } = call;
    const trace = traceToolCallStart(tool.server, tool.name, call.args, call.context?.agent);
    event('started', call, 0);
    let sent: Promise<CallToolResult | CreateTaskResult>;
    try {
      sent = next(call);
    } catch (error) {
      // An interceptor that throws instead of rejecting: the same failure path.
      sent = Promise.reject(toMcpHostError(error, { serverName: tool.server, tool: tool.name }));
    }
    return sent.then(
      (answered) => {
        if (isCreateTaskResult(answered)) {
          // A task handle, not a result: nothing to budget; its result is read with getTask.
          const durationMs = performance.now() - started;
          metrics.recordCall({ server: tool.server, tool: tool.name, durationMs, outcome: 'ok' });
          audit(call, 'ok', durationMs, undefined);
          traceToolCallEnd(trace, answered, 'ok');
          event('completed', call, durationMs, 'ok');
          return answered;
        }
        // Only the host marks a result as cut: a marker the server sent is dropped.
        let result = withoutTruncationMarker(answered);
        const outcome = result.isError === true ? 'tool_error' : 'ok';
        const bytesIn = resultByteLength(result);
        const budget = effectiveBudget(hostBudget, call.view?.maxResultBytes);
        let truncated: ResultTruncation | undefined;
        if (budget > 0 && bytesIn > budget) {
          const limited = applyResultBudget(result, { maxBytes: budget });
          result = limited.result;
          truncated = resultTruncation(result);
          if (truncated !== undefined)
            logger.info(
              `tool '${tool.name}': result of ${bytesIn} bytes cut to the ${budget}-byte budget`,
            );
        }
        const durationMs = performance.now() - started;
        metrics.recordCall({
          server: tool.server,
          tool: tool.name,
          durationMs,
          outcome,
          bytesIn,
          truncated: truncated !== undefined,
        });
        audit(call, outcome, durationMs, undefined);
        traceToolCallEnd(trace, result, outcome);
        event('completed', call, durationMs, outcome, undefined, truncated);
        return result;
      },
      (error: unknown) => {
        const failure = toMcpHostError(error, { serverName: tool.server, tool: tool.name });
        const { outcome, errorCode } = classifyCallError(failure);
        const durationMs = performance.now() - started;
        metrics.recordCall({
          server: tool.server,
          tool: tool.name,
          durationMs,
          outcome,
          errorCode,
        });
        audit(call, outcome, durationMs, errorCode);
        traceToolCallError(trace, failure, outcome, errorCode);
        event('failed', call, durationMs, errorCode, failure);
        throw failure;
      },
    );
  };
}

/** The smaller of the host's budget and the view's (0, the host's "off", yields to the view's). */
function effectiveBudget(host: number, view: number | undefined): number {
  if (view === undefined) return host;
  return host > 0 ? Math.min(host, view) : view;
}

// ---- 2. access --------------------------------------------------------------------------------

function access({ view, options }: CallPipelineParts): ToolCallInterceptor {
  return (next) => (call) => {
    const refusal =
      view.refusal(call.tool, call.context) ?? call.view?.refusal(call.tool, call.context);
    if (refusal !== undefined) return Promise.reject(refusal);
    const approve = options.approve;
    if (approve === undefined) return next(call);
    return approved(approve, call).then(() => next(call));
  };
}

/** Resolves when the approval hook says yes; `TOOL_DENIED` when it says no or fails. */
async function approved(
  approve: NonNullable<CallPolicyOptions['approve']>,
  call: ToolCall,
): Promise<void> {
  let yes: boolean;
  try {
    yes = await approve({ tool: call.tool, args: call.args, context: call.context });
  } catch (error) {
    throw deniedError(call.tool, 'the approval hook failed', error);
  }
  if (!yes) throw deniedError(call.tool, 'refused by the approval hook');
}

// ---- 3. pins ----------------------------------------------------------------------------------

function pins({ servers }: CallPipelineParts): ToolCallInterceptor {
  return (next) => (call) => {
    const server = call.tool.server;
    if (server === undefined) return next(call);
    const held = servers.get(server)?.quarantined.get(call.tool.originalName);
    if (held === undefined) return next(call);
    return Promise.reject(quarantinedError(server, call.tool.originalName, held.diff, held.reason));
  };
}

// ---- 5. arguments -----------------------------------------------------------------------------

function checkArguments({ options }: CallPipelineParts): ToolCallInterceptor {
  const validator =
    options.validateArguments === false
      ? undefined
      : (options.schemaValidator ?? createSchemaValidator());
  return (next) => {
    const checked = (
      call: ToolCall,
      args: JsonObject,
      compiled: SchemaCheck,
    ): Promise<CallToolResult | CreateTaskResult> => {
      const cleaned = args === call.args ? call : { ...call, args };
      if (!compiled.ok) {
        // A native tool's schema is the application's own: its calls run unchecked. An MCP
        // tool's listing checked its schema without compiling it (SchemaValidator.check), which
        // lets a few unusable ones through; such a tool is refused like an excluded one.
        const { server, originalName } = call.tool;
        if (server === undefined) return next(cleaned);
        return Promise.reject(
          excludedToolError(server, originalName, unusable('inputSchema', compiled.problem)),
        );
      }
      const verdict = compiled.validate(args);
      if (verdict.valid) return next(cleaned);
      return Promise.resolve(invalidArguments(call.tool.name, verdict.message));
    };
    return (call) => {
      const args = cleanArguments(call.args, call.tool.inputSchema);
      if (validator === undefined) return next(args === call.args ? call : { ...call, args });
      // Synchronous after a tool's first call: no promise hop on the hot path.
      const known = validator.compiled(call.tool.inputSchema);
      if (known !== undefined) return checked(call, args, known);
      return validator
        .compile(call.tool.inputSchema)
        .then((compiled) => checked(call, args, compiled));
    };
  };
}

/** What the model reads when its arguments do not match the tool's input schema. */
function invalidArguments(tool: string, why: string): CallToolResult {
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text: `Invalid arguments for tool '${tool}': ${why}. Check the tool's input schema and call it again.`,
      },
    ],
  };
}

// ---- 6. route ---------------------------------------------------------------------------------

function route(parts: CallPipelineParts): ToolCallHandler {
  const { catalogue, servers, logger, options } = parts;
  const sends = new ServerSends(options.callTimeoutMs, logger);
  return (call) => {
    const server = call.tool.server;
    if (server === undefined) {
      const native = catalogue.native(call.tool.name);
      if (native === undefined)
        return Promise.reject(
          new McpHostError('TOOL_NOT_FOUND', `no tool is named '${call.tool.name}'`, {
            tool: call.tool.name,
          }),
        );
      return runNative(native, call);
    }
    const slot = servers.get(server);
    if (slot === undefined)
      return Promise.reject(
        unavailableError(server, 'closed', undefined, undefined, call.tool.originalName),
      );
    return sends.send(slot, call);
  };
}

/**
 * Sends calls to their servers through each server's limiter. A call that failed because the
 * connection was lost is sent once more, after the server is back, when `resend-rules.ts` allows
 * it: it certainly never reached the server, or duplicates are acceptable (the caller opted in,
 * or a trusted server marks the tool read-only or idempotent).
 *
 * The common case (connected, a free slot) sends at once, with no async frame around the call.
 * A call queued behind `maxInFlight` waits for its slot with the connection it found.
 */
class ServerSends {
  readonly #callTimeoutMs: number | undefined;
  readonly #logger: Logger;

  constructor(callTimeoutMs: number | undefined, logger: Logger) {
    this.#callTimeoutMs = callTimeoutMs;
    this.#logger = logger;
  }

  send(slot: ServerSlot, call: ToolCall): Promise<ToolCallAnswer> {
    const client = slot.client;
    if (client === undefined) return this.#whenReady(slot, call, true);
    return this.#withSlot(slot, call, client, true);
  }

  /** Waits for the server, then sends. */
  async #whenReady(slot: ServerSlot, call: ToolCall, mayRetry: boolean): Promise<ToolCallAnswer> {
    const client = slot.client ?? (await slot.ready(call.tool.originalName));
    return this.#withSlot(slot, call, client, mayRetry);
  }

  /** Makes the attempt once a slot is free: at once, or queued behind the limit (one promise). */
  #withSlot(
    slot: ServerSlot,
    call: ToolCall,
    client: McpClient,
    mayRetry: boolean,
  ): Promise<ToolCallAnswer> {
    // A free slot is taken at once: no closure for the queue on the hot path.
    if (slot.limiter.tryTake()) return this.#attempt(slot, call, client, mayRetry);
    return slot.limiter.run(call.tool.originalName, call.signal, () =>
      this.#attempt(slot, call, client, mayRetry),
    );
  }

  /**
   * One attempt, its slot already taken (and given back when it settles). When it fails in a way
   * that allows it and `mayRetry`, the call waits for the server to be back and is sent once more.
   */
  #attempt(
    slot: ServerSlot,
    call: ToolCall,
    client: McpClient,
    mayRetry: boolean,
  ): Promise<ToolCallAnswer> {
    const tool = call.tool.originalName;
    // Aborted also when the host gives up on this connection (a wedge), so that the call fails
    // then, not when the process is finally gone.
    const link = slot.link(client, call.signal);
    const options: CallOptions = {
      signal: link.signal,
      timeoutMs: call.timeoutMs ?? this.#callTimeoutMs,
      onProgress: call.onProgress,
      input: call.input?.input,
      resume: call.input?.resume,
      traceContext: call.traceContext,
    };
    const sent = call.task
      ? client.callTool(tool, call.args, { ...options, task: true })
      : client.callTool(tool, call.args, options);
    return sent.then(
      (result) => {
        giveBack(slot, link);
        return result;
      },
      async (caught: unknown) => {
        giveBack(slot, link);
        const error = lostCallError(slot, call, link, caught);
        slot.callFailed(error);
        if (!mayRetry || !mayResend(slot, call, error)) throw error;
        this.#logger.info(
          aboutServer(
            slot.name,
            `'${tool}' failed (${String(error)}); sending it again once the server is back`,
          ),
        );
        await slot.whenBack(tool, call.signal);
        return this.#whenReady(slot, call, false);
      },
    );
  }
}

/** A call aborted because the host gave up on its connection says so; any other error as is. */
function lostCallError(
  slot: ServerSlot,
  call: ToolCall,
  link: { readonly signal: AbortSignal | undefined },
  caught: unknown,
): unknown {
  if (link.signal?.aborted !== true || call.signal?.aborted === true) return caught;
  return new McpHostError(
    'CONNECTION_CLOSED',
    `'${call.tool.originalName}' failed: the server stopped answering and its connection is being closed`,
    { serverName: slot.name, tool: call.tool.originalName, cause: link.signal.reason },
  );
}

/** Decided only on a failure: nothing of it on the path of a call that succeeds. */
function mayResend(slot: ServerSlot, call: ToolCall, error: unknown): boolean {
  const duplicatesAccepted = acceptsDuplicates({
    retry: call.retry,
    trusted: slot.definition.trusted === true,
    annotations: call.tool.annotations,
  });
  return mayResendToolCall(error, duplicatesAccepted);
}

async function runNative(tool: NativeTool, call: ToolCall): Promise<CallToolResult> {
  const signal = call.signal ?? new AbortController().signal;
  try {
    const result = await tool.run(call.args, { signal, context: call.context });
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

/** An attempt settled: its link to the connection goes, and its slot goes back to the limiter. */
function giveBack(slot: ServerSlot, link: { unlink(): void }): void {
  link.unlink();
  slot.limiter.release();
}
