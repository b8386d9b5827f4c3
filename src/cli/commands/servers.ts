/**
 * `mcp-host servers [list|status|enable|disable|restart <name>]`: the configured servers.
 * `list` reads the config only (instant); `status` connects them all at once, each within
 * `--timeout`, and shows what each is; `enable`/`disable` set `enabled` in the server's own config
 * file; `restart` connects one server, restarts it and shows its status.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { maskServer } from '../../config/expand/secrets.js';
import type { ServerConfig } from '../../config/model.js';
import { jsoncModule } from '../../config/parser-modules.js';
import { setYamlFlag } from '../../config/set-yaml-flag.js';
import { writeConfigFile } from '../../config/write-config-file.js';
import { withoutServerName } from '../../errors/mcp-host-error.js';
import type { ServerStatus } from '../../host/slot/server-status.js';
import { EMBEDDED_CONFIG_LABEL } from '../default-config.js';
import { CliError, ExitCode, exitCodeOf, worstExitCode } from '../exit-codes.js';
import type { Column } from '../output.js';
import { serverDownError, type CliRuntime } from '../runtime.js';

/** Where a server was configured, as `file:line` (the file's base name on a TTY table). */
export function sourceOf(server: ServerConfig, short = false): string {
  const file = server.source.file;
  const name = short && file !== EMBEDDED_CONFIG_LABEL ? basename(file) : file;
  return server.source.line === undefined ? name : `${name}:${server.source.line}`;
}

/** The command line or URL, masked as `config show` masks it (`maskServer`). */
function transportOf(server: ServerConfig): string {
  const transport = maskServer(server).transport as {
    type?: string;
    command?: string;
    args?: string[];
    url?: string;
  };
  if (transport.command !== undefined)
    return [transport.command, ...(transport.args ?? [])].join(' ');
  return transport.url ?? transport.type ?? '-';
}

export async function list(cli: CliRuntime): Promise<void> {
  const { config } = await cli.loadConfig();
  const rows = config.servers.map((server) => ({
    name: server.name,
    enabled: server.enabled,
    transport: (server.transport as { type?: string }).type ?? 'stdio',
    target: transportOf(server),
    source: sourceOf(server),
  }));
  cli.output.result(rows, () =>
    cli.output.table(rows, [
      { header: 'NAME', value: (r) => r.name },
      { header: 'ENABLED', value: (r) => (r.enabled ? 'yes' : 'no') },
      { header: 'TRANSPORT', value: (r) => r.transport },
      { header: 'COMMAND/URL', value: (r) => r.target, maxWidth: 60 },
      { header: 'SOURCE', value: (r) => shortSource(r.source) },
    ]),
  );
}

function shortSource(source: string): string {
  return source.startsWith('<') ? source : source.replace(/^.*[\\/]/, '');
}

interface StatusRow {
  name: string;
  state: string;
  era: string | null;
  version: string | null;
  tools: number;
  pid: number | null;
  restarts: number;
  lastError: { code: string; message: string } | null;
  source: string;
}

export async function status(cli: CliRuntime): Promise<ExitCode> {
  const { config } = await cli.loadConfig();
  const { statuses, resolved } = await cli.openHost();
  const byName = new Map(statuses.map((s) => [s.name, s]));
  const rows: StatusRow[] = config.servers.map((server) => {
    const live = byName.get(server.name);
    const configError = resolved.errors.get(server.name);
    return toRow(server, live, configError);
  });
  cli.output.result(rows, () => printStatus(cli, rows));
  // Exit 0 when every enabled server is up; otherwise the worst failure's code (as doctor does).
  return worstExitCode(
    rows.flatMap((row) => {
      if (row.state === 'disabled') return [];
      const error = resolved.errors.get(row.name);
      if (error !== undefined) return [exitCodeOf(error)];
      const live = byName.get(row.name);
      const down = live === undefined ? undefined : serverDownError(live);
      return down === undefined ? [] : [down.exitCode];
    }),
  );
}

