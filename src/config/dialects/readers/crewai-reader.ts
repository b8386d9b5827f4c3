/** Reads crewAI-style config objects (see ../crewai.ts). */
import { aboutServer } from '../../../errors/mcp-host-error.js';
import { closestKey } from '../../diagnostics.js';
import type { McpConfig, ServerConfig, TransportConfig } from '../../model.js';
import { isRecord, type KeyPath } from '../../parse.js';
import { globOfName, readStringMap } from '../entry-values.js';
import { dropBadServerNames, ReadContext, typeName } from '../read-context.js';
import { grammarContextOf } from '../read-document.js';
import type { DialectDocument, DialectReader, DialectReadOptions } from '../types.js';

/** crewAI's tool-list cache: five minutes. */
export const CREWAI_CACHE_TTL_MS = 300_000;

const KEYS = [
  'name',
  'transport',
  'type',
  'command',
  'args',
  'env',
  'url',
  'headers',
  'streamable',
  'tool_filter',
  'cache_tools_list',
];
const TYPES: Record<string, TransportConfig['type']> = {
  stdio: 'stdio',
  MCPServerStdio: 'stdio',
  http: 'http',
  'streamable-http': 'http',
  MCPServerHTTP: 'http',
  sse: 'sse',
  MCPServerSSE: 'sse',
};
const TAGS: Record<string, TransportConfig['type']> = { Stdio: 'stdio', Http: 'http', Sse: 'sse' };

/** A server name from a command line or a URL. */
function deriveName(entry: { command?: string; args?: string[]; url?: string }): string {
  if (entry.url !== undefined) {
    try {
      return new URL(entry.url).hostname || 'server';
    } catch {
      return 'server';
    }
  }
  const runners = new Set([
    'npx',
    'uvx',
    'node',
    'python',
    'python3',
    'bunx',
    'deno',
    'docker',
    'pipx',
  ]);
  const words = [entry.command ?? '', ...(entry.args ?? [])];
  const word = runners.has(words[0]!)
    ? (words.slice(1).find((w) => !w.startsWith('-')) ?? words[0]!)
    : words[0]!;
  return (
    word
      .split(/[\\/]/)
      .filter(Boolean)
      .at(-1)
      ?.replace(/@[^@]*$/, '') || 'server'
  );
}

