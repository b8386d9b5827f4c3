/**
 * crewAI-style config objects (the seeds' `MCPServerStdio`, `MCPServerHTTP`, `MCPServerSSE`, as
 * an agent's `mcps` list), in YAML or JSON:
 *
 * ```yaml
 * mcps:
 *   - https://mcp.example.com/mcp#get_forecast   # a string reference: HTTP; `#tool` allows one tool
 *   - name: files                                # optional; otherwise derived from the command/URL
 *     command: npx                               # MCPServerStdio: command, args, env
 *     args: [-y, '@modelcontextprotocol/server-filesystem', /tmp]
 *     tool_filter: { allowed_tool_names: [read_file], blocked_tool_names: [] }
 *     cache_tools_list: true
 *   - url: https://api.example.com/mcp           # MCPServerHTTP: url, headers, streamable
 *   - { url: https://api.example.com/sse, transport: sse }   # MCPServerSSE
 * ```
 *
 * The transport is `transport` (`stdio`, `http`, `streamable-http`, `sse`) or `type` (also the
 * class names), else `command` → stdio and `url` → http; serde's tagged form `{ Stdio: {…} }`,
 * `{ Http: {…} }`, `{ Sse: {…} }` is read too. No variables: every string is literal.
 * `tool_filter` names map to allow/block globs (block wins, as in crewAI); `cache_tools_list: true`
 * is crewAI's 5-minute cache (`toolsTtlMs: 300000`); `streamable: false` is kept in `extra`.
 * Catalogue references (`snowflake`, `crewai-amp:…`) cannot be resolved: an error.
 *
 * Writing: objects with `name`. Left out with an error: websocket and disabled servers, variables,
 * tool filters with wildcards (crewAI's static filter takes names). With a warning: `cwd`,
 * `envFile`, OAuth and host settings.
 */
import type { ConfigDiagnostic, McpConfig, ServerConfig } from '../model.js';
import { nameOfGlob } from './entry-values.js';
import { CREWAI_CACHE_TTL_MS, crewaiReader } from './readers/crewai-reader.js';
import {
  HOST_SETTINGS,
  ServerWriter,
  toJsonText,
  writeExtra,
  writeTopLevel,
} from './server-writer.js';
import type { DialectModule } from './types.js';

const LABEL = 'crewAI';
/** One normalised server as a crewAI config object (what is left out: see the module comment). */
function writeCrewaiEntry(
  server: ServerConfig,
  diagnostics: ConfigDiagnostic[],
): Record<string, unknown> | undefined {
  const w = new ServerWriter(server, 'crewai', LABEL, diagnostics);
  if (!server.enabled) {
    w.report('error', 'not-expressible', 'it is disabled and crewAI has no disable flag');
    return undefined;
  }
  const t = server.transport;
  const out: Record<string, unknown> = { name: server.name };
  if (t.type === 'websocket') {
    w.report('error', 'not-expressible', 'crewAI has no websocket servers');
    return undefined;
  }
  if (t.type === 'stdio') {
    out.command = w.template(t.command, undefined, 'command');
    out.args = t.args.map((arg, i) => w.template(arg, undefined, `args[${i}]`));
    if (Object.keys(t.env).length > 0) out.env = w.map(t.env, undefined, 'env');
    for (const key of ['cwd', 'envFile'] as const)
      if (t[key] !== undefined)
        w.report('warning', 'not-expressible', `crewAI has no "${key}"; left out`);
  } else {
    if (t.type === 'sse') out.transport = 'sse';
    out.url = w.template(t.url, undefined, 'url');
    if (Object.keys(t.headers).length > 0) out.headers = w.map(t.headers, undefined, 'headers');
  }
  if (server.tools !== undefined) {
    const filter: Record<string, string[]> = {};
    for (const [key, globs] of [
      ['allowed_tool_names', server.tools.allow],
      ['blocked_tool_names', server.tools.block],
    ] as const) {
      if (globs === undefined) continue;
      const names = globs.map(nameOfGlob);
      if (names.some((n) => n === undefined))
        w.report(
          'error',
          'not-expressible',
          `crewAI's ${key} takes tool names, not globs: ${globs.join(', ')}`,
        );
      else filter[key] = names as string[];
    }
    out.tool_filter = filter;
  }
  if (server.toolsTtlMs !== undefined && server.toolsTtlMs > 0) {
    out.cache_tools_list = true;
    if (server.toolsTtlMs !== CREWAI_CACHE_TTL_MS)
      w.report(
        'warning',
        'template-semantics',
        `crewAI caches the tool list for 5 minutes, not ${server.toolsTtlMs} ms`,
      );
  }
  for (const setting of HOST_SETTINGS)
    if (server[setting] !== undefined && setting !== 'tools' && setting !== 'toolsTtlMs')
      w.report('warning', 'not-expressible', `crewAI cannot express "${setting}"; left out`);
  writeExtra(w, out);
  return w.ok ? out : undefined;
}

export const crewai: DialectModule = {
  ...crewaiReader,
  write(config: McpConfig) {
    const diagnostics: ConfigDiagnostic[] = [];
    const mcps = config.servers
      .map((s) => writeCrewaiEntry(s, diagnostics))
      .filter((e) => e !== undefined);
    const out: Record<string, unknown> = { mcps };
    writeTopLevel(config, 'crewai', LABEL, out, diagnostics);
    return { text: toJsonText(out), diagnostics };
  },
};