function toRow(
  server: ServerConfig,
  live: ServerStatus | undefined,
  configError: { code: string; message: string } | undefined,
): StatusRow {
  const version = live?.serverInfo ? `${live.serverInfo.name}@${live.serverInfo.version}` : null;
  return {
    name: server.name,
    state:
      configError !== undefined
        ? 'config_error'
        : (live?.state ?? (server.enabled ? 'idle' : 'disabled')),
    era: live?.era ?? null,
    version,
    tools: live?.toolCount ?? 0,
    pid: live?.pid ?? null,
    restarts: live?.restartCount ?? 0,
    lastError:
      configError !== undefined
        ? { code: configError.code, message: withoutServerName(server.name, configError.message) }
        : (live?.lastError ?? null),
    source: sourceOf(server),
  };
}

/** The table, then each last error in full (the column holds only its code). */
function printStatus(cli: CliRuntime, rows: StatusRow[]): void {
  cli.output.table(rows, statusColumns());
  const failed = rows.filter((row) => row.lastError !== null);
  if (failed.length > 0) cli.output.line();
  for (const row of failed)
    cli.output.line(`${cli.output.style('bold', row.name)}: ${row.lastError!.message}`);
}

function statusColumns(): Column<StatusRow>[] {
  return [
    { header: 'NAME', value: (r) => r.name },
    {
      header: 'STATE',
      value: (r) => r.state,
      style: (text) =>
        text === 'ready' ? 'green' : text === 'degraded' || text === 'disabled' ? 'yellow' : 'red',
    },
    { header: 'ERA', value: (r) => r.era },
    { header: 'SERVER', value: (r) => r.version, maxWidth: 32 },
    { header: 'TOOLS', value: (r) => r.tools },
    { header: 'PID', value: (r) => r.pid },
    { header: 'RESTARTS', value: (r) => r.restarts },
    { header: 'LAST ERROR', value: (r) => r.lastError?.code },
    { header: 'SOURCE', value: (r) => shortSource(r.source) },
  ];
}

export async function restart(cli: CliRuntime, name: string): Promise<ExitCode> {
  const server = await cli.server(name);
  const { host } = await cli.openHost({ servers: [name] });
  const after = await host.restartServer(name);
  const row = toRow(server, after, undefined);
  cli.output.result(row, () => printStatus(cli, [row]));
  return serverDownError(after)?.exitCode ?? ExitCode.ok;
}

export async function setEnabled(cli: CliRuntime, name: string, enabled: boolean): Promise<void> {
  const server = await cli.server(name);
  const file = server.source.file;
  if (file === EMBEDDED_CONFIG_LABEL)
    throw new CliError(
      'CONFIG_READ_ONLY',
      'the embedded demo config cannot be changed: write an mcp.yaml first',
    );
  if (server.source.dialect !== 'mcp-host')
    throw new CliError(
      'CONFIG_READ_ONLY',
      `${file} is a ${server.source.dialect} file: enable or disable it there, or import it (mcp-host config import)`,
      { serverName: name },
    );
  const text = await readFile(file, 'utf8');
  const path = [...server.source.path, 'enabled'];
  let updated: string;
  if (/\.jsonc?$/i.test(file)) {
    const { applyEdits, modify } = jsoncModule();
    updated = applyEdits(
      text,
      modify(text, path, enabled, { formattingOptions: { insertSpaces: true, tabSize: 2 } }),
    );
  } else updated = setYamlFlag(text, path, enabled);
  if (updated !== text) await writeConfigFile(file, updated, { backup: false });
  const result = { name, enabled, file, changed: updated !== text };
  cli.output.result(result, () =>
    cli.output.line(
      `${name}: ${enabled ? 'enabled' : 'disabled'}${result.changed ? '' : ' (already)'} in ${file}`,
    ),
  );
}
