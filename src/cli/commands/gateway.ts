/**
 * `mcp-host gateway serve [--view <name>]`: the config's servers (or one view's) as one MCP server
 * on this process's stdin and stdout, until the client goes away (stdin ends) or SIGINT/SIGTERM.
 * Nothing but protocol goes to stdout: notices, the servers' stderr and the host's log lines go to
 * stderr. The servers are supervised as in `watch` (a crashed one is restarted with the config's
 * backoff, its tools withdrawn and restored); each connects within `--timeout` before the gateway
 * answers, so its first `tools/list` lists what came up.
 */
import type { ServerInputHandlers } from '../../client/client-options.js';
import { createGateway } from '../../gateway/gateway.js';
import { createServerInputBridge } from '../../gateway/server-input-bridge.js';
import type { LogFields, Logger } from '../../internal/logger.js';
import { StdioServerTransport } from '../../transport/stdio/stdio-server-transport.js';
import { ExitCode } from '../exit-codes.js';
import type { Output } from '../output.js';
import type { CliRuntime } from '../runtime.js';
import { viewServers } from './tools.js';

/** Options of `mcp-host gateway serve`. */
export interface GatewayServeOptions {
  /** Serve only this view of the config (`views:`). */
  view?: string;
}

export async function serve(cli: CliRuntime, options: GatewayServeOptions): Promise<ExitCode> {
  const logger = stderrLogger(cli.output);
  const wanted = await viewServers(cli, options.view, undefined);
  // What the servers ask during a call goes to the gateway's client whose call it is; the
  // config's roots (read when asked, once the config is resolved) answer a roots/list no client
  // takes.
  const hostAnswers: ServerInputHandlers = {};
  const bridge = createServerInputBridge({ handlers: hostAnswers });
  const opened = await cli.openHost({
    ...(wanted === undefined ? {} : { servers: wanted }),
    start: false,
    supervise: true,
    handlers: bridge.handlers,
    logger,
  });
  const roots = opened.resolved.host.roots;
  if (roots !== undefined) hostAnswers.roots = () => roots.map((root) => ({ ...root }));
  const { host } = opened;
  cli.reportUnresolved(opened);
  await Promise.allSettled(
    host
      .status()
      .filter((status) => status.state !== 'disabled')
      .map((status) => host.connectServer(status.name)),
  );
  for (const status of host.status())
    if (status.state !== 'ready' && status.state !== 'degraded' && status.state !== 'disabled')
      logger.warn(
        `gateway: server '${status.name}' is ${status.state}${status.lastError === undefined ? '' : ` (${status.lastError.code}: ${status.lastError.message})`}`,
      );
  const gateway = createGateway({
    host,
    bridge,
    ...(options.view === undefined ? {} : { view: options.view }),
    logger,
  });
  cli.onClose(() => gateway.close());
  const ready = host.status().filter((s) => s.state === 'ready' || s.state === 'degraded');
  cli.output.notice(
    `mcp-host gateway: serving ${ready.length} server(s) on stdio${options.view === undefined ? '' : ` (view '${options.view}')`}`,
  );
  await gateway.serve(new StdioServerTransport({ logger, peerName: 'gateway client' }));
  return ExitCode.ok;
}

/**
 * Log lines on stderr, one per line: warnings and errors always, the servers' stderr and other
 * information unless `--quiet`, debug lines with `--verbose`.
 */
function stderrLogger(output: Output): Logger {
  const line = (level: string, message: string, fields?: LogFields) => {
    const extra =
      fields === undefined || Object.keys(fields).length === 0 ? '' : ` ${JSON.stringify(fields)}`;
    process.stderr.write(`mcp-host ${level}: ${message}${extra}\n`);
  };
  return {
    debug: (message, fields) => {
      if (output.verbose) line('debug', message, fields);
    },
    info: (message, fields) => {
      if (!output.quiet) line('info', message, fields);
    },
    warn: (message, fields) => line('warn', message, fields),
    error: (message, fields) => line('error', message, fields),
  };
}