function readEntry(
  raw: unknown,
  path: KeyPath,
  ctx: ReadContext,
  taken: Set<string>,
): ServerConfig | undefined {
  const provisional = `mcps[${String(path.at(-1))}]`;
  if (typeof raw === 'string') return readReference(raw, path, ctx, taken);
  if (!isRecord(raw)) {
    ctx.report(
      'error',
      'invalid-type',
      `expected a URL or an object, found ${typeName(raw)}`,
      path,
      provisional,
    );
    return undefined;
  }
  let tagged: TransportConfig['type'] | undefined;
  const tags = Object.keys(raw).filter((key) => key in TAGS);
  if (tags.length === 1 && Object.keys(raw).length === 1 && isRecord(raw[tags[0]!])) {
    tagged = TAGS[tags[0]!];
    path = [...path, tags[0]!];
    raw = raw[tags[0]!];
  }
  const entry = raw as Record<string, unknown>;
  const str = (key: string): string | undefined => {
    const value = entry[key];
    if (value === undefined) return undefined;
    if (typeof value === 'string') return value;
    ctx.report(
      'error',
      'invalid-type',
      `"${key}": expected a string, found ${typeName(value)}`,
      [...path, key],
      provisional,
    );
    return undefined;
  };
  const command = str('command');
  const url = str('url');
  let args: string[] = [];
  if (Array.isArray(entry.args)) args = entry.args.map(String);
  else if (entry.args !== undefined && entry.args !== null)
    ctx.report(
      'error',
      'invalid-type',
      `"args": expected an array, found ${typeName(entry.args)}`,
      [...path, 'args'],
      provisional,
    );
  const given = str('name');
  const name = uniqueName(given ?? deriveName({ command, args, url }), taken);
  if (given !== undefined && given !== name)
    ctx.report(
      'warning',
      'duplicate-name',
      `a server named "${given}" already exists; this one is "${name}"`,
      [...path, 'name'],
      name,
    );
  const before = ctx.errorCount(name) + ctx.errorCount(provisional);
  const typeText = str('transport') ?? str('type');
  let type = tagged ?? (typeText === undefined ? undefined : TYPES[typeText]);
  if (typeText !== undefined && type === undefined)
    ctx.report(
      'error',
      'invalid-value',
      `unknown transport "${typeText}"`,
      [...path, 'transport'],
      name,
      closestKey(typeText, Object.keys(TYPES)),
    );
  type ??= command !== undefined ? 'stdio' : url !== undefined ? 'http' : undefined;
  const extra: Record<string, unknown> = {};
  for (const key of Object.keys(entry))
    if (!KEYS.includes(key)) {
      extra[key] = entry[key];
      const suggestion = closestKey(key, KEYS);
      ctx.report(
        'warning',
        'unknown-key',
        aboutServer(
          name,
          `unknown key "${key}" kept as it is${suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`}`,
        ),
        [...path, key],
        name,
        suggestion,
      );
    }
  if (entry.streamable === false) extra.streamable = false;
  let transport: TransportConfig | undefined;
  const escape = (text: string, at: KeyPath): string =>
    ctx.template(text, at, undefined, name) ?? text;
  if (type === 'stdio') {
    if (command === undefined)
      ctx.report(
        'error',
        'missing-key',
        aboutServer(name, `a stdio server needs "command"`),
        path,
        name,
      );
    else
      transport = {
        type,
        command: escape(command, [...path, 'command']),
        args: args.map((arg, i) => escape(arg, [...path, 'args', i])),
        env:
          entry.env === undefined || entry.env === null
            ? {}
            : readStringMap(entry.env, [...path, 'env'], name, undefined, ctx),
      };
  } else if (type !== undefined) {
    if (url === undefined)
      ctx.report(
        'error',
        'missing-key',
        aboutServer(name, `a ${type} server needs "url"`),
        path,
        name,
      );
    else
      transport = {
        type,
        url: escape(url, [...path, 'url']),
        headers:
          entry.headers === undefined || entry.headers === null
            ? {}
            : readStringMap(entry.headers, [...path, 'headers'], name, undefined, ctx),
      };
  } else
    ctx.report(
      'error',
      'missing-key',
      aboutServer(name, `expected "command" (stdio) or "url"`),
      path,
      name,
    );
  const tools = readToolFilter(entry.tool_filter, [...path, 'tool_filter'], name, ctx);
  if (transport === undefined || ctx.errorCount(name) + ctx.errorCount(provisional) > before)
    return undefined;
  return {
    name,
    transport,
    enabled: true,
    ...(entry.cache_tools_list === true ? { toolsTtlMs: CREWAI_CACHE_TTL_MS } : {}),
    ...(tools === undefined ? {} : { tools }),
    ...(Object.keys(extra).length === 0 ? {} : { extra }),
    source: ctx.location(path),
  };
}

function readReference(
  raw: string,
  path: KeyPath,
  ctx: ReadContext,
  taken: Set<string>,
): ServerConfig | undefined {
  const hash = raw.indexOf('#');
  const url = hash < 0 ? raw : raw.slice(0, hash);
  const tool = hash < 0 ? undefined : raw.slice(hash + 1);
  if (!/^https?:\/\//i.test(url)) {
    ctx.report(
      'error',
      'unsupported-reference',
      `"${raw}" is a crewAI catalogue reference; mcp-host cannot resolve it (write the server's URL or command)`,
      path,
      raw,
    );
    return undefined;
  }
  const name = uniqueName(deriveName({ url }), taken);
  return {
    name,
    transport: { type: 'http', url: ctx.template(url, path, undefined, name) ?? url, headers: {} },
    enabled: true,
    ...(tool === undefined || tool === '' ? {} : { tools: { allow: [globOfName(tool)] } }),
    source: ctx.location(path),
  };
}

function readToolFilter(
  value: unknown,
  path: KeyPath,
  name: string,
  ctx: ReadContext,
): ServerConfig['tools'] {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) {
    ctx.report(
      'error',
      'invalid-type',
      `expected { allowed_tool_names, blocked_tool_names }, found ${typeName(value)}`,
      path,
      name,
    );
    return undefined;
  }
  const list = (key: string): string[] | undefined => {
    const items = value[key];
    if (items === undefined || items === null) return undefined;
    if (!Array.isArray(items)) {
      ctx.report(
        'error',
        'invalid-type',
        `expected an array of tool names, found ${typeName(items)}`,
        [...path, key],
        name,
      );
      return undefined;
    }
    return items.map((item) => globOfName(String(item)));
  };
  const allow = list('allowed_tool_names');
  const block = list('blocked_tool_names');
  for (const key of Object.keys(value))
    if (key !== 'allowed_tool_names' && key !== 'blocked_tool_names')
      ctx.report(
        'warning',
        'unknown-key',
        aboutServer(name, `unknown tool_filter key "${key}" left out`),
        [...path, key],
        name,
      );
  if (allow === undefined && block === undefined) return undefined;
  return { ...(allow === undefined ? {} : { allow }), ...(block === undefined ? {} : { block }) };
}

function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
  taken.add(name);
  return name;
}

export const crewaiReader: DialectReader = {
  dialect: 'crewai',
  format: 'yaml',
  read(document: DialectDocument, file: string, options?: DialectReadOptions) {
    const ctx = new ReadContext(file, 'crewai', document, grammarContextOf(file, options));
    const config: McpConfig = { servers: [], files: [{ file, dialect: 'crewai' }] };
    const root = document.value;
    const list = Array.isArray(root) ? root : isRecord(root) ? root.mcps : undefined;
    const base: KeyPath = Array.isArray(root) ? [] : ['mcps'];
    if (root !== undefined && root !== null && !Array.isArray(list)) {
      ctx.report(
        'error',
        'invalid-type',
        `expected "mcps": a list of servers, found ${typeName(list)}`,
        base,
      );
      return { config, diagnostics: ctx.diagnostics };
    }
    if (isRecord(root)) {
      const extra = Object.fromEntries(Object.entries(root).filter(([key]) => key !== 'mcps'));
      for (const key of Object.keys(extra))
        ctx.report('warning', 'unknown-key', `unknown top-level key "${key}" kept as it is`, [key]);
      if (Object.keys(extra).length > 0) config.extra = extra;
    }
    const taken = new Set<string>();
    const items: unknown[] = Array.isArray(list) ? list : [];
    items.forEach((raw, i) => {
      const server = readEntry(raw, [...base, i], ctx, taken);
      if (server !== undefined) config.servers.push(server);
    });
    config.servers = dropBadServerNames(config.servers, ctx);
    return { config, diagnostics: ctx.diagnostics };
  },
};
