/**
 * `mcp-host tools [server] [--view <name>]`: every tool (exposed and original names, server,
 * description), or those of one view of the config (only the view's servers are started); with
 * `--quarantined`, the tools the pin check holds back instead, each with its pin and what changed;
 * `mcp-host tools approve <server> <tool> [--pin <pin>]`: approves a held definition in the
 * configured state store (`state:`), for every host and replica that shares it;
 * `mcp-host inspect <server>[/<tool>]`: one server (status, capabilities, its tools) or one tool
 * (its names, description, annotations and input/output schemas).
 */
import type { HostTool } from '../../host/host-tool.js';
import type { McpHost } from '../../host/mcp-host.js';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { CliError, ExitCode, usageError } from '../exit-codes.js';
import { serverDownError, type CliRuntime, type OpenedHost } from '../runtime.js';

/** `server/tool` split at the first slash (tool names may hold more). */
export function splitTarget(target: string): { server: string; tool: string | undefined } {
  const at = target.indexOf('/');
  return at < 0
    ? { server: target, tool: undefined }
    : { server: target.slice(0, at), tool: target.slice(at + 1) };
}

/**
 * A server's tool by its original name, or TOOL_QUARANTINED when the pin check holds it (with the
 * way to approve it), or TOOL_NOT_FOUND (exit 5) naming the ones there are.
 */
export function findTool(host: McpHost, server: string, tool: string): HostTool {
  const all = host.tools().filter((t) => t.server === server);
  const found = all.find((t) => t.originalName === tool) ?? all.find((t) => t.name === tool);
  const held = host.quarantined().find((q) => q.server === server && q.tool === tool);
  if (found === undefined && held !== undefined)
    throw new CliError(
      'TOOL_QUARANTINED',
      `tool '${tool}' is quarantined (${held.reason}: ${held.summary}); to trust it: mcp-host tools approve ${server} ${tool}${held.pin === undefined ? '' : ` --pin ${held.pin}`}`,
      { serverName: server, tool },
    );
  if (found === undefined)
    throw new CliError(
      'TOOL_NOT_FOUND',
      `no tool '${tool}' (it has: ${all.map((t) => t.originalName).join(', ') || 'none'})`,
      { serverName: server },
    );
  return found;
}

interface ToolRow {
  name: string;
  server: string | null;
  originalName: string;
  description: string | null;
}

/** Options of `mcp-host tools`. */
export interface ToolsCommandOptions {
  /** List the tools of this view of the config (`views:`) only. */
  view?: string;
  /** List the tools the pin check holds back, with their pins. */
  quarantined?: boolean;
}

/**
 * The servers a command over `view` needs started: the one named, else the view's servers (all
 * when it names none). A server outside the view is INVALID_ARGUMENT.
 */
export async function viewServers(
  cli: CliRuntime,
  view: string | undefined,
  server: string | undefined,
): Promise<readonly string[] | undefined> {
  if (view === undefined) return server === undefined ? undefined : [server];
  const { servers } = await cli.view(view);
  if (server === undefined) return servers;
  if (servers !== undefined && !servers.includes(server))
    throw new CliError('INVALID_ARGUMENT', `not in view '${view}'`, {
      serverName: server,
      details: { view },
    });
  return [server];
}

export async function tools(
  cli: CliRuntime,
  server: string | undefined,
  options: ToolsCommandOptions = {},
): Promise<ExitCode> {
  const wanted = await viewServers(cli, options.view, server);
  const opened = await cli.openHost(wanted === undefined ? {} : { servers: wanted });
  const { host, statuses } = opened;
  if (server !== undefined) {
    const down = serverDownError(statuses[0]!);
    if (down !== undefined) throw down;
  }
  if (options.quarantined === true) return quarantinedTools(cli, opened);
  // Config order of servers (the host lists them as they connected), each server's own order.
  const order = new Map(statuses.map((s, i) => [s.name, i]));
  const visible = options.view === undefined ? host.tools() : host.view(options.view).tools();
  const listed = visible
    .map((tool, i) => ({ tool, i }))
    .sort(
      (a, b) =>
        (order.get(a.tool.server ?? '') ?? -1) - (order.get(b.tool.server ?? '') ?? -1) ||
        a.i - b.i,
    )
    .map(({ tool }) => tool);
  const rows: ToolRow[] = listed.map((tool) => ({
    name: tool.name,
    server: tool.server ?? null,
    originalName: tool.originalName,
    description: tool.description ?? null,
  }));
  cli.output.result(rows, () =>
    cli.output.table(
      rows,
      [
        { header: 'SERVER', value: (r) => r.server },
        { header: 'TOOL', value: (r) => r.originalName },
        { header: 'EXPOSED AS', value: (r) => r.name },
        { header: 'DESCRIPTION', value: (r) => r.description, maxWidth: 60 },
      ],
      'no tools',
    ),
  );
  // Servers that did not come up: a warning each (the tools of the others are still shown).
  for (const status of statuses) {
    const down = serverDownError(status);
    if (down !== undefined && status.state !== 'disabled') cli.output.warn(down.message);
  }
  // Servers the config kept from starting: an error each, exit 1.
  return cli.reportUnresolved(opened);
}

interface QuarantinedRow {
  server: string;
  tool: string;
  reason: string;
  pin: string | null;
  summary: string;
}

