/**
 * The handlers of `mcp_host.v1.McpHostService` over one McpHost: each checks the caller's token,
 * turns its request into a host call and the answer into the API's message, and every failure
 * into a status (grpc-status.ts). Cancellation and deadlines of the RPC reach the host's call as an
 * abort; events and progress are written with backpressure.
 */
import {
  Metadata,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServerWritableStream,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { redact } from '../errors/redact.js';
import { envSecretValues, headerSecretValues, registerSecrets } from '../errors/secret-values.js';
import type { Disposable } from '../internal/disposable.js';
import type { Logger } from '../internal/logger.js';
import type { McpHost } from '../host/mcp-host.js';
import type { TransportDefinition } from '../transport/transport-definition.js';
import {
  eventMessage,
  resultStruct,
  toAuthRequiredMessage,
  toLogMessage,
  toPromptMessage,
  toResourceMessage,
  toServerDefinition,
  toStatusMessage,
  toTimestamp,
  toToolCallMessage,
  toToolMessage,
  toToolsChangedMessage,
  toTransportDefinition,
  type EventKindName,
  type RegisterRequest,
} from './api-messages.js';
import { EventStream } from './event-stream.js';
import { ApiRefusalError, apiRefusal, toGrpcStatus } from './grpc-status.js';
import { fromStruct, type Struct } from './struct-json.js';

/**
 * What the API records about each stdio or remote registration it is asked for (allowed or
 * refused): who asked and what would run, never a secret (environment and header values are not
 * in it, only their names; the command and its arguments went through the redactor).
 */
export interface ApiAuditRecord {
  /** When it was asked (ISO 8601). */
  time: string;
  action: 'register';
  /** `allowed`, or `refused` (a stdio server without `allowStdioRegistration`). */
  outcome: 'allowed' | 'refused';
  server: string;
  transport: TransportDefinition['type'];
  /** The stdio command and its arguments (redacted). */
  command?: string;
  args?: string[];
  /** The remote URL (redacted). */
  url?: string;
  /** The names of the environment variables or headers given (never their values). */
  envNames?: string[];
  headerNames?: string[];
  /** The gRPC peer that asked (`unix:...` or `ipv4:127.0.0.1:<port>`). */
  peer: string;
}

/** What the handlers need from the server that serves them. */
export interface ApiServiceContext {
  host: McpHost;
  logger: Logger;
  allowStdioRegistration: boolean;
  maxEventBuffer: number;
  maxCallTimeoutMs: number;
  maxDrainTimeoutMs: number;
  /** Whether the call's metadata carries the right token (or none is needed). */
  authorized(metadata: Metadata): boolean;
  onAudit: ((record: ApiAuditRecord) => void) | undefined;
  /** The WatchEvents streams open now (ended when the server closes). */
  watchers: Set<{ end(): void }>;
}

type Unary = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void;
type Streaming = (call: ServerWritableStream<unknown, unknown>) => void;

const ALL_KINDS: readonly EventKindName[] = [
  'EVENT_KIND_SERVER_STATUS',
  'EVENT_KIND_TOOLS_CHANGED',
  'EVENT_KIND_TOOL_CALL',
  'EVENT_KIND_AUTH_REQUIRED',
  'EVENT_KIND_RESOURCES_CHANGED',
  'EVENT_KIND_PROMPTS_CHANGED',
  'EVENT_KIND_LOG_MESSAGE',
];

const UNAUTHENTICATED =
  'missing or wrong API token: send the metadata `authorization: Bearer <token>`';

/** The implementation of `mcp_host.v1.McpHostService` over `context.host`. */
export function createApiService(context: ApiServiceContext): UntypedServiceImplementation {
  const { host } = context;
  const secrets = new Map<string, Disposable[]>();

  /** A unary handler: token check, cancellation as an abort signal, failures as statuses. */
  const unary =
    <Req>(run: (request: Req, signal: AbortSignal, peer: string) => Promise<unknown>): Unary =>
    (call, callback) => {
      if (!context.authorized(call.metadata)) {
        callback(apiRefusal('UNAUTHENTICATED', UNAUTHENTICATED));
        return;
      }
      const controller = new AbortController();
      const onCancel = (): void =>
        controller.abort(new McpHostError('ABORTED', 'the gRPC client cancelled the call'));
      call.once('cancelled', onCancel);
      // A handler that throws before its first await answers as one that rejects.
      new Promise((resolve) => resolve(run(call.request as Req, controller.signal, call.getPeer())))
        .then(
          (response) => callback(null, response),
          (error: unknown) => callback(toGrpcStatus(error)),
        )
        .finally(() => call.off('cancelled', onCancel));
    };

  const known = (name: string | undefined): string => {
    if (name === undefined || name === '')
      throw new ApiRefusalError('BAD_REQUEST', 'name is required');
    if (!host.status().some((status) => status.name === name))
      throw new ApiRefusalError('SERVER_NOT_FOUND', `no server is named '${name}'`);
    return name;
  };

  const statusOf = async (status: Promise<Parameters<typeof toStatusMessage>[0]>) => ({
    status: toStatusMessage(await status),
  });

  const audit = (record: ApiAuditRecord): void => {
    const fields = { ...record };
    if (record.outcome === 'refused')
      context.logger.warn(
        'api: stdio registration refused (allowStdioRegistration is off)',
        fields,
      );
    else context.logger.info('api: server registered', fields);
    try {
      context.onAudit?.(record);
    } catch (error) {
      context.logger.warn('api: the audit hook threw', { error: redact(String(error)) });
    }
  };

  const register = async (request: RegisterRequest, _signal: AbortSignal, peer: string) => {
    const name = request.name ?? '';
    if (name === '') throw new ApiRefusalError('BAD_REQUEST', 'name is required');
    const transport = toTransportDefinition(request);
    if (typeof transport === 'string') throw new ApiRefusalError('BAD_REQUEST', transport);
    if (host.status().some((status) => status.name === name))
      throw new ApiRefusalError('SERVER_EXISTS', `a server named '${name}' is already registered`);
    // Known as secrets before anything about them is logged or can fail.
    const held = registerSecrets([
      ...(transport.type === 'stdio'
        ? envSecretValues(transport.env, transport.publicEnv)
        : headerSecretValues(transport.headers, transport.publicHeaders)),
      ...(request.oauth?.clientSecret ? [request.oauth.clientSecret] : []),
    ]);
    const refused = transport.type === 'stdio' && !context.allowStdioRegistration;
    audit(auditRecord(name, transport, refused ? 'refused' : 'allowed', peer));
    if (refused) {
      for (const secret of held) secret.dispose();
      throw new ApiRefusalError(
        'STDIO_NOT_PERMITTED',
        'registering a stdio server runs a command on the host: this API was not started with allowStdioRegistration',
      );
    }
    try {
      const status = await host.addServer(toServerDefinition(name, transport, request));
      secrets.set(name, held);
      return { status: toStatusMessage(status) };
    } catch (error) {
      if (!host.status().some((status) => status.name === name))
        for (const secret of held) secret.dispose();
      else secrets.set(name, held);
      throw error;
    }
  };

  return {
    RegisterMcpServer: unary(register),
    UnregisterMcpServer: unary(async (request: { name?: string; drainTimeoutMs?: number }) => {
      const name = known(request.name);
      await host.removeServer(name, {
        drainTimeoutMs: Math.min(request.drainTimeoutMs ?? 0, context.maxDrainTimeoutMs),
      });
      for (const secret of secrets.get(name) ?? []) secret.dispose();
      secrets.delete(name);
      return {};
    }),
    ConnectMcpServer: unary((request: { name?: string }) =>
      statusOf(host.connectServer(known(request.name))),
    ),
    DisconnectMcpServer: unary((request: { name?: string }) =>
      statusOf(host.disconnectServer(known(request.name))),
    ),
    EnableMcpServer: unary((request: { name?: string }) =>
      statusOf(host.enableServer(known(request.name))),
    ),
    DisableMcpServer: unary((request: { name?: string }) =>
      statusOf(host.disableServer(known(request.name))),
    ),
    RestartMcpServer: unary((request: { name?: string }) =>
      statusOf(host.restartServer(known(request.name))),
    ),
    GetMcpServerStatus: unary((request: { name?: string }) =>
      Promise.resolve({ status: toStatusMessage(host.serverStatus(known(request.name))) }),
    ),
    ListMcpServers: unary(() =>
      Promise.resolve({ servers: host.status().map((status) => toStatusMessage(status)) }),
    ),
    GetMcpTools: unary((request: { server?: string }) => {
      const server =
        request.server === undefined || request.server === '' ? undefined : request.server;
      if (server !== undefined) known(server);
      const tools = host.tools().filter((tool) => server === undefined || tool.server === server);
      return Promise.resolve({ tools: tools.map((tool) => toToolMessage(tool)) });
    }),
    CallTool: callTool(context),
    WatchEvents: watchEvents(context),
    ListResources: unary(async (request: { server?: string }) => {
      const server =
        request.server === undefined || request.server === '' ? undefined : request.server;
      if (server !== undefined) known(server);
      const resources = (await host.resources()).filter(
        (resource) => server === undefined || resource.server === server,
      );
      return { resources: resources.map((resource) => toResourceMessage(resource)) };
    }),
    ReadResource: unary(async (request: { uri?: string; server?: string }, signal) => {
      if (request.uri === undefined || request.uri === '')
        throw new ApiRefusalError('BAD_REQUEST', 'uri is required');
      const server =
        request.server === undefined || request.server === '' ? undefined : request.server;
      if (server !== undefined) known(server);
      const result = await host.readResource(request.uri, {
        signal,
        ...(server === undefined ? {} : { server }),
      });
      return { result: resultStruct(result) };
    }),
    ListPrompts: unary(async (request: { server?: string }) => {
      const server =
        request.server === undefined || request.server === '' ? undefined : request.server;
      if (server !== undefined) known(server);
      const prompts = (await host.prompts()).filter(
        (prompt) => server === undefined || prompt.server === server,
      );
      return { prompts: prompts.map((prompt) => toPromptMessage(prompt)) };
    }),
    GetPrompt: unary(
      async (request: { name?: string; arguments?: Record<string, string> }, signal) => {
        if (request.name === undefined || request.name === '')
          throw new ApiRefusalError('BAD_REQUEST', 'name is required');
        const result = await host.getPrompt(request.name, { ...request.arguments }, { signal });
        return { result: resultStruct(result) };
      },
    ),
    StartMcpOAuth: unary(async (request: { name?: string }, signal) => {
      const login = await host.startAuthorization(known(request.name), { signal });
      return { authorizationUrl: login.url.href, expiresAt: toTimestamp(login.expiresAt) };
    }),
    CompleteMcpOAuth: unary((request: { name?: string; redirectUrl?: string }) => {
      const name = known(request.name);
      if (request.redirectUrl === undefined || request.redirectUrl === '')
        throw new ApiRefusalError('BAD_REQUEST', 'redirect_url is required');
      return statusOf(host.completeAuthorization(name, request.redirectUrl));
    }),
  };
}

function auditRecord(
  server: string,
  transport: TransportDefinition,
  outcome: ApiAuditRecord['outcome'],
  peer: string,
): ApiAuditRecord {
  const base = { time: new Date().toISOString(), action: 'register' as const, outcome, server };
  if (transport.type === 'stdio')
    return {
      ...base,
      transport: 'stdio',
      command: redact(transport.command),
      args: (transport.args ?? []).map((arg) => redact(arg)),
      envNames: Object.keys(transport.env ?? {}),
      peer,
    };
  return {
    ...base,
    transport: transport.type,
    url: redact(transport.url),
    headerNames: Object.keys(transport.headers ?? {}),
    peer,
  };
}

/**
 * CallTool: progress while the tool runs (dropped, not buffered, while the client is behind:
 * progress is a hint, the result is not), then the result. The RPC's cancellation (the client
 * cancelled, or its deadline passed) aborts the host's call, which cancels the MCP request on the
 * server; a call with no deadline, or one further away than `maxCallTimeoutMs`, is cut there.
 */
function callTool(context: ApiServiceContext): Streaming {
  return (call) => {
    if (!context.authorized(call.metadata)) {
      call.emit('error', apiRefusal('UNAUTHENTICATED', UNAUTHENTICATED));
      return;
    }
    const request = call.request as { name?: string; arguments?: Struct; retry?: boolean };
    const controller = new AbortController();
    const onCancel = (): void =>
      controller.abort(new McpHostError('ABORTED', 'the gRPC client cancelled the call'));
    call.once('cancelled', onCancel);
    const cap = setTimeout(
      () =>
        controller.abort(
          new McpHostError(
            'REQUEST_TIMEOUT',
            `the call took longer than the API's limit (${context.maxCallTimeoutMs} ms)`,
            { details: { kind: 'total' } },
          ),
        ),
      context.maxCallTimeoutMs,
    );
    let behind = false;
    call.on('drain', () => (behind = false));
    const run = async (): Promise<void> => {
      if (request.name === undefined || request.name === '')
        throw new ApiRefusalError('BAD_REQUEST', 'name is required');
      const result = await context.host.callTool(request.name, fromStruct(request.arguments), {
        signal: controller.signal,
        retry: request.retry === true,
        onProgress: (progress) => {
          if (behind || call.cancelled) return;
          const message = {
            progress: {
              progress: progress.progress,
              ...(progress.total === undefined ? {} : { total: progress.total }),
              ...(progress.message === undefined ? {} : { message: progress.message }),
            },
          };
          if (!call.write(message)) behind = true;
        },
      });
      if (call.cancelled) return;
      call.write({ result: { isError: result.isError === true, result: resultStruct(result) } });
      call.end();
    };
    run()
      .catch((error: unknown) => {
        if (call.cancelled) return;
        const reason: unknown = controller.signal.aborted ? controller.signal.reason : error;
        call.emit('error', toGrpcStatus(reason));
      })
      .finally(() => {
        clearTimeout(cap);
        call.off('cancelled', onCancel);
      });
  };
}

/** WatchEvents: the host's events of the kinds asked for, bounded per subscriber. */
function watchEvents(context: ApiServiceContext): Streaming {
  const { host } = context;
  return (call) => {
    if (!context.authorized(call.metadata)) {
      call.emit('error', apiRefusal('UNAUTHENTICATED', UNAUTHENTICATED));
      return;
    }
    const asked = (call.request as { kinds?: string[] }).kinds ?? [];
    const kinds = new Set<string>(asked.length === 0 ? ALL_KINDS : asked);
    const subscriptions: Disposable[] = [];
    const watcher = {
      end: () => {
        stop();
        call.end();
      },
    };
    const stop = (): void => {
      for (const subscription of subscriptions) subscription.dispose();
      subscriptions.length = 0;
      stream.stop();
      context.watchers.delete(watcher);
    };
    const stream = new EventStream(call, context.maxEventBuffer, () => {
      stop();
      context.logger.warn('api: a WatchEvents client fell behind and was cut off', {
        peer: call.getPeer(),
        maxEventBuffer: context.maxEventBuffer,
      });
      call.emit(
        'error',
        apiRefusal(
          'SLOW_CONSUMER',
          `WatchEvents: the client fell more than ${context.maxEventBuffer} events behind and was cut off; call again and re-read the state (ListMcpServers)`,
        ),
      );
    });
    const on = <T>(
      kind: EventKindName,
      subscribe: (listener: (value: T) => void) => Disposable,
      message: (value: T) => Record<string, unknown>,
    ): void => {
      if (kinds.has(kind))
        subscriptions.push(subscribe((value) => stream.push(eventMessage(message(value)))));
    };
    on('EVENT_KIND_SERVER_STATUS', host.onServerStatus, (status) => ({
      serverStatus: toStatusMessage(status),
    }));
    on('EVENT_KIND_TOOLS_CHANGED', host.onToolsChanged, (event) => ({
      toolsChanged: toToolsChangedMessage(event),
    }));
    on('EVENT_KIND_TOOL_CALL', host.onToolCall, (event) => ({
      toolCall: toToolCallMessage(event),
    }));
    on('EVENT_KIND_AUTH_REQUIRED', host.onAuthRequired, (event) => ({
      authRequired: toAuthRequiredMessage(event),
    }));
    on('EVENT_KIND_RESOURCES_CHANGED', host.onResourcesChanged, (event) => ({
      resourcesChanged: { server: event.server },
    }));
    on('EVENT_KIND_PROMPTS_CHANGED', host.onPromptsChanged, (event) => ({
      promptsChanged: { server: event.server },
    }));
    on('EVENT_KIND_LOG_MESSAGE', host.onLogMessage, (event) => ({
      logMessage: toLogMessage(event),
    }));
    context.watchers.add(watcher);
    call.once('cancelled', stop);
    // The response headers go out now, so the client knows it is subscribed before any event.
    call.sendMetadata(new Metadata());
  };
}
