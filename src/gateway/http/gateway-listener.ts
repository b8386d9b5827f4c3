import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { toMcpHostError } from '../../errors/to-mcp-host-error.js';
import type { MetricsSnapshot } from '../../host/observe/metrics.js';
import type { ServerStatus } from '../../host/slot/server-status.js';
import type { Disposable } from '../../internal/disposable.js';
import { Emitter } from '../../internal/emitter.js';
import type { Logger } from '../../internal/logger.js';
import { isJsonRpcMessage, isJsonRpcRequest, type JsonRpcMessage } from '../../jsonrpc/message.js';
import type { Transport } from '../../jsonrpc/transport.js';
import type { HeaderParam } from '../../protocol/http-headers.js';
import { McpErrorCode, McpMethod } from '../../protocol/methods.js';
import {
  eraOf,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
} from '../../protocol/versions.js';
import {
  GatewayHttpTransport,
  SESSION_ID_HEADER,
  type PostAccepts,
} from './gateway-http-transport.js';
import { HttpJsonRpcCode, replyEmpty, replyError } from './http-replies.js';
import { checkModernPost, claimsModernEra } from './modern-post-rules.js';
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from './prometheus-text.js';
import { REPLICA_HEADER } from './replica-id.js';
import { RequestGuard } from './request-guard.js';
import { OAUTH_CALLBACK_PATH, type UpstreamLogins } from '../login/upstream-logins.js';

/** How a listener authenticates its clients. */
export type GatewayAuth =
  /** Every request carries `Authorization: Bearer <bearerToken>`. */
  | { bearerToken: string }
  /** No authentication: allowed only on a loopback address. */
  | 'none';

/**
 * A named client of the gateway (a principal): its own bearer token and, optionally, the one view
 * it is served. Its name keys its upstream credentials (`GatewayOptions.perClient`).
 */
export interface GatewayClientOptions {
  /** The token this client sends (16 or more visible ASCII characters; a secret). */
  bearerToken: string;
  /** The named view this client is served, wherever it asks (`/mcp` included); default: none. */
  view?: string;
}

/** Options of `gateway.listen()`. */
export interface GatewayListenOptions {
  /** The port (default 0: a free one; see `listener.url`). */
  port?: number;
  /** The address to bind (default `127.0.0.1`). */
  hostname?: string;
  /**
   * Default: a random bearer token made for this listener (`listener.bearerToken`). `'none'`
   * turns authentication off, on a loopback address only.
   */
  auth?: GatewayAuth;
  /**
   * Named clients (principals), each with its own token and optionally its own view (`{ alice:
   * { bearerToken, view: 'notes' } }`). With clients, no random token is made: a request carries
   * one of their tokens, or `auth`'s when one is given (served as no client in particular).
   */
  clients?: Readonly<Record<string, GatewayClientOptions>>;
  /** Origins allowed besides the listener's own (`http://localhost:<port>`, ...). */
  allowedOrigins?: readonly string[];
  /** `Host` values allowed besides `localhost`, `127.0.0.1`, `[::1]` and the bound address with the port. */
  allowedHosts?: readonly string[];
  /**
   * The host's named views served at `/mcp/<view>` (or with the `Mcp-Host-View` header). Default:
   * every named view of the host. `/mcp` itself serves the gateway's own view (or the whole host).
   */
  views?: readonly string[];
  /** A larger request body is refused with 413 (default 4 MiB). */
  maxBodyBytes?: number;
  /** A JSON-RPC batch (2025-03-26) of more messages is refused with 400 (default 32). */
  maxBatchMessages?: number;
  /** Sessions open at once; one more `initialize` is refused with 503 (default 64). */
  maxSessions?: number;
  /** Session-less requests answered at once; one more is refused with 503 (default 256). */
  maxStatelessRequests?: number;
  /** GET streams open per session; one more is refused with 409 (default 1). */
  maxStreamsPerSession?: number;
  /** A session with no request and no stream open for this long ends (default 30 minutes). */
  sessionIdleMs?: number;
  /** An SSE response with more than this waiting unread is dropped (default 16 MiB). */
  maxStreamBufferedBytes?: number;
  /**
   * Events a session holds for its client's resumption (a GET with `Last-Event-ID`), the oldest
   * going first (default 256); a resumption that needs one no longer held is refused with 410.
   */
  maxReplayEvents?: number;
  /** Bytes of events a session holds for resumption (default 4 MiB; a larger event is not held). */
  maxReplayBytes?: number;
}