/** `tools --quarantined`: what the pin check holds back on the servers opened. */
function quarantinedTools(cli: CliRuntime, opened: OpenedHost): ExitCode {
  if (opened.stateStore === undefined)
    cli.output.notice(
      'mcp-host: no state store is configured (`state:`): pins live in memory, so this run trusted every tool it listed first',
    );
  const rows: QuarantinedRow[] = opened.host.quarantined().map((held) => ({
    server: held.server,
    tool: held.tool,
    reason: held.reason,
    pin: held.pin ?? null,
    summary: held.summary,
  }));
  cli.output.result(rows, () =>
    cli.output.table(
      rows,
      [
        { header: 'SERVER', value: (r) => r.server },
        { header: 'TOOL', value: (r) => r.tool },
        { header: 'REASON', value: (r) => r.reason },
        { header: 'PIN', value: (r) => r.pin },
        { header: 'CHANGE', value: (r) => r.summary, maxWidth: 60 },
      ],
      'no quarantined tools',
    ),
  );
  for (const status of opened.statuses) {
    const down = serverDownError(status);
    if (down !== undefined && status.state !== 'disabled') cli.output.warn(down.message);
  }
  return cli.reportUnresolved(opened);
}

/** Options of `mcp-host tools approve`. */
export interface ApproveCommandOptions {
  /** Approve only the held definition with this pin (the one shown by `tools --quarantined`). */
  pin?: string;
}

/**
 * `tools approve <server> <tool> [--pin <pin>]`: pins the held definition of a quarantined tool
 * in the configured state store (without connecting the server), so every host and gateway
 * replica sharing the store offers it (at once, when the store tells them of changes, such as
 * PostgreSQL; at their next listing otherwise). Without a configured store it is a usage error:
 * pins would be this process's only.
 */
export async function approve(
  cli: CliRuntime,
  server: string,
  tool: string,
  options: ApproveCommandOptions = {},
): Promise<ExitCode> {
  if ((await cli.stateStore()) === undefined)
    throw usageError(
      'tools approve writes into the configured state store, and the config names none: add `state:` (a `file` or `postgres`) so hosts and gateways share their pins',
    );
  const { host, stateStore } = await cli.openHost({ servers: [server], start: false });
  try {
    await host.approveTool(server, tool, options.pin === undefined ? {} : { pin: options.pin });
  } catch (error) {
    if (error instanceof McpHostError && error.code === 'INVALID_ARGUMENT')
      throw new CliError('INVALID_ARGUMENT', approveRefusal(error, tool, options.pin), {
        serverName: server,
        tool,
      });
    throw error;
  }
  const result = { server, tool, approved: true };
  cli.output.result(result, () =>
    cli.output.line(`approved '${tool}' of '${server}' in ${stateStore?.where ?? 'the store'}`),
  );
  return ExitCode.ok;
}

/** Why an approval was refused, without the server's identity key. */
function approveRefusal(error: McpHostError, tool: string, pin: string | undefined): string {
  const held = (error.details as { pin?: unknown } | undefined)?.pin;
  if (typeof held === 'string')
    return `the held definition of '${tool}' has the pin ${held}, not ${pin ?? '-'}: see \`mcp-host tools --quarantined\``;
  return `'${tool}' is not quarantined (see \`mcp-host tools --quarantined\`)`;
}

export async function inspect(cli: CliRuntime, target: string): Promise<ExitCode> {
  const { server, tool } = splitTarget(target);
  const { host, statuses } = await cli.openHost({ servers: [server] });
  const status = statuses.find((s) => s.name === server)!;
  const down = serverDownError(status);
  if (down !== undefined) throw down;
  if (tool !== undefined) {
    const found = findTool(host, server, tool);
    cli.output.result(found, () => {
      const out = cli.output;
      out.line(
        `${out.style('bold', found.originalName)}  (exposed as ${found.name}, server ${server})`,
      );
      if (found.title) out.line(`title: ${found.title}`);
      if (found.description) out.line(found.description);
      if (found.annotations) out.line(`annotations: ${JSON.stringify(found.annotations)}`);
      out.line('');
      out.line(out.style('bold', 'input schema:'));
      out.line(JSON.stringify(found.inputSchema, null, 2));
      if (found.outputSchema) {
        out.line(out.style('bold', 'output schema:'));
        out.line(JSON.stringify(found.outputSchema, null, 2));
      }
    });
    return ExitCode.ok;
  }
  const tools = host.tools().filter((t) => t.server === server);
  const result = { status, tools };
  cli.output.result(result, () => {
    const out = cli.output;
    const info = status.serverInfo ? `${status.serverInfo.name}@${status.serverInfo.version}` : '-';
    out.line(
      `${out.style('bold', server)}: ${status.state}, ${info}, era ${status.era ?? '-'}, protocol ${status.protocolVersion ?? '-'}, pid ${status.pid ?? '-'}`,
    );
    out.line('');
    out.table(
      tools,
      [
        { header: 'TOOL', value: (t) => t.originalName },
        { header: 'EXPOSED AS', value: (t) => t.name },
        { header: 'ARGUMENTS', value: (t) => argumentSummary(t), maxWidth: 50 },
        { header: 'DESCRIPTION', value: (t) => t.description, maxWidth: 50 },
      ],
      'no tools',
    );
  });
  return ExitCode.ok;
}

/** `name:type` per property, `?` marking the optional ones. */
export function argumentSummary(tool: HostTool): string {
  const schema = tool.inputSchema as {
    properties?: Record<string, { type?: unknown }>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {})
    .map(([key, value]) => {
      const declared = value?.type;
      const type = Array.isArray(declared)
        ? declared.join('|')
        : typeof declared === 'string'
          ? declared
          : 'any';
      return `${key}${required.has(key) ? '' : '?'}:${type}`;
    })
    .join(' ');
}
