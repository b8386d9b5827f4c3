/** One normalised server as a crewAI-style config object (see crewai.ts for what is left out). */
import type { ConfigDiagnostic, ServerConfig } from '../model.js';
import { nameOfGlob } from './entry-values.js';
import { HOST_SETTINGS, ServerWriter, writeExtra } from './server-writer.js';

export const LABEL = 'crewAI';
/** crewAI's tool-list cache: five minutes. */
export const CACHE_TTL_MS = 300_000;

export function writeCrewaiEntry(
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
    if (server.toolsTtlMs !== CACHE_TTL_MS)
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