/** The defaults of `GatewayListenOptions`. */
export const DEFAULT_GATEWAY_LISTEN_OPTIONS = Object.freeze({
  port: 0,
  hostname: '127.0.0.1',
  maxBodyBytes: 4 * 1024 * 1024,
  maxBatchMessages: 32,
  maxSessions: 64,
  maxStatelessRequests: 256,
  maxStreamsPerSession: 1,
  sessionIdleMs: 30 * 60_000,
  maxStreamBufferedBytes: 16 * 1024 * 1024,
  maxReplayEvents: 256,
  maxReplayBytes: 4 * 1024 * 1024,
});

/** The path of the MCP endpoint. */
export const MCP_PATH = '/mcp';
/** The path of the Prometheus metrics. */
export const METRICS_PATH = '/metrics';
/**
 * The path of the health check (a load balancer's): 200 `ok` while serving, 503 while closing,
 * without the bearer token and revealing nothing else.
 */
export const HEALTH_PATH = '/healthz';
/** The request header that selects a named view (as `/mcp/<view>` does). */
export const VIEW_HEADER = 'mcp-host-view';

/** What a listener needs of its gateway (the gateway gives it; the listener knows no more). */
export interface GatewayEndpoint {
  /** Serves one client on `transport` until the connection ends. */
  serve(transport: Transport, options: { view?: string; principal?: string }): Promise<void>;
  /** Whether the host has a named view `name`. */
  hasView(name: string): boolean;
  /** The `x-mcp-header` parameters of a tool the view offers; undefined for an unknown tool. */
  toolHeaderParams(view: string | undefined, tool: string): readonly HeaderParam[] | undefined;
  metrics(): MetricsSnapshot;
  status(): ServerStatus[];
  /** Sent as `mcp-host-replica` on every response and in `/metrics` (`mcp_host_gateway_replica_info`). */
  replicaId: string;
  logger: Logger;
  /** The upstream logins whose callback this listener serves (`/oauth/callback`), if any. */
  logins?: UpstreamLogins;
}

const SUPPORTED_VERSIONS: readonly string[] = [
  ...MODERN_PROTOCOL_VERSIONS,
  ...LEGACY_PROTOCOL_VERSIONS,
];

/** Who a request is from (the named client, if any) and the view it is served. */
interface Route {
  readonly view: string | undefined;
  readonly principal: string | undefined;
}

interface Session extends Route {
  readonly transport: GatewayHttpTransport;
}

/** A session belongs to one route: the same view, the same client. */
function sameRoute(a: Route, b: Route): boolean {
  return a.view === b.view && a.principal === b.principal;
}

/**
 * A gateway served over Streamable HTTP at `/mcp` (made by `gateway.listen()`): each legacy
 * client's `initialize` opens a session (its id in `Mcp-Session-Id`), each session-less POST is
 * served as a one-shot connection (the 2026-07-28 era is stateless), and `/mcp/<view>` serves a
 * named view of the host. A session's SSE streams can be resumed (a GET with `Last-Event-ID`),
 * and a session's call whose stream dropped runs on. Every request passes the `Host`, `Origin`
 * and bearer-token checks first; bodies, batches, sessions, streams and held events are bounded. `GET /metrics` gives the host's and
 * the gateway's metrics in the Prometheus text format; `GET /healthz` (no token) says whether it
 * serves. Every response names the replica (`mcp-host-replica`). `close()` ends every session and
 * the server. See docs/gateway.md.
 */
