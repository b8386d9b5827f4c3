import type { CallOptions } from '../client/client-types.js';
import type { JsonRpcError } from '../errors/json-rpc-error.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { toMcpHostError } from '../errors/to-mcp-host-error.js';
import type { Emitter } from '../internal/emitter.js';
import type { Logger } from '../internal/logger.js';
import type { CallToolResult } from '../protocol/types.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { createSchemaValidator, type SchemaValidator } from '../schema/schema-validator.js';
import { createAuditRecord, type AuditSink } from './audit.js';
import { classifyCallError, type CallOutcome } from './call-outcome.js';
import { cleanArguments } from './clean-arguments.js';
import type { HostCatalogue, CatalogueEntry } from './host-catalogue.js';
import type { CallContext, HostOptions, HostTool, NativeTool } from './host-options.js';
import type { HostMetrics } from './metrics.js';
import { quarantinedError } from './quarantined-error.js';
import { applyResultBudget } from './result-budget.js';
import { resultByteLength } from './budget-size.js';
import type { ServerSlot } from './server-slot.js';
import { ToolAccess, type AccessDenial, type ToolAccessOptions } from './tool-filters.js';
import { traceToolCallEnd, traceToolCallError, traceToolCallStart } from './tracing.js';

export const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;

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

/** What the call path needs from its host (the host's own objects, shared, never copied). */
export interface HostCallsOptions {
  options: HostOptions & {
    audit?: AuditSink;
    auditArguments?: boolean;
    validateArguments?: boolean;
    schemaValidator?: SchemaValidator;
    permissions?: ToolAccessOptions<HostTool>['agents'];
  };
  logger: Logger;
  metrics: HostMetrics;
  callEmitter: Emitter<ToolCallEvent>;
  /** The registered servers, by name: a server replaced since the lookup takes the call. */
  slots: ReadonlyMap<string, ServerSlot>;
}

/**
 * The call path of one tool call, once the host has found the tool and checked the caller may
 * see it: the approval hook, argument cleaning and checking, the call itself (native, or routed
 * to its server), the result budget, then metrics, audit, tracing and the call event.
 */
export class HostCalls {
  readonly #options: HostCallsOptions['options'];
  readonly #logger: Logger;
  readonly #validator: SchemaValidator | undefined;
  readonly #access: ToolAccess<HostTool> | undefined;
  readonly #metrics: HostMetrics;
  readonly #callEmitter: Emitter<ToolCallEvent>;
  readonly #slots: ReadonlyMap<string, ServerSlot>;

  constructor(options: HostCallsOptions) {
    this.#options = options.options;
    this.#logger = options.logger;
    this.#validator =
      options.options.validateArguments === false
        ? undefined
        : (options.options.schemaValidator ?? createSchemaValidator());
    this.#access =
      options.options.permissions === undefined
        ? undefined
        : new ToolAccess({ agents: options.options.permissions });
    this.#metrics = options.metrics;
    this.#callEmitter = options.callEmitter;
    this.#slots = options.slots;
  }

  /** The tools this caller may see: `all` minus what the permissions and the host filter hide. */
  visible(all: HostTool[], context: CallContext | undefined): HostTool[] {
    const filter = this.#options.filter;
    const access = this.#access;
    if (filter === undefined && access === undefined) return all;
    return all.filter(
      (tool) =>
        (access === undefined || accessDenial(access, tool, context) === undefined) &&
        (filter === undefined || filterShows(filter, tool, context, this.#logger)),
    );
  }

  /**
   * Why this caller may not call `entry` (per-agent permissions, then the host filter), or
   * undefined when it may: checked before any work is done for the call.
   */
  refusal(entry: CatalogueEntry, context: CallContext | undefined): McpHostError | undefined {
    const access = this.#access;
    if (access !== undefined && accessDenial(access, entry.tool, context) !== undefined)
      return deniedError(entry, `not permitted for agent '${context?.agent ?? '*'}'`);
    const filter = this.#options.filter;
    if (filter !== undefined && !filterShows(filter, entry.tool, context, this.#logger))
      return deniedError(entry, 'hidden from this caller by the host filter');
    return undefined;
  }

  async call(
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
          throw deniedError(entry, 'the approval hook failed', error);
        }
        if (!approved) throw deniedError(entry, 'refused by the approval hook');
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
}

/** The host filter's verdict; a filter that throws hides the tool (and is logged). */
export function filterShows(
  filter: NonNullable<HostOptions['filter']>,
  tool: HostTool,
  context: CallContext | undefined,
  logger: Logger,
): boolean {
  try {
    return filter(tool, context);
  } catch (error) {
    logger.warn(`host: the tool filter threw on '${tool.name}'; the tool is hidden`, {
      error: String(error),
    });
    return false;
  }
}

/** Why the per-agent permissions hide a tool from this caller, or undefined. */
export function accessDenial(
  access: ToolAccess<HostTool>,
  tool: HostTool,
  context: CallContext | undefined,
): AccessDenial | undefined {
  return access.checkStatic(tool, context?.agent === undefined ? {} : { agent: context.agent });
}

export function deniedError(entry: CatalogueEntry, reason: string, cause?: unknown): McpHostError {
  return new McpHostError('TOOL_DENIED', `tool '${entry.tool.name}' was refused: ${reason}`, {
    serverName: entry.tool.server,
    tool: entry.tool.name,
    details: { reason },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** TOOL_QUARANTINED (with the diff) for a tool the pin check holds back, else TOOL_NOT_FOUND. */
export function missingToolError(
  slots: Iterable<ServerSlot>,
  catalogue: HostCatalogue,
  name: string,
): McpHostError {
  for (const slot of slots) {
    for (const held of slot.quarantined.values()) {
      if (catalogue.quarantinedName(slot.name, held.tool.name) === name)
        return quarantinedError(slot.name, held.tool.name, held.diff, held.reason);
    }
  }
  return new McpHostError('TOOL_NOT_FOUND', `no tool is named '${name}'`, { tool: name });
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
