/**
 * `mcp-host call <server>/<tool> | <exposed_name> [-]`: calls one tool with arguments from
 * `--args '<json>'`, JSON on stdin (`-` or `--args -`) and `--arg key=value` (coerced by the tool's
 * input schema, see tool-arguments.ts). Prints the content for a person, or with `--raw` (and in
 * JSON mode) the whole result. The host's result budget cuts a long result, with a notice, except
 * with `--raw`, which prints what the server returned unless `--max-result-bytes` is given. A
 * result with `isError: true` is printed, then exits 5. An exposed name connects only the server
 * its structure names (`candidateServers`), not every one. With `--view <name>`, the call goes
 * through that view of the config: a tool outside it is refused (`TOOL_DENIED`, exit 5), and its
 * result budget applies.
 */
import { formatBytes } from '../../host/calls/budget-size.js';
import { cleanArguments } from '../../host/calls/clean-arguments.js';
import { candidateServers } from '../../host/naming/name-assignment.js';
import { resultTruncation } from '../../host/calls/result-budget.js';
import type { HostTool } from '../../host/host-tool.js';
import type { McpHost } from '../../host/mcp-host.js';
import type { JsonObject } from '../../jsonrpc/message.js';
import { createSchemaValidator } from '../../schema/schema-validator.js';
import { toolResultLines } from '../content.js';
import { CliError, ExitCode, usageError } from '../exit-codes.js';
import { serverDownError, type CliRuntime } from '../runtime.js';
import { parseArgPairs, parseArgsJson, readStdin } from '../tool-arguments.js';
import { findTool, splitTarget } from './tools.js';

export interface CallCommandOptions {
  args?: string;
  arg?: string[];
  raw?: boolean;
  maxResultBytes?: number;
  /** Call through this view of the config (`views:`). */
  view?: string;
}

export async function call(
  cli: CliRuntime,
  target: string,
  stdin: string | undefined,
  options: CallCommandOptions,
): Promise<ExitCode> {
  if (stdin !== undefined && stdin !== '-')
    throw usageError(`unexpected argument '${stdin}' (only '-', for JSON on stdin)`);
  if (stdin === '-' && options.args !== undefined && options.args !== '-')
    throw usageError("arguments from stdin ('-') and --args both: give them one way");
  // Malformed or repeated --arg pairs are refused before any server starts (typed later).
  parseArgPairs(options.arg ?? [], undefined);
  const fromStdin = stdin === '-' || options.args === '-';
  // Read stdin before any server starts (a server must not see our stdin).
  let args: JsonObject = fromStdin ? parseArgsJson(await readStdin(), 'stdin') : {};
  if (options.args !== undefined && options.args !== '-')
    args = { ...args, ...parseArgsJson(options.args, '--args') };

  const { server, tool: toolName } = splitTarget(target);
  // An unknown view fails before any server starts.
  const view = options.view === undefined ? undefined : await cli.view(options.view);
  // The result budget is for what a model reads: `--raw` prints what the server returned, whole,
  // unless `--max-result-bytes` says otherwise; the other outputs keep the host's budget.
  const budget =
    options.maxResultBytes !== undefined
      ? { maxResultBytes: options.maxResultBytes }
      : options.raw === true
        ? { maxResultBytes: 0 }
        : {};
  let tool: HostTool;
  if (toolName !== undefined) {
    // A server outside the view is refused without starting it.
    if (view?.servers !== undefined && !view.servers.includes(server))
      throw new CliError(
        'TOOL_DENIED',
        `tool '${target}' was refused: it is not in view '${options.view!}'`,
        { serverName: server, details: { view: options.view } },
      );
    const { host, statuses } = await cli.openHost({ servers: [server], ...budget });
    const down = serverDownError(statuses[0]!);
    if (down !== undefined) throw down;
    tool = findTool(host, server, toolName);
    return run(cli, host, tool, args, options);
  }
  // An exposed name (`mcp__ok__echo`) names its server in its structure: only the servers it
  // can belong to are connected, not every configured one.
  const { config } = await cli.loadConfig();
  const enabled = config.servers.filter((s) => s.enabled).map((s) => s.name);
  const candidates = candidateServers(target, enabled, config.defaults?.naming);
  if (candidates.length === 0) {
    const disabled = candidateServers(
      target,
      config.servers.filter((s) => !s.enabled).map((s) => s.name),
      config.defaults?.naming,
    );
    throw new CliError(
      'TOOL_NOT_FOUND',
      `no tool is named '${target}': ${disabled.length > 0 ? `its server '${disabled[0]}' is disabled` : 'its start names no configured server'} (write <server>/<tool>, or see mcp-host tools)`,
    );
  }
  const { host, statuses, resolved } = await cli.openHost({ servers: candidates, ...budget });
  const found = host.tools().find((t) => t.name === target);
  if (found === undefined) {
    // The one server it names did not come up: its error, as for `call <server>/<tool>`.
    const only = statuses.length === 1 ? serverDownError(statuses[0]!) : undefined;
    if (only !== undefined) throw only;
    // The tool may be on a server that did not start: say which, and why.
    for (const status of statuses) {
      const down = serverDownError(status);
      if (down !== undefined && status.state !== 'disabled') cli.output.warn(down.message);
    }
    for (const error of resolved.errors.values()) cli.output.warn(error.message);
    throw new CliError(
      'TOOL_NOT_FOUND',
      `no tool is named '${target}' (write <server>/<tool>, or see mcp-host tools)`,
    );
  }
  return run(cli, host, found, args, options);
}