export class GatewayListener implements AsyncDisposable {
  readonly #server: Server;
  readonly #endpoint: GatewayEndpoint;
  readonly #guard: RequestGuard;
  readonly #options: Required<Omit<GatewayListenOptions, 'auth' | 'views' | 'clients'>> & {
    views: readonly string[] | undefined;
  };
  readonly #sessions = new Map<string, Session>();
  readonly #stateless = new Set<GatewayHttpTransport>();
  readonly #serving = new Set<Promise<void>>();
  readonly #byStatus = new Map<number, number>();
  readonly #sessionEnded: Emitter<string>;
  #closing: Promise<void> | undefined;

  /** The MCP endpoint's URL (`http://127.0.0.1:<port>/mcp`). */
  readonly url: string;
  /** The port the listener is bound to. */
  readonly port: number;
  /**
   * The bearer token clients must send; undefined when authentication is off, or when only the
   * named clients' tokens are accepted.
   */
  readonly bearerToken: string | undefined;
  /** The view each named client is bound to. */
  readonly #boundViews: ReadonlyMap<string, string>;

  /** @internal Made by `gateway.listen()`, once the server listens. */
  constructor(
    server: Server,
    endpoint: GatewayEndpoint,
    options: GatewayListenOptions,
    bearerToken: string | undefined,
  ) {
    this.#server = server;
    this.#endpoint = endpoint;
    this.bearerToken = bearerToken;
    this.#sessionEnded = new Emitter((error) =>
      endpoint.logger.error('gateway: a session-end listener threw', { error: String(error) }),
    );
    this.onSessionEnd = this.#sessionEnded.event;
    const hostname = options.hostname ?? DEFAULT_GATEWAY_LISTEN_OPTIONS.hostname;
    this.port = (server.address() as AddressInfo).port;
    this.url = `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${this.port}${MCP_PATH}`;
    this.#options = {
      ...DEFAULT_GATEWAY_LISTEN_OPTIONS,
      allowedOrigins: [],
      allowedHosts: [],
      ...definedOnly(options),
      hostname,
      port: this.port,
      views: options.views,
    };
    const clients = Object.entries(options.clients ?? {});
    this.#boundViews = new Map(
      clients.flatMap(([name, client]) => (client.view === undefined ? [] : [[name, client.view]])),
    );
    this.#guard = new RequestGuard({
      bearerToken,
      clients: new Map(clients.map(([name, client]) => [name, client.bearerToken])),
      hostname,
      port: this.port,
      allowedOrigins: this.#options.allowedOrigins,
      allowedHosts: this.#options.allowedHosts,
    });
    endpoint.logins?.useCallback(this.url.slice(0, -MCP_PATH.length));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.#onRequest(req, res));
  }

  /**
   * Subscribes to the end of each legacy session (DELETE, idle expiry, `close()`), with its id;
   * fires once the session is no longer counted in `sessionCount`.
   */
  readonly onSessionEnd: (listener: (sessionId: string) => void) => Disposable;

  /** Legacy sessions open now. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** Stops listening and ends every session and exchange (their backend calls are cancelled). */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    const transports = [
      ...[...this.#sessions.values()].map((s) => s.transport),
      ...this.#stateless,
    ];
    await Promise.all(transports.map((transport) => transport.close()));
    await Promise.allSettled([...this.#serving]);
    this.#server.closeAllConnections();
    await closed;
  }

  // ---- routing ----------------------------------------------------------------------------------

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    // A connection reset while a body or an answer is on its way is the client's business.
    const onStreamError = (error: Error) =>
      this.#endpoint.logger.debug('gateway: an HTTP exchange failed', { error: error.message });
    req.on('error', onStreamError);
    res.on('error', onStreamError);
    res.once('close', () =>
      this.#byStatus.set(res.statusCode, (this.#byStatus.get(res.statusCode) ?? 0) + 1),
    );
    res.setHeader(REPLICA_HEADER, this.#endpoint.replicaId);
    const path = pathOf(req.url);
    // Before every check: a load balancer's probe carries no token, and learns only up or down.
    if (path === HEALTH_PATH) return this.#health(req, res);
    if (this.#closing !== undefined)
      return replyError(res, 503, 'the gateway is closing', { headers: { connection: 'close' } });
    // The OAuth callback is opened by a browser, without the bearer token: the flow's single-use
    // `state` binds it to its login. The Host check still applies.
    const callback = path === OAUTH_CALLBACK_PATH && this.#endpoint.logins !== undefined;
    const refusal = this.#guard.check(req, { token: !callback });
    if (refusal !== undefined)
      return replyError(res, refusal.status, refusal.message, {
        ...(refusal.headers === undefined ? {} : { headers: refusal.headers }),
      });
    if (callback) return void this.#oauthCallback(req, res, this.#endpoint.logins!);
    if (path === METRICS_PATH) return this.#metrics(req, res);
    const asked = this.#viewOf(path, req);
    if (asked === null) return replyError(res, 404, 'Not found');
    const principal = this.#guard.principalOf(req);
    const bound = principal === undefined ? undefined : this.#boundViews.get(principal);
    if (bound !== undefined && asked !== undefined && asked !== bound)
      return replyError(res, 403, 'Forbidden: this token is for another view');
    const view = bound ?? asked;
    if (view !== undefined && !this.#offers(view))
      return replyError(res, 404, `no view is named '${view}' here`);
    const route: Route = { view, principal };
    switch (req.method ?? '') {
      case 'POST':
        return void this.#post(req, res, route).catch((error: unknown) => {
          this.#endpoint.logger.warn('gateway: an HTTP request failed', {
            error: toMcpHostError(error).message,
          });
          replyError(res, 500, 'internal error');
        });
      case 'GET':
        return this.#get(req, res, route);
      case 'DELETE':
        return this.#delete(req, res, route);
      default:
        return replyError(res, 405, 'Method not allowed', {
          headers: { allow: 'GET, POST, DELETE' },
        });
    }
  }

  /** The view a path (`/mcp/<view>`) or the header selects; undefined: the default; null: no MCP path. */
  #viewOf(path: string, req: IncomingMessage): string | undefined | null {
    let fromPath: string | undefined;
    if (path === MCP_PATH || path === `${MCP_PATH}/`) fromPath = undefined;
    else if (path.startsWith(`${MCP_PATH}/`) && !path.slice(MCP_PATH.length + 1).includes('/'))
      try {
        fromPath = decodeURIComponent(path.slice(MCP_PATH.length + 1));
      } catch {
        return null;
      }
    else return null;
    const header = req.headers[VIEW_HEADER];
    return fromPath ?? (typeof header === 'string' && header !== '' ? header : undefined);
  }

  #offers(view: string): boolean {
    const offered = this.#options.views;
    return (offered === undefined || offered.includes(view)) && this.#endpoint.hasView(view);
  }

  /** The browser's return from an upstream login: finishes it, and says how it went (plain text). */
  async #oauthCallback(
    req: IncomingMessage,
    res: ServerResponse,
    logins: UpstreamLogins,
  ): Promise<void> {
    if (req.method !== 'GET')
      return replyError(res, 405, 'Method not allowed', { headers: { allow: 'GET' } });
    const answer = await logins.complete(new URL(req.url ?? '/', this.url));
    if (answer.status !== 200)
      this.#endpoint.logger.warn(`gateway: an upstream login's callback failed: ${answer.message}`);
    const body = `${answer.message}\n`;
    res.writeHead(answer.status, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
    });
    res.end(body);
  }

  #health(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return replyError(res, 405, 'Method not allowed', { headers: { allow: 'GET, HEAD' } });
    const serving = this.#closing === undefined;
    const body = serving ? 'ok\n' : 'closing\n';
    res.writeHead(serving ? 200 : 503, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      'cache-control': 'no-store',
      ...(serving ? {} : { connection: 'close' }),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  #metrics(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'GET')
      return replyError(res, 405, 'Method not allowed', { headers: { allow: 'GET' } });
    const body = prometheusText(this.#endpoint.metrics(), this.#endpoint.status(), {
      sessions: this.#sessions.size,
      statelessInFlight: this.#stateless.size,
      requestsByStatus: this.#byStatus,
      replica: this.#endpoint.replicaId,
    });
    res.writeHead(200, {
      'content-type': PROMETHEUS_CONTENT_TYPE,
      'content-length': String(Buffer.byteLength(body)),
    });
    res.end(body);
  }

  // ---- POST: messages ---------------------------------------------------------------------------

  async #post(req: IncomingMessage, res: ServerResponse, route: Route): Promise<void> {
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
      return replyError(res, 415, 'Unsupported Media Type: send application/json');
    const accepts = acceptsOf(req.headers.accept);
    if (!accepts.json && !accepts.sse)
      return replyError(res, 406, 'Not Acceptable: accept application/json or text/event-stream');
    const versionRefusal = checkVersionHeader(req);
    const sessionId = headerOf(req, SESSION_ID_HEADER);
    const session = sessionId === undefined ? undefined : this.#sessions.get(sessionId);
    if (sessionId !== undefined && (session === undefined || !sameRoute(session, route)))
      return replyError(res, 404, 'Session not found: initialize a new one');

    const body = await readBody(req, this.#options.maxBodyBytes);
    if (body === 'too-large')
      return replyError(
        res,
        413,
        `Payload Too Large: the body is over ${this.#options.maxBodyBytes} bytes (maxBodyBytes)`,
        { headers: { connection: 'close' } },
      );
    if (body === 'aborted') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return replyError(res, 400, 'Parse error: the body is not JSON', {
        code: HttpJsonRpcCode.ParseError,
      });
    }
    const batch = Array.isArray(parsed);
    if (versionRefusal !== undefined)
      // An unsupported version: -32022 listing the supported ones, for the request's id if any.
      return replyError(res, 400, versionRefusal.message, {
        code: McpErrorCode.UnsupportedProtocolVersion,
        data: { supported: SUPPORTED_VERSIONS, requested: versionRefusal.requested },
        ...(!batch && isJsonRpcRequest(parsed) ? { id: parsed.id } : {}),
      });
    const messages: unknown[] = batch ? (parsed as unknown[]) : [parsed];
    if (messages.length === 0)
      return replyError(res, 400, 'Invalid Request: an empty batch', {
        code: HttpJsonRpcCode.InvalidRequest,
      });
    if (messages.length > this.#options.maxBatchMessages)
      return replyError(
        res,
        400,
        `Invalid Request: a batch of ${messages.length} messages, over ${this.#options.maxBatchMessages} (maxBatchMessages)`,
        { code: HttpJsonRpcCode.InvalidRequest },
      );
    if (!messages.every(isJsonRpcMessage))
      return replyError(res, 400, 'Invalid Request: not a JSON-RPC message', {
        code: HttpJsonRpcCode.InvalidRequest,
      });
    const checked: JsonRpcMessage[] = messages;
    if (!batch && session === undefined) {
      const refusal = checkModernPost(req.headers, checked[0]!, (tool) =>
        this.#endpoint.toolHeaderParams(route.view, tool),
      );
      if (refusal !== undefined)
        return replyError(res, refusal.status, refusal.message, {
          code: refusal.code,
          ...(refusal.data === undefined ? {} : { data: refusal.data }),
          ...(isJsonRpcRequest(checked[0]) ? { id: checked[0].id } : {}),
        });
    }
    // A modern `initialize` opens nothing: the era has no handshake (the session refuses it).
    const initialize = checked.some(
      (message) =>
        isJsonRpcRequest(message) &&
        message.method === McpMethod.Initialize &&
        !claimsModernEra(message),
    );
    if (initialize && (batch || session !== undefined))
      return replyError(
        res,
        400,
        session !== undefined
          ? 'Invalid Request: the session is initialized already'
          : "Invalid Request: 'initialize' must be sent alone",
        { code: HttpJsonRpcCode.InvalidRequest },
      );
    if (session !== undefined) return session.transport.post(checked, batch, accepts, res);
    if (initialize) return this.#openSession(checked, accepts, res, route);
    if (batch)
      return replyError(res, 400, 'Bad Request: a batch needs a session (Mcp-Session-Id)', {
        code: HttpJsonRpcCode.InvalidRequest,
      });
    if (!isJsonRpcRequest(checked[0]))
      // A session-less notification or response belongs to no exchange: nothing to do.
      return replyEmpty(res, 202);
    this.#serveStateless(checked, accepts, res, route);
  }

  #openSession(
    messages: JsonRpcMessage[],
    accepts: PostAccepts,
    res: ServerResponse,
    route: Route,
  ): void {
    if (this.#sessions.size >= this.#options.maxSessions)
      return replyError(
        res,
        503,
        `Service Unavailable: ${this.#sessions.size} sessions are open (maxSessions)`,
        { headers: { 'retry-after': '5' } },
      );
    const sessionId = randomBytes(24).toString('base64url');
    const transport = this.#transport(sessionId);
    this.#sessions.set(sessionId, { transport, ...route });
    transport.onClose(() => {
      this.#sessions.delete(sessionId);
      this.#sessionEnded.fire(sessionId);
    });
    // Posted first: the messages wait in the transport until the gateway's session is open.
    transport.post(messages, false, accepts, res);
    this.#serve(transport, route);
  }

  #serveStateless(
    messages: JsonRpcMessage[],
    accepts: PostAccepts,
    res: ServerResponse,
    route: Route,
  ): void {
    if (this.#stateless.size >= this.#options.maxStatelessRequests)
      return replyError(
        res,
        503,
        `Service Unavailable: ${this.#stateless.size} requests in flight (maxStatelessRequests)`,
        { headers: { 'retry-after': '1' } },
      );
    const transport = this.#transport(undefined, claimsModernEra(messages[0]!));
    this.#stateless.add(transport);
    transport.onClose(() => this.#stateless.delete(transport));
    transport.post(messages, false, accepts, res);
    this.#serve(transport, route);
  }

  #transport(sessionId: string | undefined, modern = false): GatewayHttpTransport {
    return new GatewayHttpTransport({
      ...(sessionId === undefined ? {} : { sessionId }),
      modern,
      idleMs: this.#options.sessionIdleMs,
      maxStreams: this.#options.maxStreamsPerSession,
      maxBufferedBytes: this.#options.maxStreamBufferedBytes,
      replay: {
        maxEvents: this.#options.maxReplayEvents,
        maxBytes: this.#options.maxReplayBytes,
      },
      logger: this.#endpoint.logger,
    });
  }

  #serve(transport: GatewayHttpTransport, { view, principal }: Route): void {
    const serving = this.#endpoint
      .serve(transport, {
        ...(view === undefined ? {} : { view }),
        ...(principal === undefined ? {} : { principal }),
      })
      .catch((error: unknown) => {
        this.#endpoint.logger.debug('gateway: an HTTP connection ended with an error', {
          error: toMcpHostError(error).message,
        });
        return transport.close();
      })
      .finally(() => this.#serving.delete(serving));
    this.#serving.add(serving);
  }

  // ---- GET: the session's stream; DELETE: the end of a session -----------------------------------

  #get(req: IncomingMessage, res: ServerResponse, route: Route): void {
    const session = this.#sessionOf(req, res, route, 'GET');
    if (session === undefined) return;
    if (!acceptsOf(req.headers.accept).sse)
      return replyError(res, 406, 'Not Acceptable: accept text/event-stream');
    session.transport.openStream(res, headerOf(req, 'last-event-id'));
  }

  #delete(req: IncomingMessage, res: ServerResponse, route: Route): void {
    const session = this.#sessionOf(req, res, route, 'DELETE');
    if (session === undefined) return;
    this.#sessions.delete(session.transport.sessionId!);
    void session.transport.close();
    replyEmpty(res, 200);
  }

  /** The session a GET or DELETE names; undefined (answered) when it names none. */
  #sessionOf(
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    method: string,
  ): Session | undefined {
    const versionRefusal = checkVersionHeader(req);
    if (versionRefusal !== undefined) {
      replyError(res, 400, versionRefusal.message, { code: HttpJsonRpcCode.InvalidRequest });
      return undefined;
    }
    const sessionId = headerOf(req, SESSION_ID_HEADER);
    if (sessionId === undefined) {
      replyError(res, 405, `Method not allowed: ${method} needs a session (Mcp-Session-Id)`, {
        headers: { allow: 'POST' },
      });
      return undefined;
    }
    const session = this.#sessions.get(sessionId);
    if (session === undefined || !sameRoute(session, route)) {
      replyError(res, 404, 'Session not found');
      return undefined;
    }
    return session;
  }
}

