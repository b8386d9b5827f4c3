/**
 * The host's values as the API's messages (the object shapes `API_PROTO_OPTIONS` gives), and a
 * registration request as a server definition. Typed where the API owns the shape; MCP's own JSON
 * (schemas, annotations, results) as `Struct`s, verbatim.
 */
import type { JsonObject } from '../jsonrpc/message.js';
import type { Prompt, Resource } from '../protocol/types.js';
import type { ToolCallEvent } from '../host/calls/call-pipeline.js';
import type { ToolsChangedEvent } from '../host/catalogue/tool-catalogue.js';
import type { HostLogMessage } from '../host/mcp-host.js';
import type { HostTool } from '../host/host-tool.js';
import type { HostServerDefinition } from '../host/server-definition.js';
import type { AuthRequiredEvent, ServerOAuthOptions } from '../host/server-oauth.js';
import type { ServerStatus } from '../host/slot/server-status.js';
import type { TransportDefinition } from '../transport/transport-definition.js';
import { toStruct, toValue, type Struct, type StructValue } from './struct-json.js';

/** A `google.protobuf.Timestamp` as proto-loader takes it. */
export interface TimestampMessage {
  seconds: string;
  nanos: number;
}

/** A time (ms since the epoch, or ISO 8601) as a `google.protobuf.Timestamp`. */
export function toTimestamp(time: number | string): TimestampMessage {
  const ms = typeof time === 'number' ? time : Date.parse(time);
  const seconds = Math.floor(ms / 1000);
  return { seconds: String(seconds), nanos: Math.round((ms - seconds * 1000) * 1e6) };
}

/** `mcp_host.v1.ServerStatus`. */
export function toStatusMessage(status: ServerStatus): Record<string, unknown> {
  return {
    name: status.name,
    state: `SERVER_STATE_${status.state.toUpperCase()}`,
    since: toTimestamp(status.since),
    ...(status.lastError === undefined ? {} : { lastError: { ...status.lastError } }),
    ...(status.pid === undefined ? {} : { pid: status.pid }),
    ...(status.era === undefined ? {} : { era: status.era }),
    ...(status.protocolVersion === undefined ? {} : { protocolVersion: status.protocolVersion }),
    ...(status.serverInfo === undefined
      ? {}
      : {
          serverInfo: {
            name: status.serverInfo.name,
            version: status.serverInfo.version,
            ...(typeof status.serverInfo.title === 'string'
              ? { title: status.serverInfo.title }
              : {}),
          },
        }),
    toolCount: status.toolCount,
    quarantinedCount: status.quarantinedCount,
    restartCount: status.restartCount,
    ...(status.nextRetryAt === undefined ? {} : { nextRetryAt: toTimestamp(status.nextRetryAt) }),
    inFlight: status.inFlight,
    queued: status.queued,
  };
}

/** `mcp_host.v1.Tool`. */
export function toToolMessage(tool: HostTool): Record<string, unknown> {
  return {
    name: tool.name,
    ...(tool.server === undefined ? {} : { server: tool.server }),
    originalName: tool.originalName,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: toStruct(tool.inputSchema),
    ...(tool.outputSchema === undefined ? {} : { outputSchema: toStruct(tool.outputSchema) }),
    ...(tool.annotations === undefined ? {} : { annotations: toStruct(tool.annotations) }),
  };
}

/** `mcp_host.v1.Resource`. */
export function toResourceMessage(
  resource: Resource & { server: string },
): Record<string, unknown> {
  return {
    uri: resource.uri,
    name: resource.name,
    ...(resource.title === undefined ? {} : { title: resource.title }),
    ...(resource.description === undefined ? {} : { description: resource.description }),
    ...(resource.mimeType === undefined ? {} : { mimeType: resource.mimeType }),
    server: resource.server,
  };
}

/** `mcp_host.v1.Prompt`. */
export function toPromptMessage(
  prompt: Prompt & { server: string; originalName: string },
): Record<string, unknown> {
  return {
    name: prompt.name,
    server: prompt.server,
    originalName: prompt.originalName,
    ...(prompt.title === undefined ? {} : { title: prompt.title }),
    ...(prompt.description === undefined ? {} : { description: prompt.description }),
    arguments: (prompt.arguments ?? []).map((argument) => ({
      name: argument.name,
      ...(argument.description === undefined ? {} : { description: argument.description }),
      required: argument.required === true,
    })),
  };
}

/** The kinds of `WatchEventsResponse`, by their `EventKind` names. */
export type EventKindName =
  | 'EVENT_KIND_SERVER_STATUS'
  | 'EVENT_KIND_TOOLS_CHANGED'
  | 'EVENT_KIND_TOOL_CALL'
  | 'EVENT_KIND_AUTH_REQUIRED'
  | 'EVENT_KIND_RESOURCES_CHANGED'
  | 'EVENT_KIND_PROMPTS_CHANGED'
  | 'EVENT_KIND_LOG_MESSAGE';

/** One `WatchEventsResponse`, stamped now. */
export function eventMessage(event: Record<string, unknown>): Record<string, unknown> {
  return { time: toTimestamp(Date.now()), ...event };
}

/** `mcp_host.v1.ToolsChanged`. */
export function toToolsChangedMessage(event: ToolsChangedEvent): Record<string, unknown> {
  return {
    ...(event.server === undefined ? {} : { server: event.server }),
    added: event.added,
    removed: event.removed,
    changed: event.changed,
  };
}