/**
 * Refuses arguments the host would refuse before calling the server (a required one missing, a
 * value outside an enum, a wrong type): on the command line that is a usage error (exit 1) naming
 * the argument, not the tool's error (exit 5). The host checks them again, as it does every call.
 */
async function checkArguments(tool: HostTool, args: JsonObject): Promise<void> {
  if (tool.server === undefined) return;
  const compiled = await createSchemaValidator().compile(tool.inputSchema);
  // An unusable schema is the host's to refuse, with its own error.
  if (!compiled.ok) return;
  const verdict = compiled.validate(cleanArguments(args, tool.inputSchema));
  if (verdict.valid) return;
  throw new CliError(
    'INVALID_ARGUMENT',
    `tool '${tool.originalName}': invalid arguments (see mcp-host inspect ${tool.server}/${tool.originalName}): ${verdict.message}`,
    { serverName: tool.server },
  );
}

async function run(
  cli: CliRuntime,
  host: McpHost,
  tool: HostTool,
  args: JsonObject,
  options: CallCommandOptions,
): Promise<ExitCode> {
  const all = { ...args, ...parseArgPairs(options.arg ?? [], tool.inputSchema) };
  const caller = options.view === undefined ? host : host.view(options.view);
  // A tool outside the view is refused by the view itself (the host's own error), arguments unread.
  if (options.view !== undefined && !caller.tools().some((t) => t.name === tool.name))
    await caller.callTool(tool.name, all);
  await checkArguments(tool, all);
  cli.output.debug(`calling ${tool.name} with ${JSON.stringify(Object.keys(all))}`);
  const result = await caller.callTool(tool.name, all, {
    onProgress: (progress) => {
      const {
        progress: done,
        total,
        message,
      } = progress as {
        progress: number;
        total?: number;
        message?: string;
      };
      cli.output.progress(
        `${tool.originalName}: ${total === undefined ? done : `${done}/${total}`}${message ? ` ${message}` : ''}`,
      );
    },
  });
  cli.output.result(result, () => {
    if (options.raw === true) cli.output.line(JSON.stringify(result, null, 2));
    else for (const line of toolResultLines(result)) cli.output.line(line);
  });
  const cut = resultTruncation(result);
  if (cut !== undefined)
    cli.output.warn(
      `the result was cut to the ${formatBytes(cut.maxBytes)} result budget (${formatBytes(cut.keptBytes)} of ${formatBytes(cut.originalBytes)} kept): --max-result-bytes <bytes> raises it (0: no limit), as does defaults.maxResultBytes in the config`,
    );
  if (result.isError === true) {
    cli.output.error(
      new CliError('TOOL_ERROR', `tool '${tool.originalName}' returned an error`, {
        serverName: tool.server,
      }),
    );
    return ExitCode.toolError;
  }
  return ExitCode.ok;
}
