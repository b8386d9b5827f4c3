/** `mcp-host resources [server]`: the resources of every server (or one); `mcp-host read <uri>`. */
import { readResultLines } from '../content.js';
import { ExitCode } from '../exit-codes.js';
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
  const result = await host.readResource(uri, server === undefined ? {} : { server });
  cli.output.result(result, () => {
    for (const line of readResultLines(result)) cli.output.line(line);
  });
  return ExitCode.ok;
}
