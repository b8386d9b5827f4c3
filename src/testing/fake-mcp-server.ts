import { JsonRpcError, JsonRpcErrorCode } from '../errors/json-rpc-error.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { JsonRpcPeer } from '../jsonrpc/peer.js';
import type { Transport } from '../jsonrpc/transport.js';
import { isObject } from '../protocol/guards.js';
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import { McpErrorCode, McpMethod, MetaKey } from '../protocol/methods.js';
import { mcpPeerConventions } from '../protocol/conventions.js';
import {
  type CallToolResult,
  type Implementation,
  type InputRequiredResult,
  type Prompt,
  type Resource,
  type ServerCapabilities,
  type Tool,
} from '../protocol/types.js';
import { createLinkedTransports } from '../transport/in-memory.js';

/** What a fake tool's handler gets besides its arguments. */
export interface FakeToolContext {
  /** Modern era: what the client answered to the previous `input_required`. */
  inputResponses: JsonObject | undefined;
  /** Modern era: the `requestState` the client echoed. */
  requestState: string | undefined;
  /** The request's `_meta` (modern: version, capabilities, client info). */
  meta: JsonObject | undefined;
  /** Legacy era: ask the client something (sampling, roots, elicitation). */
  request(method: string, params?: JsonObject): Promise<unknown>;
  /** Send a notification (progress, log message) to the client. */
  notify(method: string, params?: JsonObject): void;
  signal: AbortSignal;
}

export interface FakeTool extends Tool {
  handler?: (
    args: JsonObject,
    context: FakeToolContext,
  ) => CallToolResult | InputRequiredResult | Promise<CallToolResult | InputRequiredResult>;
}

export interface FakeMcpServerOptions {
  /** Which era it speaks: `legacy` rejects `server/discover`, `modern` rejects `initialize`. */
  era: 'legacy' | 'modern' | 'dual';
  legacyVersions?: readonly string[];
  modernVersions?: readonly string[];
  serverInfo?: Implementation;
  capabilities?: ServerCapabilities;
  instructions?: string;
  tools?: FakeTool[];
  resources?: (Resource & { text?: string })[];
  prompts?: Prompt[];
  /** Extra or overriding request handlers, by method. */
  handlers?: Record<string, (params: JsonObject, context: FakeToolContext) => unknown>;
  /** Page size of list results (default: everything on one page). */
  pageSize?: number;
}

/**
 * A small, scriptable MCP server for tests, speaking the legacy era, the modern era or both over
 * any transport. Every request it receives is recorded in `received`.
 */
export class FakeMcpServer implements AsyncDisposable {
  readonly peer: JsonRpcPeer;
  readonly received: { method: string; params: JsonObject | undefined }[] = [];
  readonly #options: FakeMcpServerOptions;