/**
 * Binds a listener for `endpoint` (what `gateway.listen()` does): checks the options, listens,
 * resolves once listening. `INVALID_ARGUMENT` for bad options or an address that cannot be bound.
 */
export async function listenGateway(
  endpoint: GatewayEndpoint,
  options: GatewayListenOptions = {},
): Promise<GatewayListener> {
  const hostname = options.hostname ?? DEFAULT_GATEWAY_LISTEN_OPTIONS.hostname;
  const port = options.port ?? DEFAULT_GATEWAY_LISTEN_OPTIONS.port;
  if (!Number.isSafeInteger(port) || port < 0 || port > 65_535)
    throw new McpHostError('INVALID_ARGUMENT', `port must be a whole number from 0 to 65535`, {
      details: { port },
    });
  for (const key of [
    'maxBodyBytes',
    'maxBatchMessages',
    'maxSessions',
    'maxStatelessRequests',
    'maxStreamsPerSession',
    'sessionIdleMs',
    'maxStreamBufferedBytes',
    'maxReplayEvents',
    'maxReplayBytes',
  ] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1))
      throw new McpHostError('INVALID_ARGUMENT', `${key} must be a whole number of 1 or more`, {
        details: { [key]: value },
      });
  }
  const auth = options.auth;
  if (auth === 'none' && !isLoopback(hostname))
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `auth 'none' is allowed only on a loopback address, not on ${hostname}`,
      { details: { hostname } },
    );
  if (auth !== undefined && auth !== 'none' && !TOKEN.test(auth.bearerToken))
    throw new McpHostError(
      'INVALID_ARGUMENT',
      'the bearer token must be 16 or more visible ASCII characters',
    );
  const clients = Object.entries(options.clients ?? {});
  if (clients.length > 0 && auth === 'none')
    throw new McpHostError('INVALID_ARGUMENT', "auth 'none' cannot go with named clients");
  const tokens = new Set(auth === undefined || auth === 'none' ? [] : [auth.bearerToken]);
  for (const [name, client] of clients) {
    if (!CLIENT_NAME.test(name))
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `a gateway client's name is 1 to 64 letters, digits, '_', '.' or '-', not '${name.slice(0, 64)}'`,
      );
    if (typeof client.bearerToken !== 'string' || !TOKEN.test(client.bearerToken))
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `the bearer token of the gateway client '${name}' must be 16 or more visible ASCII characters`,
      );
    if (tokens.has(client.bearerToken))
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `the gateway client '${name}' has the token of another client: each needs its own`,
      );
    tokens.add(client.bearerToken);
    if (client.view !== undefined && !endpoint.hasView(client.view))
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `the gateway client '${name}' is bound to the view '${client.view}', which the host does not have`,
        { details: { client: name, view: client.view } },
      );
  }
  const bearerToken =
    auth === 'none'
      ? undefined
      : auth === undefined
        ? clients.length > 0
          ? undefined
          : randomBytes(32).toString('base64url')
        : auth.bearerToken;
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => {
      server.off('listening', onListening);
      reject(
        new McpHostError(
          'INVALID_ARGUMENT',
          `the gateway cannot listen on ${hostname}:${port}: ${error.message}`,
          { cause: error, details: { hostname, port } },
        ),
      );
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, hostname);
  });
  return new GatewayListener(server, endpoint, { ...options, hostname }, bearerToken);
}

