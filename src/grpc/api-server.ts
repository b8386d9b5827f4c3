/**
 * The gRPC management API over one McpHost (`mcp_host.v1.McpHostService`, proto/mcp_host/v1),
 * beside the standard health service. Listens on a Unix socket (made mode 0600) or on a loopback
 * port; with a token, every RPC but health needs `authorization: Bearer <token>` (compared in
 * constant time), and a TCP port is refused without one. Server reflection only when asked for
 * (`reflection: true`). See docs/grpc.md.
 */
import { timingSafeEqual } from 'node:crypto';
import { chmod, lstat, unlink } from 'node:fs/promises';
import { connect } from 'node:net';
import { resolve as resolvePath } from 'node:path';
import { Server, ServerCredentials, type Metadata } from '@grpc/grpc-js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { silentLogger, type Logger } from '../internal/logger.js';
import { bearerDigest, tokenDigest } from '../internal/bearer-token.js';
import type { McpHost } from '../host/mcp-host.js';
import { apiServiceDefinitions } from './api-proto.js';
import { createApiService, type ApiAuditRecord } from './api-service.js';
import { HealthState } from './health-service.js';
import { createReflectionService, v1alphaReflection } from './reflection-service.js';

/** How the API serves a host. */
export interface ApiServerOptions {
  /** The host it manages; the API never closes it. */
  host: McpHost;
  /**
   * The bearer token every RPC but health must carry (`authorization: Bearer <token>`): 16 or
   * more visible ASCII characters. Required to listen on a port; on a Unix socket, optional
   * (the socket's mode 0600 already limits it to this user).
   */
  token?: string;
  /**
   * Allow RegisterMcpServer to add stdio servers: that runs a command on this machine, as this
   * user. Default false (PERMISSION_DENIED). Asked for or not, each such request is audited.
   */
  allowStdioRegistration?: boolean;
  /**
   * Serve gRPC server reflection (`grpc.reflection.v1.ServerReflection` and `v1alpha`), so that
   * grpcurl and similar tools can list and describe the API without its protos. Behind the
   * token like every RPC but health. Default false (UNIMPLEMENTED).
   */
  reflection?: boolean;
  /** Where the API's log lines go (audit records at `info`, refusals at `warn`). */
  logger?: Logger;
  /** Called with each registration's audit record (allowed or refused); must not throw. */
  onAudit?: (record: ApiAuditRecord) => void;
  /** The largest request message taken (bytes; default 4 MiB). */
  maxReceiveMessageBytes?: number;
  /** The largest response message sent (bytes; default 16 MiB): a larger tool result fails. */
  maxSendMessageBytes?: number;
  /** Events a WatchEvents client may fall behind before it is cut off (default 256). */
  maxEventBuffer?: number;
  /** The longest a CallTool may run, whatever its deadline (ms; default 10 minutes). */
  maxCallTimeoutMs?: number;
  /** The longest drain UnregisterMcpServer may ask for (ms; default 60 s). */
  maxDrainTimeoutMs?: number;
  /** How long `close()` lets RPCs in flight finish before it cuts them (ms; default 5 s). */
  closeTimeoutMs?: number;
}

/** The defaults of `ApiServerOptions`. */
export const DEFAULT_API_SERVER_OPTIONS = Object.freeze({
  allowStdioRegistration: false,
  reflection: false,
  maxReceiveMessageBytes: 4 * 1024 * 1024,
  maxSendMessageBytes: 16 * 1024 * 1024,
  maxEventBuffer: 256,
  maxCallTimeoutMs: 10 * 60_000,
  maxDrainTimeoutMs: 60_000,
  closeTimeoutMs: 5_000,
});

/** Where to listen: a Unix socket path, or a loopback port (0 for any free one). */
export type ApiListenOptions = { socket: string } | { port: number; host?: string };

/** An address the API listens on: `unix:/path` or `127.0.0.1:<port>` (what a client dials). */
export interface ApiAddress {
  address: string;
  /** The port, for a TCP listener. */
  port?: number;
  /** The socket's path, for a Unix socket. */
  socket?: string;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const TOKEN_PATTERN = /^[\x21-\x7e]{16,}$/;

/** The gRPC management API of one host; `listen` on one or more addresses, then `close`. */
export class ApiServer implements AsyncDisposable {
  readonly #server: Server;
  readonly #health = new HealthState();
  readonly #watchers = new Set<{ end(): void }>();
  readonly #tokenDigest: Buffer | undefined;
  readonly #closeTimeoutMs: number;
  readonly #sockets: string[] = [];
  readonly #addresses: ApiAddress[] = [];
  #closing: Promise<void> | undefined;

