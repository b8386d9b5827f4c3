import type { Telemetry, TelemetryContext } from '../internal/telemetry.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { isObject } from '../protocol/guards.js';
import { McpMethod } from '../protocol/methods.js';

/**
 * Sends a request in a CLIENT span of its own: the span's trace context goes in the request's
 * `_meta` (`traceparent`, `tracestate`, beside what `_meta` holds already), and the span ends with
 * the request: failed with what it threw, or `tool_error` for a tool result with `isError: true`.
 * Without a span (the telemetry traces nothing of it), the request goes as it is. `client` names
 * the server and the session's protocol version; `options.traceContext` is the parent, if any.
 */
export function tracedRequest<T>(
  telemetry: Telemetry,
  client: { readonly serverName: string | undefined; readonly session?: { version: string } },
  method: string,
  params: JsonObject | undefined,
  options: { traceContext?: TelemetryContext },
  send: (params: JsonObject | undefined) => Promise<T>,
): Promise<T> {
  const name = typeof params?.name === 'string' ? params.name : undefined;
  const span = telemetry.startRequest({
    kind: 'client',
    method,
    toolName: method === McpMethod.ToolsCall ? name : undefined,
    promptName: method === McpMethod.PromptsGet ? name : undefined,
    serverName: client.serverName,
    protocolVersion: client.session?.version,
    parent: options.traceContext,
  });
  if (span === undefined) return send(params);
  const meta: JsonObject = isObject(params?._meta) ? { ...params._meta } : {};
  span.inject(meta);
  const sent = send(Object.keys(meta).length === 0 ? params : { ...params, _meta: meta });
  sent.then(
    (result) =>
      span.end(
        method === McpMethod.ToolsCall && isObject(result) && result.isError === true
          ? { errorType: 'tool_error' }
          : {},
      ),
    (error: unknown) => span.end({ error }),
  );
  return sent;
}
