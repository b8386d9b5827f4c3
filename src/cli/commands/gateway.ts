/**
 * `mcp-host gateway serve [--view <name>] [--transport stdio|http] [--port n] [--host addr]
 * [--no-auth]`: the config's servers (or one view's) as one MCP server, on this process's stdin
 * and stdout until the client goes away (stdin ends) or SIGINT/SIGTERM, or over Streamable HTTP
 * at `/mcp` until SIGINT/SIGTERM. Nothing but protocol goes to stdout: notices, the servers'
 * stderr and the host's log lines go to stderr. The servers are supervised as in `watch` (a
 * crashed one is restarted with the config's backoff, its tools withdrawn and restored); each
 * connects within `--timeout` before the gateway answers, so its first `tools/list` lists what
 * came up. The config's `gateway:` section (`resolveGatewaySettings`) gives the address, port,
 * token file, views offered and bounds; the flags win over it. Over HTTP the bearer token is kept
 * in its token file (by default in the state directory; made once, mode 0600). `--replica-id`
 * (or `MCP_HOST_REPLICA_ID`; default `<hostname>-<pid>`) names this replica of a fleet; the config's
 * `state:` store (`openHost`) keeps the pins, eras and tokens the fleet shares.
 */
import type { ServerInputHandlers } from '../../client/client-options.js';
import { resolveGatewaySettings, type GatewaySettings } from '../../config/gateway-settings.js';
import type { McpConfig } from '../../config/model.js';
import { resolveConfig } from '../../config/resolve-config.js';
import type { PerClientOptions } from '../../gateway/per-client-hosts.js';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { addSecret } from '../../errors/redact.js';
import { createGateway, type Gateway } from '../../gateway/gateway.js';
import type { GatewayClientOptions } from '../../gateway/http/gateway-listener.js';
import { defaultReplicaId, toReplicaId } from '../../gateway/http/replica-id.js';
import type { Telemetry } from '../../internal/telemetry.js';
import { createServerInputBridge } from '../../gateway/server-input-bridge.js';
import { StdioServerTransport } from '../../transport/stdio/stdio-server-transport.js';
import { ExitCode, usageError } from '../exit-codes.js';
import {
  gatewayClientStatePath,
  loadGatewayToken,
  readGatewayClientToken,
} from '../gateway-token.js';
import type { CliRuntime } from '../runtime.js';
import { connectAllServers } from './connect-all.js';
import { viewServers } from './tools.js';

/** Options of `mcp-host gateway serve`. */
export interface GatewayServeOptions {
  /** Serve only this view of the config (`views:`). */
  view?: string;
  /** How clients reach the gateway (default `stdio`, or `http` when the config's `gateway:` names a port). */
  transport?: 'stdio' | 'http';
  /** HTTP: the port (default 0: a free one). */
  port?: number;
  /** HTTP: the address to bind (default 127.0.0.1). */
  host?: string;
  /** HTTP: false with `--no-auth` (loopback addresses only). */
  auth?: boolean;
  /** Which replica of a fleet this is (`--replica-id`, `MCP_HOST_REPLICA_ID`). */
  replicaId?: string;
  /** Traces and metrics to the process's OpenTelemetry SDK (`--otel`). */
  otel?: boolean;
}