  constructor(options: ApiServerOptions) {
    const settings = { ...DEFAULT_API_SERVER_OPTIONS, ...definedOnly(options) };
    if (options.token !== undefined && !TOKEN_PATTERN.test(options.token))
      throw new McpHostError(
        'INVALID_ARGUMENT',
        'the API token must be 16 or more visible ASCII characters',
      );
    this.#tokenDigest = options.token === undefined ? undefined : tokenDigest(options.token);
    this.#closeTimeoutMs = settings.closeTimeoutMs;
    this.#server = new Server({
      'grpc.max_receive_message_length': settings.maxReceiveMessageBytes,
      'grpc.max_send_message_length': settings.maxSendMessageBytes,
    });
    const definitions = apiServiceDefinitions();
    this.#server.addService(
      definitions.api,
      createApiService({
        host: options.host,
        logger: options.logger ?? silentLogger,
        allowStdioRegistration: settings.allowStdioRegistration,
        maxEventBuffer: settings.maxEventBuffer,
        maxCallTimeoutMs: settings.maxCallTimeoutMs,
        maxDrainTimeoutMs: settings.maxDrainTimeoutMs,
        authorized: (metadata) => this.#authorized(metadata),
        onAudit: options.onAudit,
        watchers: this.#watchers,
      }),
    );
    this.#server.addService(definitions.health, this.#health.service);
    if (settings.reflection) {
      const reflection = createReflectionService((metadata) => this.#authorized(metadata));
      this.#server.addService(definitions.reflection, reflection);
      this.#server.addService(v1alphaReflection(definitions.reflection), reflection);
    }
  }

  /** The addresses it listens on, in the order `listen` was called. */
  get addresses(): readonly ApiAddress[] {
    return this.#addresses;
  }

  /**
   * Listens on a Unix socket (`{ socket }`: made mode 0600; a stale socket file nobody listens on
   * is replaced, a live one is refused) or on a loopback port (`{ port, host? }`: 127.0.0.1 by
   * default; needs the `token` option). May be called more than once to serve several addresses.
   */
  async listen(options: ApiListenOptions): Promise<ApiAddress> {
    if (this.#closing !== undefined)
      throw new McpHostError('CONNECTION_CLOSED', 'the API server is closed');
    const address =
      'socket' in options
        ? await this.#listenSocket(options.socket)
        : await this.#listenPort(options);
    this.#addresses.push(address);
    return address;
  }

  async #listenSocket(path: string): Promise<ApiAddress> {
    const socket = resolvePath(path);
    await removeStaleSocket(socket);
    await this.#bind(`unix:${socket}`);
    this.#sockets.push(socket);
    await chmod(socket, 0o600);
    return { address: `unix:${socket}`, socket };
  }

  async #listenPort(options: { port: number; host?: string }): Promise<ApiAddress> {
    const host = options.host ?? '127.0.0.1';
    if (!LOOPBACK.has(host))
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `the API listens on loopback only (127.0.0.1, ::1, localhost), not '${host}'`,
      );
    if (this.#tokenDigest === undefined)
      throw new McpHostError(
        'INVALID_ARGUMENT',
        'listening on a TCP port needs a token (the `token` option); a Unix socket does not',
      );
    const target = host.includes(':') ? `[${host}]` : host;
    const port = await this.#bind(`${target}:${options.port}`);
    return { address: `${target}:${port}`, port };
  }

  #bind(target: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#server.bindAsync(target, ServerCredentials.createInsecure(), (error, port) => {
        if (error === null) resolve(port);
        else
          reject(
            new McpHostError(
              'CONNECT_FAILED',
              `the API cannot listen on ${target}: ${error.message}`,
              {
                cause: error,
              },
            ),
          );
      });
    });
  }

  #authorized(metadata: Metadata): boolean {
    if (this.#tokenDigest === undefined) return true;
    const values = metadata.get('authorization');
    let ok = false;
    for (const value of values) {
      if (typeof value !== 'string') continue;
      // Digests of equal length, compared in constant time whatever was sent.
      const sent = bearerDigest(value);
      ok = (sent !== undefined && timingSafeEqual(sent, this.#tokenDigest)) || ok;
    }
    return ok;
  }

  /**
   * Stops serving: health says NOT_SERVING, WatchEvents streams end, RPCs in flight get
   * `closeTimeoutMs` to finish and are then cut; the socket files are removed. The host is left
   * as it is (who made it closes it). Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #close(): Promise<void> {
    this.#health.shutDown();
    for (const watcher of [...this.#watchers]) watcher.end();
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        this.#server.forceShutdown();
        resolve();
      }, this.#closeTimeoutMs);
      force.unref();
      this.#server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
    await Promise.all(
      this.#sockets.map((socket) =>
        unlink(socket).catch((error: unknown) => {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }),
      ),
    );
  }
}

/** Makes the gRPC management API of `options.host` (it listens once `listen` is called). */
export function createApiServer(options: ApiServerOptions): ApiServer {
  return new ApiServer(options);
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
}

/** Removes a socket file nobody listens on; refuses a live socket or a file that is not one. */
async function removeStaleSocket(path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = (await lstat(path)).isSocket();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new McpHostError('INVALID_ARGUMENT', `cannot use the API socket path ${path}`, {
      cause: error,
    });
  }
  if (!isSocket)
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `the API socket path ${path} exists and is not a socket`,
    );
  const live = await new Promise<boolean>((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (live)
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `the API socket ${path} is in use by another process`,
    );
  await unlink(path);
}
