/**
 * `mcp-host resources [server]`: the resources of every server (or one); `mcp-host read <uri>`,
 * routed to the server that lists the URI, or the one named by `--server` (a URI made from a
 * resource template is listed by none: the error says to name the server).
 */
import { McpHostError } from '../../errors/mcp-host-error.js';
import type { ServerStatus } from '../../host/slot/server-status.js';
import { readResultLines } from '../content.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { serverDownError, type CliRuntime } from '../runtime.js';

export async function resources(cli: CliRuntime, server: string | undefined): Promise<ExitCode> {
  const opened = await cli.openHost(server === undefined ? {} : { servers: [server] });
  const { host, statuses } = opened;
  if (server !== undefined) {
    const down = serverDownError(statuses[0]!);
    if (down !== undefined) throw down;
  }
  const rows = await host.resources();
  cli.output.result(rows, () =>
    cli.output.table(
      rows,
      [
        { header: 'SERVER', value: (r) => r.server },
        { header: 'URI', value: (r) => r.uri, maxWidth: 60 },
        { header: 'NAME', value: (r) => r.name, maxWidth: 30 },
        { header: 'MIME TYPE', value: (r) => r.mimeType },
      ],
      'no resources',
    ),
  );
  // Servers the config kept from starting: an error each, exit 1.
  return cli.reportUnresolved(opened);
}

export async function read(
  cli: CliRuntime,
  uri: string,
  server: string | undefined,
): Promise<ExitCode> {
  const { host, statuses } = await cli.openHost(server === undefined ? {} : { servers: [server] });
  if (server !== undefined) {
    const down = serverDownError(statuses[0]!);
    if (down !== undefined) throw down;
  }
  const result = await host
    .readResource(uri, server === undefined ? {} : { server })
    .catch((error: unknown) => {
      throw server === undefined ? withServerHint(error, uri, statuses) : error;
    });
  cli.output.result(result, () => {
    for (const line of readResultLines(result)) cli.output.line(line);
  });
  return ExitCode.ok;
}

/**
 * The host's "no connected server lists the resource" with what to do: a URI no server lists and
 * no server's (level-1) resource template matches may still be one's, so name the server.
 */
function withServerHint(error: unknown, uri: string, statuses: readonly ServerStatus[]): unknown {
  if (
    !(error instanceof McpHostError) ||
    error.code !== 'INVALID_ARGUMENT' ||
    error.details?.uri !== uri
  )
    return error;
  const ready = statuses.filter((s) => s.state === 'ready' || s.state === 'degraded');
  const names = ready.map((s) => s.name).join(', ');
  return new CliError(
    'INVALID_ARGUMENT',
    `${error.message}: no server lists it or has a resource template matching it; pass --server <name> to read it from one${names === '' ? '' : ` (connected: ${names})`}`,
    { cause: error, details: { uri } },
  );
}
