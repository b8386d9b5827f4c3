/** `mcp-host resources [server]`: the resources of every server (or one); `mcp-host read <uri>`. */
import type { Command } from 'commander';
import { action } from '../command.js';
import { readResultLines } from '../content.js';
import { ExitCode } from '../exit-codes.js';
import { serverDownError, type CliRuntime } from '../runtime.js';

export function registerResources(program: Command): void {
  program
    .command('resources [server]')
    .description('the resources of every server (or one)')
    .action(action((cli, [server]) => resources(cli, server)));
  program
    .command('read <uri>')
    .description('read a resource (routed to the server that lists it; --server to choose)')
    .option('-s, --server <name>', 'the server to read it from')
    .action(action<{ server?: string }>((cli, [uri], options) => read(cli, uri!, options.server)));
}

async function resources(cli: CliRuntime, server: string | undefined): Promise<ExitCode> {
  const { host, statuses } = await cli.openHost(server === undefined ? {} : { servers: [server] });
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
  return ExitCode.ok;
}

async function read(cli: CliRuntime, uri: string, server: string | undefined): Promise<ExitCode> {
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
