/**
 * Tool-call tracing over `diagnostics_channel`, without a static `node:` import: the module is
 * fetched with `process.getBuiltinModule` (Node 20.16+) and, where that is missing (older Node,
 * browsers, other runtimes), every channel is a no-op. When nobody subscribes, tracing a call
 * costs one property read (`hasSubscribers`) and allocates nothing. See docs/tracing.md.
 */
import type { CallOutcome } from './call-outcome.js';

/** The part of a `diagnostics_channel` Channel that publishing needs. */
export interface TraceChannel {
  readonly name: string;
  readonly hasSubscribers: boolean;
  publish(message: unknown): void;
}

export const TOOL_CALL_CHANNEL_NAMES = {
  start: 'mcp-host:tool-call:start',
  end: 'mcp-host:tool-call:end',
  error: 'mcp-host:tool-call:error',
} as const;

/**
 * The one message object of a traced call: published on `start`, then completed and published
 * again on `end` (the call returned a result, `isError` or not) or on `error` (it threw). The same
 * object both times, so a subscriber can keep per-call state in a `WeakMap` keyed by it. Fields
 * are references, not copies: subscribers must not change them.
 */
export interface ToolCallTrace {
  /** The server's key in the host's configuration; `undefined` for a native tool. */
  server: string | undefined;
  /** The tool's exposed name. */
  tool: string;
  /** The calling agent, when known. */
  caller?: string;
  /** The arguments as given to the host (not redacted: subscribers run in-process). */
  arguments: unknown;
  /** `performance.now()` at the start. */
  startTime: number;
  /** Set at the end. */
  durationMs?: number;
  outcome?: CallOutcome;
  /** On `end`: the tool's result. */
  result?: unknown;
  /** On `error`: what the call threw. */
  error?: unknown;
  /** On `error`: the error's code, as in metrics (`classifyCallError`). */
  errorCode?: string;
}

interface DiagnosticsChannelModule {
  channel(name: string): TraceChannel;
}

const noopChannel = (name: string): TraceChannel => ({
  name,
  hasSubscribers: false,
  publish() {},
});

/**
 * Named channels from `node:diagnostics_channel` when the runtime offers it without an import,
 * no-op channels otherwise. `loader` is for tests.
 */
export function createTraceChannel(
  name: string,
  loader: () => unknown = loadDiagnosticsChannel,
): TraceChannel {
  const module = loader() as Partial<DiagnosticsChannelModule> | undefined;
  if (module === undefined || typeof module.channel !== 'function') return noopChannel(name);
  return module.channel(name);
}

function loadDiagnosticsChannel(): unknown {
  try {
    const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
      .process;
    return process?.getBuiltinModule?.('node:diagnostics_channel');
  } catch {
    return undefined;
  }
}

/** The three tool-call channels. */
export const toolCallChannels = {
  start: createTraceChannel(TOOL_CALL_CHANNEL_NAMES.start),
  end: createTraceChannel(TOOL_CALL_CHANNEL_NAMES.end),
  error: createTraceChannel(TOOL_CALL_CHANNEL_NAMES.error),
} as const;

/**
 * Publishes the start of a call and returns its trace object, or `undefined` (allocating
 * nothing) when no channel has a subscriber. Pass the result to `traceToolCallEnd` or
 * `traceToolCallError`, which do nothing with `undefined`.
 */
export function traceToolCallStart(
  server: string | undefined,
  tool: string,
  args: unknown,
  caller?: string,
  channels: typeof toolCallChannels = toolCallChannels,
): ToolCallTrace | undefined {
  if (
    !channels.start.hasSubscribers &&
    !channels.end.hasSubscribers &&
    !channels.error.hasSubscribers
  )
    return undefined;
  const trace: ToolCallTrace = { server, tool, arguments: args, startTime: performance.now() };
  if (caller !== undefined) trace.caller = caller;
  if (channels.start.hasSubscribers) channels.start.publish(trace);
  return trace;
}

/** Publishes a call that returned a result (`outcome` `ok` or `tool_error`). */
export function traceToolCallEnd(
  trace: ToolCallTrace | undefined,
  result: unknown,
  outcome: CallOutcome,
  channels: typeof toolCallChannels = toolCallChannels,
): void {
  if (trace === undefined) return;
  trace.durationMs = performance.now() - trace.startTime;
  trace.outcome = outcome;
  trace.result = result;
  if (channels.end.hasSubscribers) channels.end.publish(trace);
}

/** Publishes a call that threw (`outcome` `error`, `cancelled` or `timeout`). */
export function traceToolCallError(
  trace: ToolCallTrace | undefined,
  error: unknown,
  outcome: CallOutcome,
  errorCode: string,
  channels: typeof toolCallChannels = toolCallChannels,
): void {
  if (trace === undefined) return;
  trace.durationMs = performance.now() - trace.startTime;
  trace.outcome = outcome;
  trace.error = error;
  trace.errorCode = errorCode;
  if (channels.error.hasSubscribers) channels.error.publish(trace);
}
