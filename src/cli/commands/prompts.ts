/**
 * `mcp-host prompts [server]`: the prompts of every server (or one), with their arguments;
 * `mcp-host prompt <name> --arg k=v`: one prompt's messages (`<server>/<prompt>` or its exposed name).
 */
import { promptLines } from '../content.js';
import { ExitCode, usageError } from '../exit-codes.js';
import { serverDownError, type CliRuntime } from '../runtime.js';
import { splitTarget } from './tools.js';

export async function prompts(cli: CliRuntime, server: string | undefined): Promise<ExitCode> {
  const opened = await cli.openHost(server === undefined ? {} : { servers: [server] });
  const { host, statuses } = opened;
  if (server !== undefined) {
    const down = serverDownError(statuses[0]!);
    if (down !== undefined) throw down;
  }
  const rows = (await host.prompts()).map((p) => ({
    name: p.name,
    server: p.server,
    originalName: p.originalName,
    description: p.description ?? null,
    arguments: p.arguments ?? [],
  }));
  cli.output.result(rows, () =>
    cli.output.table(
      rows,
      [
        { header: 'SERVER', value: (r) => r.server },
        { header: 'PROMPT', value: (r) => r.originalName },
        { header: 'EXPOSED AS', value: (r) => r.name },
        {
          header: 'ARGUMENTS',
          value: (r) => r.arguments.map((a) => `${a.name}${a.required ? '' : '?'}`).join(' '),
          maxWidth: 40,
        },
        { header: 'DESCRIPTION', value: (r) => r.description, maxWidth: 50 },
      ],
      'no prompts',
    ),
  );
  // Servers the config kept from starting: an error each, exit 1.
  return cli.reportUnresolved(opened);
}

export async function prompt(cli: CliRuntime, name: string, pairs: string[]): Promise<ExitCode> {
  const args: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw usageError(`--arg '${pair}' is not key=value`);
    const key = pair.slice(0, at);
    if (Object.hasOwn(args, key)) throw usageError(`--arg ${key} is given twice: give it once`);
    args[key] = pair.slice(at + 1);
  }
  const { server, tool: promptName } = splitTarget(name);
  const opened = await cli.openHost(promptName === undefined ? {} : { servers: [server] });
  let exposed = name;
  if (promptName !== undefined) {
    const down = serverDownError(opened.statuses[0]!);
    if (down !== undefined) throw down;
    const listed = await opened.host.prompts();
    exposed =
      listed.find((p) => p.server === server && p.originalName === promptName)?.name ?? name;
  }
  const result = await opened.host.getPrompt(exposed, args);
  cli.output.result(result, () => {
    for (const line of promptLines(result)) cli.output.line(line);
  });
  return ExitCode.ok;
}
