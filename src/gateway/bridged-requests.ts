import type { TelemetryContext } from '../internal/telemetry.js';
import type { BridgedCallInit } from './bridged-call.js';
import type { GatewaySource } from './gateway-source.js';
import { callParams, promptParams, resourceUri } from './request-params.js';

/** What a bridged call is made of, before its client is known. */
export type BridgedRequest = Pick<BridgedCallInit, 'kind' | 'name' | 'server' | 'invoke'>;

/**
 * The request of a `prompts/get` (its params checked: -32602); `trace`, the served request's
 * span, is the parent of the backend request's.
 */
export function promptRequest(
  source: GatewaySource,
  params: unknown,
  trace: TelemetryContext | undefined,
): BridgedRequest {
  const { name, args } = promptParams(params);
  return {
    kind: 'prompt',
    name,
    server: undefined,
    invoke: ({ signal, input, resume }) =>
      source.getPrompt(name, args, { signal, input, resume, traceContext: trace }),
  };
}

/** The request of a `resources/read` (its params checked: -32602); `trace` as for prompts. */
export function resourceRequest(
  source: GatewaySource,
  params: unknown,
  trace: TelemetryContext | undefined,
): BridgedRequest {
  const uri = resourceUri(params);
  return {
    kind: 'resource',
    name: uri,
    server: undefined,
    invoke: ({ signal, input, resume }) =>
      source.readResource(uri, { signal, input, resume, traceContext: trace }),
  };
}

/**
 * The request of a `tools/call` (its params checked: -32602); with `task`, one that accepts a
 * task (its backend may answer a `CreateTaskResult`); `trace` as for prompts.
 */
export function toolRequest(
  source: GatewaySource,
  params: unknown,
  task: boolean,
  trace: TelemetryContext | undefined,
): BridgedRequest {
  const { name, args } = callParams(params);
  return {
    kind: 'tool',
    name,
    server: source.tools().find((tool) => tool.name === name)?.server,
    invoke: (options) =>
      source.callTool(
        name,
        args,
        task || trace !== undefined ? { ...options, task, traceContext: trace } : options,
      ),
  };
}