export async function serve(cli: CliRuntime, options: GatewayServeOptions): Promise<ExitCode> {
  const settings = await gatewaySettings(cli, options);
  const http = settings.transport === 'http';
  const replicaId = checkedReplicaId(options.replicaId) ?? defaultReplicaId();
  const telemetry = options.otel === true ? await loadTelemetry(replicaId) : undefined;
  if (!http && (options.port !== undefined || options.host !== undefined || options.auth === false))
    throw usageError('--port, --host and --no-auth go with --transport http');
  const logger = cli.output.logger();
  const viewed = await viewServers(cli, options.view, undefined);
  // The per-client servers (gateway.perClient) are not the shared host's: each named client
  // reaches them through a host of its own, with its own token store.
  const { config } = await cli.loadConfig();
  const ownServers = new Set(settings.perClient);
  const wanted =
    ownServers.size === 0
      ? viewed
      : (viewed ?? config.servers.map((server) => server.name)).filter(
          (name) => !ownServers.has(name),
        );
  // What the servers ask during a call goes to the gateway's client whose call it is; the
  // config's roots (read when asked, once the config is resolved) answer a roots/list no client
  // takes.
  const hostAnswers: ServerInputHandlers = {};
  const bridge = createServerInputBridge({ handlers: hostAnswers });
  const opened = await cli.openHost({
    ...(wanted === undefined ? {} : { servers: wanted }),
    // Every shared server, short of the per-client ones: one the config keeps from starting is
    // reported and left out, as when every server is served (a view's must all start).
    ...(viewed === undefined ? { unresolved: 'report' as const } : {}),
    start: false,
    supervise: true,
    handlers: bridge.handlers,
    logger,
    ...(telemetry === undefined ? {} : { telemetry }),
  });
  const roots = opened.resolved.host.roots;
  if (roots !== undefined) hostAnswers.roots = () => roots.map((root) => ({ ...root }));
  const { host } = opened;
  cli.reportUnresolved(opened);
  await connectAllServers(host, logger, 'gateway');
  const perClient = await perClientOptions(cli, settings, config, viewed);
  const gateway = createGateway({
    host,
    bridge,
    ...(perClient === undefined ? {} : { perClient }),
    ...(options.view === undefined ? {} : { view: options.view }),
    replicaId,
    ...(telemetry === undefined ? {} : { telemetry }),
    logger,
  });
  cli.onClose(() => gateway.close());
  const ready = host.status().filter((s) => s.state === 'ready' || s.state === 'degraded');
  const what = `${ready.length} server(s)${options.view === undefined ? '' : ` (view '${options.view}')`}`;
  if (http) return serveHttp(cli, gateway, settings, options.view, what);
  cli.output.notice(`mcp-host gateway: serving ${what} on stdio`);
  await gateway.serve(new StdioServerTransport({ logger, peerName: 'gateway client' }));
  return ExitCode.ok;
}

/** Listens over HTTP, says where (and where the token is) on stderr, serves until the run closes. */
async function serveHttp(
  cli: CliRuntime,
  gateway: Gateway,
  settings: GatewaySettings,
  view: string | undefined,
  what: string,
): Promise<ExitCode> {
  const token = settings.auth ? await loadGatewayToken(settings.tokenFile) : undefined;
  if (token !== undefined) {
    const secret = addSecret(token.token);
    cli.onClose(() => Promise.resolve(secret.dispose()));
  }
  const clients = await clientTokens(cli, settings);
  const listener = await gateway.listen({
    port: settings.port ?? 0,
    hostname: settings.host,
    auth: token === undefined ? 'none' : { bearerToken: token.token },
    ...(clients === undefined ? {} : { clients }),
    // With --view, the config's other views' servers are not started: only the view is served.
    ...(view !== undefined
      ? { views: [] }
      : settings.views === undefined
        ? {}
        : { views: settings.views }),
    allowedOrigins: settings.allowedOrigins,
    allowedHosts: settings.allowedHosts,
    ...(settings.maxSessions === undefined ? {} : { maxSessions: settings.maxSessions }),
    ...(settings.maxBodyBytes === undefined ? {} : { maxBodyBytes: settings.maxBodyBytes }),
    ...(settings.sessionIdleMs === undefined ? {} : { sessionIdleMs: settings.sessionIdleMs }),
  });
  const closed = new Promise<void>((resolve) =>
    cli.onClose(async () => {
      await listener.close();
      resolve();
    }),
  );
  // Other tools read the first line to find the gateway: keep it exactly so. One write, so a
  // reader that sees it sees where the token is too.
  const where =
    token === undefined
      ? 'mcp-host: authentication is off (--no-auth): any local process can connect'
      : `mcp-host: bearer token ${token.created ? 'made and ' : ''}kept in ${token.path} (send it as 'Authorization: Bearer <token>')`;
  process.stderr.write(`mcp-host: gateway listening on ${listener.url}\n${where}\n`);
  if (token?.exposed === true)
    cli.output.warn(
      `the gateway token file ${token.path} can be read by other users: chmod 600 it`,
    );
  cli.output.notice(`mcp-host gateway: serving ${what} over HTTP; Ctrl-C to stop`);
  await closed;
  return ExitCode.ok;
}

/** The replica id given, checked before anything starts: a bad one is a usage error. */
function checkedReplicaId(given: string | undefined): string | undefined {
  if (given === undefined) return undefined;
  try {
    return toReplicaId(given);
  } catch (error) {
    throw usageError(`--replica-id: ${(error as Error).message}`);
  }
}

/**
 * `createGateway`'s `perClient`: the config's per-client servers (of the view, with `--view`),
 * resolved, each client's logins in a `FileTokenStore` of its own (`gatewayClientStatePath`,
 * where `auth login <server> --as <client>` writes), closed with the run.
 */