/** A bearer token: 16 or more visible ASCII characters. */
const TOKEN = /^[\x21-\x7e]{16,}$/;
/** A named client's name. */
const CLIENT_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

function isLoopback(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return name === 'localhost' || name === '::1' || /^127(\.\d{1,3}){3}$/.test(name);
}

function pathOf(url: string | undefined): string {
  const path = (url ?? '/').split('?', 1)[0]!;
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function acceptsOf(accept: string | undefined): PostAccepts {
  if (accept === undefined || accept.trim() === '') return { json: true, sse: true };
  const types = accept.split(',').map((part) => part.split(';', 1)[0]!.trim().toLowerCase());
  const any = types.includes('*/*');
  return {
    json: any || types.includes('application/json') || types.includes('application/*'),
    sse: any || types.includes('text/event-stream') || types.includes('text/*'),
  };
}

/** A refusal for an unsupported `MCP-Protocol-Version` header (absent is fine: 2025-03-26). */
function checkVersionHeader(
  req: IncomingMessage,
): { message: string; requested: string } | undefined {
  const version = headerOf(req, 'mcp-protocol-version')?.trim();
  if (version === undefined || eraOf(version) !== undefined) return undefined;
  return {
    message: `Bad Request: unsupported MCP-Protocol-Version (supported: ${SUPPORTED_VERSIONS.join(', ')})`,
    requested: version.slice(0, 64),
  };
}

/** The whole body, or `too-large` past `maxBytes` (read no further), or `aborted`. */
function readBody(
  req: IncomingMessage,
  maxBytes: number,
): Promise<Buffer | 'too-large' | 'aborted'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve('too-large');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const done = (result: Buffer | 'too-large' | 'aborted') => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAborted);
      req.off('close', onAborted);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) return done('too-large');
      chunks.push(chunk);
    };
    const onEnd = () => done(Buffer.concat(chunks, total));
    const onAborted = () => done('aborted');
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onAborted);
    req.once('close', onAborted);
  });
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
}