/** `mcp_host.v1.ToolCall`. */
export function toToolCallMessage(event: ToolCallEvent): Record<string, unknown> {
  return {
    phase: `TOOL_CALL_PHASE_${event.phase.toUpperCase()}`,
    tool: event.tool,
    ...(event.server === undefined ? {} : { server: event.server }),
    originalName: event.originalName,
    durationMs: event.durationMs,
    ...(event.outcome === undefined ? {} : { outcome: event.outcome }),
    ...(event.error === undefined
      ? {}
      : {
          error: {
            code: 'code' in event.error ? String(event.error.code) : 'INTERNAL',
            message: event.error.message,
          },
        }),
  };
}

/** `mcp_host.v1.AuthRequired`. */
export function toAuthRequiredMessage(event: AuthRequiredEvent): Record<string, unknown> {
  return {
    server: event.server,
    scopes: [...event.scopes],
    ...(event.url === undefined ? {} : { url: event.url }),
    ...(event.expiresAt === undefined ? {} : { expiresAt: toTimestamp(event.expiresAt) }),
    error: { ...event.error },
  };
}

/** `mcp_host.v1.LogMessage`. */
export function toLogMessage(message: HostLogMessage): Record<string, unknown> {
  return {
    server: message.server,
    level: message.level,
    ...(message.logger === undefined ? {} : { logger: message.logger }),
    data: toValue(message.data) satisfies StructValue,
  };
}

/** `mcp_host.v1.RegisterMcpServerRequest`, as proto-loader gives it. */
export interface RegisterRequest {
  name?: string;
  transport?: 'stdio' | 'remote';
  stdio?: {
    command?: string;
    args?: string[];
    env?: Record<string, string>;
    publicEnv?: string[];
    cwd?: string;
  };
  remote?: {
    kind?: string;
    url?: string;
    headers?: Record<string, string>;
    publicHeaders?: string[];
  };
  enabled?: boolean;
  lazy?: boolean;
  trusted?: boolean;
  oauth?: {
    clientId?: string;
    clientSecret?: string;
    scopes?: string[];
    redirectUri?: string;
    authorizationServer?: string;
  };
}

const REMOTE_KINDS: Readonly<Record<string, 'http' | 'sse' | 'websocket'>> = {
  REMOTE_KIND_HTTP: 'http',
  REMOTE_KIND_SSE: 'sse',
  REMOTE_KIND_WEBSOCKET: 'websocket',
};

/**
 * The transport a registration asks for, or a reason it is not usable (said to the caller as
 * INVALID_ARGUMENT; the reason holds no value of the request but its shape).
 */
export function toTransportDefinition(request: RegisterRequest): TransportDefinition | string {
  if (request.stdio !== undefined && request.stdio !== null) {
    const { command, args, env, publicEnv, cwd } = request.stdio;
    if (command === undefined || command === '') return 'stdio.command is required';
    return {
      type: 'stdio',
      command,
      ...(args === undefined || args.length === 0 ? {} : { args: [...args] }),
      ...(env === undefined || Object.keys(env).length === 0 ? {} : { env: { ...env } }),
      ...(publicEnv === undefined || publicEnv.length === 0 ? {} : { publicEnv: [...publicEnv] }),
      ...(cwd === undefined || cwd === '' ? {} : { cwd }),
    };
  }
  if (request.remote !== undefined && request.remote !== null) {
    const { kind, url, headers, publicHeaders } = request.remote;
    const type = REMOTE_KINDS[kind ?? ''];
    if (type === undefined) return 'remote.kind must be HTTP, SSE or WEBSOCKET';
    if (url === undefined || !URL.canParse(url)) return 'remote.url must be an absolute URL';
    return {
      type,
      url,
      ...(headers === undefined || Object.keys(headers).length === 0
        ? {}
        : { headers: { ...headers } }),
      ...(publicHeaders === undefined || publicHeaders.length === 0
        ? {}
        : { publicHeaders: [...publicHeaders] }),
    };
  }
  return 'a transport (stdio or remote) is required';
}

/** The host's definition of a registered server (its transport already checked). */
export function toServerDefinition(
  name: string,
  transport: TransportDefinition,
  request: RegisterRequest,
): HostServerDefinition {
  const oauth = request.oauth;
  return {
    name,
    transport,
    ...(request.enabled === false ? { enabled: false } : {}),
    ...(request.lazy === true ? { lazy: true } : {}),
    ...(request.trusted === true ? { trusted: true } : {}),
    ...(oauth === undefined || oauth === null ? {} : { oauth: toOAuthOptions(oauth) }),
  };
}

function toOAuthOptions(oauth: NonNullable<RegisterRequest['oauth']>): ServerOAuthOptions {
  const nonEmpty = (value: string | undefined): value is string =>
    value !== undefined && value !== '';
  return {
    ...(nonEmpty(oauth.clientId) ? { clientId: oauth.clientId } : {}),
    ...(nonEmpty(oauth.clientSecret) ? { clientSecret: oauth.clientSecret } : {}),
    ...(oauth.scopes === undefined || oauth.scopes.length === 0
      ? {}
      : { scopes: [...oauth.scopes] }),
    ...(nonEmpty(oauth.redirectUri) ? { redirectUri: oauth.redirectUri } : {}),
    ...(nonEmpty(oauth.authorizationServer)
      ? { authorizationServer: oauth.authorizationServer }
      : {}),
  };
}

/** `Struct`s for results the API passes through verbatim. */
export function resultStruct(result: object): Struct {
  return toStruct(result as JsonObject);
}