  constructor(transport: Transport, options: FakeMcpServerOptions) {
    this.#options = options;
    this.peer = new JsonRpcPeer(transport, { serverName: 'fake', conventions: mcpPeerConventions });
    this.peer.setRequestHandler('*', () => {
      throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, 'Method not found');
    });
    const handle = (
      method: string,
      fn: (params: JsonObject, context: FakeToolContext) => unknown,
    ): void => {
      this.peer.setRequestHandler(method, async (params, { signal }) => {
        const p = isObject(params) ? params : {};
        this.received.push({ method, params: isObject(params) ? params : undefined });
        const meta = isObject(p._meta) ? p._meta : undefined;
        this.#checkEra(method, meta);
        const context: FakeToolContext = {
          inputResponses: isObject(p.inputResponses) ? p.inputResponses : undefined,
          requestState: typeof p.requestState === 'string' ? p.requestState : undefined,
          meta,
          request: (m, q) => this.peer.request(m, q),
          notify: (m, q) => this.peer.notify(m, q),
          signal,
        };
        const result = await fn(p, context);
        return meta !== undefined && isObject(result) && result.resultType === undefined
          ? { resultType: 'complete', ...result }
          : result;
      });
    };
    handle(McpMethod.Initialize, (params) => this.#initialize(params));
    handle(McpMethod.Discover, () => this.#discover());
    handle(McpMethod.Ping, () => ({}));
    handle(McpMethod.ToolsList, (params) => this.#page('tools', this.#tools(), params));
    handle(McpMethod.ToolsCall, (params, context) => this.#callTool(params, context));
    handle(McpMethod.ResourcesList, (params) =>
      this.#page('resources', options.resources ?? [], params),
    );
    handle(McpMethod.ResourcesRead, (params) => this.#read(params));
    handle(McpMethod.PromptsList, (params) => this.#page('prompts', options.prompts ?? [], params));
    handle(McpMethod.LoggingSetLevel, () => ({}));
    for (const [method, fn] of Object.entries(options.handlers ?? {})) handle(method, fn);
    this.peer.setNotificationHandler('*', (params, method) => {
      this.received.push({ method, params: isObject(params) ? params : undefined });
    });
  }

  get capabilities(): ServerCapabilities {
    return (
      this.#options.capabilities ?? {
        tools: { listChanged: true },
        resources: { subscribe: true },
        prompts: {},
      }
    );
  }

  start(): Promise<void> {
    return this.peer.start();
  }

  close(): Promise<void> {
    return this.peer.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Methods received, in order (requests and notifications). */
  methods(): string[] {
    return this.received.map((entry) => entry.method);
  }

  #legacyVersions(): readonly string[] {
    return this.#options.legacyVersions ?? LEGACY_PROTOCOL_VERSIONS;
  }

  #modernVersions(): readonly string[] {
    return this.#options.modernVersions ?? MODERN_PROTOCOL_VERSIONS;
  }

  #checkEra(method: string, meta: JsonObject | undefined): void {
    if (method === McpMethod.Initialize) return;
    const requested = meta?.[MetaKey.ProtocolVersion];
    if (this.#options.era === 'legacy') {
      if (method === McpMethod.Discover)
        throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, 'Method not found');
      return;
    }
    if (typeof requested !== 'string') {
      if (this.#options.era === 'modern')
        throw new JsonRpcError(JsonRpcErrorCode.InvalidRequest, 'Missing _meta protocol version');
      return;
    }
    if (!this.#modernVersions().includes(requested)) {
      throw new JsonRpcError(
        McpErrorCode.UnsupportedProtocolVersion,
        'Unsupported protocol version',
        {
          data: { supported: [...this.#modernVersions()], requested },
        },
      );
    }
  }

  #initialize(params: JsonObject): unknown {
    if (this.#options.era === 'modern') {
      throw new JsonRpcError(
        McpErrorCode.UnsupportedProtocolVersion,
        `This server only speaks ${this.#modernVersions().join(', ')}`,
        {
          data: { supported: [...this.#modernVersions()], requested: params.protocolVersion },
        },
      );
    }
    const versions = this.#legacyVersions();
    const requested = params.protocolVersion;
    return {
      protocolVersion:
        typeof requested === 'string' && versions.includes(requested) ? requested : versions[0],
      capabilities: this.capabilities,
      serverInfo: this.#options.serverInfo ?? { name: 'fake', version: '1.0.0' },
      ...(this.#options.instructions === undefined
        ? {}
        : { instructions: this.#options.instructions }),
    };
  }

  #discover(): unknown {
    return {
      supportedVersions: [...this.#modernVersions()],
      capabilities: this.capabilities,
      ttlMs: 60_000,
      cacheScope: 'public',
      _meta: {
        [MetaKey.ServerInfo]: this.#options.serverInfo ?? { name: 'fake', version: '1.0.0' },
      },
      ...(this.#options.instructions === undefined
        ? {}
        : { instructions: this.#options.instructions }),
    };
  }

  #tools(): Tool[] {
    return (this.#options.tools ?? []).map(({ handler: _handler, ...definition }) => definition);
  }

  #page(key: string, items: unknown[], params: JsonObject): JsonObject {
    const size = this.#options.pageSize ?? Number.POSITIVE_INFINITY;
    const start = typeof params.cursor === 'string' ? Number(params.cursor) : 0;
    const end = Math.min(items.length, start + size);
    return {
      [key]: items.slice(start, end),
      ...(end < items.length ? { nextCursor: String(end) } : {}),
    };
  }

  async #callTool(params: JsonObject, context: FakeToolContext): Promise<unknown> {
    const tool = (this.#options.tools ?? []).find((t) => t.name === params.name);
    if (tool === undefined)
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        `Unknown tool: ${String(params.name)}`,
      );
    const args = isObject(params.arguments) ? params.arguments : {};
    if (tool.handler === undefined)
      return { content: [{ type: 'text', text: JSON.stringify(args) }] };
    return tool.handler(args, context);
  }

  #read(params: JsonObject): unknown {
    const resource = (this.#options.resources ?? []).find((r) => r.uri === params.uri);
    if (resource === undefined)
      throw new JsonRpcError(
        McpErrorCode.ResourceNotFound,
        `Resource not found: ${String(params.uri)}`,
      );
    return {
      contents: [
        {
          uri: resource.uri,
          mimeType: resource.mimeType ?? 'text/plain',
          text: resource.text ?? '',
        },
      ],
    };
  }
}

/** A fake server on one end of a linked in-memory pair; returns the client's end. */
export async function createFakeServer(
  options: FakeMcpServerOptions,
): Promise<{ server: FakeMcpServer; clientTransport: Transport }> {
  const [clientTransport, serverTransport] = createLinkedTransports();
  const server = new FakeMcpServer(serverTransport, options);
  await server.start();
  return { server, clientTransport };
}