async function perClientOptions(
  cli: CliRuntime,
  settings: GatewaySettings,
  config: McpConfig,
  viewed: readonly string[] | undefined,
): Promise<PerClientOptions | undefined> {
  const names = settings.perClient.filter((name) => viewed === undefined || viewed.includes(name));
  if (names.length === 0) return undefined;
  const resolved = await resolveConfig(
    { ...config, servers: config.servers.filter((server) => names.includes(server.name)) },
    { env: cli.env, inputs: cli.inputs() },
  );
  cli.onClose(() => Promise.resolve(resolved.dispose()));
  for (const [, error] of resolved.errors) throw error;
  const { FileTokenStore } = await import('../../auth/file-token-store.js');
  const stores = new Map<string, InstanceType<typeof FileTokenStore>>();
  cli.onClose(async () => {
    await Promise.all([...stores.values()].map((store) => store.close()));
  });
  // Each client's host has the config's views, naming, roots and bounds, as the shared host, and
  // its pins in the configured store (`state:`); each client's logins stay in its own file.
  const { servers, ...hostOptions } = resolved.host;
  const stateStore = (await cli.stateStore())?.store;
  return {
    servers,
    host: stateStore === undefined ? hostOptions : { ...hostOptions, stateStore },
    tokenStore(principal) {
      let store = stores.get(principal);
      if (store === undefined) {
        store = new FileTokenStore({ path: gatewayClientStatePath(principal, cli.env) });
        stores.set(principal, store);
      }
      return store;
    },
  };
}

/**
 * The named clients' tokens (`gateway.clients`), read from their files now and masked in every
 * later log line and error; a file other users can read is warned about, naming file and key.
 */
async function clientTokens(
  cli: CliRuntime,
  settings: GatewaySettings,
): Promise<Record<string, GatewayClientOptions> | undefined> {
  if (settings.clients.length === 0) return undefined;
  const clients: Record<string, GatewayClientOptions> = {};
  for (const client of settings.clients) {
    const key = `gateway.clients.${client.name}.tokenFile`;
    const { token, exposed } = await readGatewayClientToken(client.tokenFile, key);
    const secret = addSecret(token);
    cli.onClose(() => Promise.resolve(secret.dispose()));
    if (exposed)
      cli.output.warn(
        `${key}: the token file ${client.tokenFile} can be read by other users: chmod 600 it`,
      );
    clients[client.name] = {
      bearerToken: token,
      ...(client.view === undefined ? {} : { view: client.view }),
    };
  }
  return clients;
}

/**
 * The gateway's settings: the config's `gateway:` section under the flags. A port in the config
 * means HTTP unless `--transport` says otherwise (`--port` goes with `--transport http`); a flag the settings refuse (a
 * non-loopback `--host` with `--no-auth`) is a usage error, a config they refuse its config error.
 */
async function gatewaySettings(
  cli: CliRuntime,
  options: GatewayServeOptions,
): Promise<GatewaySettings> {
  const { config } = await cli.loadConfig();
  try {
    return resolveGatewaySettings(config, {
      env: cli.env,
      overrides: {
        // Over HTTP when asked, or when the config names a port; `--port` alone does not.
        transport: options.transport ?? (config.gateway?.port === undefined ? 'stdio' : 'http'),
        ...(options.port === undefined ? {} : { port: options.port }),
        ...(options.host === undefined ? {} : { host: options.host }),
        ...(options.auth === false ? { auth: false } : {}),
      },
    });
  } catch (error) {
    if (error instanceof McpHostError && error.code === 'INVALID_ARGUMENT')
      throw usageError(error.message);
    throw error;
  }
}

/**
 * `--otel`: the OpenTelemetry hooks on the providers this process registered (an SDK set up by
 * `node --require` or `--import`, e.g. `@opentelemetry/auto-instrumentations-node/register`). The entry and
 * `@opentelemetry/api` load only here; without the package, a usage error that says so.
 */
async function loadTelemetry(replicaId: string): Promise<Telemetry> {
  try {
    const { openTelemetry } = await import('../../otel/index.js');
    return openTelemetry({ replicaId });
  } catch (error) {
    throw usageError(
      `--otel needs the @opentelemetry/api package beside mcp-host, and an OpenTelemetry SDK registered in this process (${(error as Error).message.split('\n')[0]})`,
    );
  }
}
