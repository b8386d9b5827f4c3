/**
 * `mcp-host api serve [--socket path | --port n] [--allow-stdio-registration] [--reflection]`: the gRPC
 * management API (docs/grpc.md) over a host of the config's servers, until SIGINT/SIGTERM. Where
 * it listens comes from the flags, else the config's `api:` section, else the Unix socket
 * `<state dir>/api.sock` (mode 0600). On a port (loopback only) every RPC but health needs the
 * bearer token kept in the token file (`api.tokenFile`, by default `<state dir>/api-token`; made
 * once, mode 0600). The first stderr lines say where it listens and where the token is. The
 * servers are supervised as in `watch`; each connects within `--timeout` before the API serves.
 */
import { resolveApiSettings, type ApiSettings } from '../../config/api-settings.js';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { addSecret } from '../../errors/redact.js';
import { loadTokenFile } from '../../state/token-file.js';
import { createApiServer } from '../../grpc/api-server.js';
import { ExitCode, usageError } from '../exit-codes.js';
import type { CliRuntime } from '../runtime.js';
import { connectAllServers } from './connect-all.js';

/** Options of `mcp-host api serve`. */
export interface ApiServeOptions {
  /** Listen on this Unix socket. */
  socket?: string;
  /** Listen on this loopback port (0: a free one), with the token. */
  port?: number;
  /** Let RegisterMcpServer add stdio servers. */
  allowStdioRegistration?: boolean;
  /** Serve gRPC server reflection (behind the token). */
  reflection?: boolean;
}

export async function serveApi(cli: CliRuntime, options: ApiServeOptions): Promise<ExitCode> {
  const settings = await apiSettings(cli, options);
  const logger = cli.output.logger();
  const { host } = await cli.openHost({ start: false, supervise: true, logger });
  await connectAllServers(host, logger, 'api');
  const token =
    settings.port === undefined ? undefined : await loadTokenFile(settings.tokenFile, 'API');
  if (token !== undefined) {
    const secret = addSecret(token.token);
    cli.onClose(() => Promise.resolve(secret.dispose()));
  }
  const api = createApiServer({
    host,
    ...(token === undefined ? {} : { token: token.token }),
    allowStdioRegistration: settings.allowStdioRegistration,
    reflection: settings.reflection,
    logger,
  });
  const closed = new Promise<void>((resolve) =>
    cli.onClose(async () => {
      await api.close();
      resolve();
    }),
  );
  const addresses: string[] = [];
  if (settings.socket !== undefined)
    addresses.push((await api.listen({ socket: settings.socket })).address);
  if (settings.port !== undefined)
    addresses.push((await api.listen({ port: settings.port, host: settings.host })).address);
  if (settings.allowStdioRegistration)
    cli.output.warn(
      'stdio registration is allowed: API clients can run commands on this machine as this user',
    );
  // Other tools read this line to find the API: keep it exactly so, in one write with the next.
  const where =
    token === undefined
      ? 'mcp-host: no token: the socket is mode 0600 (this user only)'
      : `mcp-host: bearer token ${token.created ? 'made and ' : ''}kept in ${token.path} (send it as metadata 'authorization: Bearer <token>')`;
  process.stderr.write(`mcp-host: api listening on ${addresses.join(' and ')}\n${where}\n`);
  if (token?.exposed === true)
    cli.output.warn(`the API token file ${token.path} can be read by other users: chmod 600 it`);
  const ready = host.status().filter((s) => s.state === 'ready' || s.state === 'degraded');
  cli.output.notice(`mcp-host api: serving ${ready.length} server(s); Ctrl-C to stop`);
  await closed;
  return ExitCode.ok;
}

/** The API's settings: the config's `api:` section under the flags; a bad flag is a usage error. */
async function apiSettings(cli: CliRuntime, options: ApiServeOptions): Promise<ApiSettings> {
  if (options.socket !== undefined && options.port !== undefined)
    throw usageError('--socket and --port: give one (the config can name both)');
  const { config } = await cli.loadConfig();
  try {
    return resolveApiSettings(config, {
      stateDir: cli.stateDir(),
      overrides: {
        ...(options.socket === undefined ? {} : { socket: options.socket }),
        ...(options.port === undefined ? {} : { port: options.port }),
        ...(options.allowStdioRegistration === true ? { allowStdioRegistration: true } : {}),
        ...(options.reflection === true ? { reflection: true } : {}),
      },
    });
  } catch (error) {
    if (error instanceof McpHostError && error.code === 'INVALID_ARGUMENT')
      throw usageError(error.message);
    throw error;
  }
}
