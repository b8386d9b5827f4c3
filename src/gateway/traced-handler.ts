import type { Telemetry, TelemetryContext } from '../internal/telemetry.js';
import type { RequestContext } from '../jsonrpc/peer-options.js';
import { isObject } from '../protocol/guards.js';
import { McpMethod, MetaKey } from '../protocol/methods.js';

/** A served request's context, with its SERVER span's place in its trace when it is traced. */
export type ServedContext = RequestContext & { readonly traceContext?: TelemetryContext };

/** A gateway handler of one method, as its session registers it. */
export type ServedHandler = (params: unknown, context: ServedContext) => unknown;

/** What a traced handler says of its session. */
export interface TracedSession {
  /** The gateway replica's id (`GatewayOptions.replicaId`). */
  replicaId: string | undefined;
  /** The legacy session's protocol version (a modern request names its own in `_meta`). */
  version(): string | undefined;
}

/**
 * `handler` with its requests as SERVER spans: the parent is the trace context in the request's
 * `_meta` (W3C `traceparent`, SEP-414), when it has one, and the backend requests made for it are
 * the span's children (`ServedContext.traceContext`). A result with `isError: true` is a
 * `tool_error`; an error thrown (the JSON-RPC error answered) is the request's failure.
 */
export function tracedHandler(
  telemetry: Telemetry,
  method: string,
  handler: ServedHandler,
  session: TracedSession,
): ServedHandler {
  return (params, context) => {
    const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined;
    const name = isObject(params) && typeof params.name === 'string' ? params.name : undefined;
    const version = meta?.[MetaKey.ProtocolVersion];
    const span = telemetry.startRequest({
      kind: 'server',
      method,
      toolName: method === McpMethod.ToolsCall ? name : undefined,
      promptName: method === McpMethod.PromptsGet ? name : undefined,
      protocolVersion: typeof version === 'string' ? version : session.version(),
      meta,
      replicaId: session.replicaId,
    });
    if (span === undefined) return handler(params, context);
    let answer: unknown;
    try {
      answer = handler(params, { ...context, traceContext: span.context });
    } catch (error) {
      span.end({ error });
      throw error;
    }
    Promise.resolve(answer).then(
      (result) =>
        span.end(isObject(result) && result.isError === true ? { errorType: 'tool_error' } : {}),
      (error: unknown) => span.end({ error }),
    );
    return answer;
  };
}
