/**
 * Loading: read each config file in its dialect (native or foreign, detected by name and shape
 * unless told), then merge them in order into one `McpConfig` (see docs/config.md, "Loading").
 *
 * Merge rules, in file order (the order given, or discovery order: user, then project):
 * - **servers**: a later file's server replaces an earlier one of the same name, whole (no
 *   key-by-key merge), keeping the earlier one's place in the list, with a `duplicate-server`
 *   warning naming both places; `duplicates: 'error'` makes it an error that fails that server
 *   instead. A server that a later file gets wrong fails: the earlier definition is not used
 *   in its place. Each server keeps `source`, the file it came from.
 * - **defaults**: per setting; the objects (`timeouts`, `restart`, `health`, `naming`) key by key.
 * - **inputs**: by `id`, the later one wins. **extra**: per top-level key, the later one wins.
 * - **views**: by name, the later one wins whole. A view naming a server no file defines is an
 *   error of the file that wrote it (`views.<name>.servers[i]`).
 * - **roots**: one list in file order; a root pointing where an earlier one does is dropped.
 * - **gateway**: the later file's `gateway:` wins whole. A view it offers that no file defines is
 *   an error of the file that wrote it (`gateway.views[i]`).
 * - **api**: the later file's `api:` wins whole.
 * - **state**: the later file's `state:` wins whole.
 *
 * File-level problems (unreadable file, syntax error, invalid top level, defaults or inputs) make
 * `loadConfig` throw a `ConfigError` with every diagnostic; `tryLoadConfig` returns them with
 * `config: undefined` instead. A problem inside one server only leaves that server out.
 */
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { configServerKeyProblems } from './server-key-problems.js';
import { closestKey, ConfigError, formatLocation, isFileLevelError } from './diagnostics.js';
import { detectDialect } from './dialects/detect.js';
import { foreignReaders } from './dialects/readers/foreign-readers.js';
import { readDialectText } from './dialects/readers/read-dialect-text.js';
import type { DialectReadOptions } from './dialects/types.js';
import { discoverConfigFiles, type ConfigFileSpec, type Env } from './discover.js';
import type {
  ConfigDiagnostic,
  ConfigDialect,
  ApiConfig,
  StateConfig,
  GatewayConfig,
  HostDefaultsConfig,
  InputConfig,
  McpConfig,
  RootConfig,
  ServerConfig,
  ViewConfig,
} from './model.js';
import { uniqueRoots } from './resolve-roots.js';
import { formatOfFile, parseConfigText, type ParsedDocument } from './parse.js';

export interface LoadConfigOptions extends DialectReadOptions {
  /**
   * The files, in merge order (relative to `cwd`); each a path or `{ path, dialect }`. Without
   * it the default locations are searched (`discoverConfigFiles`).
   */
  files?: readonly (string | ConfigFileSpec)[];
  /** Where relative paths and the project files are (default `process.cwd()`). */
  cwd?: string;
  /** The environment for finding the user config directory (default `process.env`). Not expanded here. */
  env?: Env;
  /** The dialect of every file, instead of detecting it (a file's own `dialect` wins). */
  dialect?: ConfigDialect;
  /** Two files defining the same server: the later replaces the earlier (default), or an error. */
  duplicates?: 'override' | 'error';
  /** A larger file is refused unread (default `MAX_CONFIG_FILE_BYTES`, 4 MiB). */
  maxFileBytes?: number;
}

/** The largest config file read by default: far beyond any real one, small enough to hold. */
export const MAX_CONFIG_FILE_BYTES = 4 * 1024 * 1024;

export interface LoadConfigResult {
  config: McpConfig;
  diagnostics: ConfigDiagnostic[];
}

export interface ReadConfigResult extends LoadConfigResult {
  dialect: ConfigDialect;
  /** The parsed text (for positions), when the file was read. */
  document?: ParsedDocument;
}

/** A file `tryLoadConfig` read: its text and its parsed document (reused for positions). */
export interface LoadedDocument {
  text: string;
  document: ParsedDocument;
}

/**
 * Reads and merges config files. Throws `ConfigError` (CONFIG_INVALID) when a file cannot be used;
 * per-server problems are in `diagnostics` (that server is left out).
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadConfigResult> {
  const { config, diagnostics } = await tryLoadConfig(options);
  if (config === undefined) throw new ConfigError(diagnostics);
  return { config, diagnostics };
}

/**
 * `loadConfig` without the throw: `config` is undefined when a file-level error was found.
 * `documents` holds each file read, parsed once, by absolute path (for positions).
 */
export async function tryLoadConfig(options: LoadConfigOptions = {}): Promise<{
  config: McpConfig | undefined;
  diagnostics: ConfigDiagnostic[];
  documents: Map<string, LoadedDocument>;
}> {
  const cwd = options.cwd ?? process.cwd();
  const specs =
    options.files?.map((file) => (typeof file === 'string' ? { path: file } : file)) ??
    (await discoverConfigFiles(cwd, options.env ?? process.env));
  const results: ReadConfigResult[] = [];
  const documents = new Map<string, LoadedDocument>();
  for (const spec of specs) {
    const file = resolve(cwd, spec.path);
    const dialect = spec.dialect ?? options.dialect;
    let text: string;
    try {
      text = await readBounded(file, options.maxFileBytes ?? MAX_CONFIG_FILE_BYTES);
    } catch (error) {
      results.push(unreadable(file, dialect ?? 'mcp-host', error));
      continue;
    }
    const read = await loadConfigText(text, file, { ...options, dialect });
    if (read.document !== undefined) documents.set(file, { text, document: read.document });
    results.push(read);
  }
  const merged = mergeConfigs(results, options);
  if (merged.diagnostics.some(isFileLevelError))
    return { config: undefined, diagnostics: merged.diagnostics, documents };
  return { ...merged, documents };
}

/**
 * One file's text in any dialect (detected by name and shape unless `dialect` says), as
 * `readConfigText` does, without loading any writer: the native reader is imported only for a
 * native file.
 */
export async function loadConfigText(
  text: string,
  file: string,
  options: DialectReadOptions & { dialect?: ConfigDialect | undefined } = {},
): Promise<ReadConfigResult> {
  const { dialect: override, ...readOptions } = options;
  const { dialect, own } = detectText(text, file, override);
  if (dialect === 'mcp-host') {
    const { readNativeConfig } = await import('./native/native-read.js');
    const document = own ?? parseConfigText(text, file, formatOfFile(file), 'mcp-host');
    return { dialect, ...readNativeConfig(document, file), document };
  }
  return { dialect, ...readDialectText(foreignReaders[dialect], text, file, readOptions) };
}

/** The dialect of a file's text, detected by its name and shape. */
export function dialectOfText(text: string, file: string): ConfigDialect {
  return detectText(text, file).dialect;
}

/**
 * The dialect of a file's text (`override` when given), and, when it had to be detected, the text
 * parsed in the file's own syntax (a native file's document: not parsed again). Only a .json file
 * with syntax errors (another tool's JSON with comments) is read again, leniently, to detect.
 */
export function detectText(
  text: string,
  file: string,
  override?: ConfigDialect,
): { dialect: ConfigDialect; own?: ParsedDocument } {
  if (override !== undefined) return { dialect: override };
  const format = formatOfFile(file);
  const own = parseConfigText(text, file, format);
  const probe =
    format === 'json' && own.diagnostics.length > 0 ? parseConfigText(text, file, 'jsonc') : own;
  return { dialect: detectDialect(file, probe.value), own };
}

class FileTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`larger than ${limit} bytes`);
  }
}

/** The file's text, refused unread when it is larger than `limit` bytes (a stray log, a device). */
async function readBounded(file: string, limit: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    if (info.size > limit) throw new FileTooLarge(limit);
    // Read in chunks, whatever stat said: a file that grows (or a FIFO with no size) is caught too.
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > limit) throw new FileTooLarge(limit);
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, length).toString('utf8');
  } finally {
    await handle.close();
  }
}

function unreadable(file: string, dialect: ConfigDialect, error: unknown): ReadConfigResult {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason =
    error instanceof FileTooLarge
      ? `it is ${error.message}`
      : code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a directory'
            : (code ?? 'read failed');
  return {
    dialect,
    config: { servers: [], files: [{ file, dialect }] },
    diagnostics: [
      {
        severity: 'error',
        kind: 'file-unreadable',
        message: `cannot read the config file: ${reason}`,
        location: { file, dialect, path: [] },
      },
    ],
  };
}

/** Merges configs read from files, in order (see the module comment for the rules). */
export function mergeConfigs(
  parts: readonly { config: McpConfig; diagnostics: readonly ConfigDiagnostic[] }[],
  options: { duplicates?: 'override' | 'error' } = {},
): LoadConfigResult {
  const diagnostics: ConfigDiagnostic[] = [];
  const servers = new Map<string, ServerConfig>();
  const poisoned = new Set<string>();
  const inputs = new Map<string, InputConfig>();
  let defaults: HostDefaultsConfig | undefined;
  let extra: Record<string, unknown> | undefined;
  const views = new Map<string, ViewConfig>();
  const roots: RootConfig[] = [];
  let gateway: GatewayConfig | undefined;
  let api: ApiConfig | undefined;
  let state: StateConfig | undefined;
  const files: McpConfig['files'] = [];

  for (const { config, diagnostics: own } of parts) {
    diagnostics.push(...own);
    files.push(...config.files);
    // A server this file gets wrong does not fall back to an earlier file's definition.
    for (const d of own)
      if (d.severity === 'error' && d.server !== undefined) servers.delete(d.server);
    for (const server of config.servers) {
      if (poisoned.has(server.name)) continue;
      const earlier = servers.get(server.name);
      if (earlier !== undefined) {
        const where = formatLocation({
          severity: 'warning',
          kind: '',
          message: '',
          location: earlier.source,
        });
        if (options.duplicates === 'error') {
          diagnostics.push({
            severity: 'error',
            kind: 'duplicate-server',
            message: `the server '${server.name}' is also defined at ${where}`,
            server: server.name,
            location: server.source,
          });
          servers.delete(server.name);
          poisoned.add(server.name);
          continue;
        }
        diagnostics.push({
          severity: 'warning',
          kind: 'duplicate-server',
          message: `replaces the server '${server.name}' defined at ${where}`,
          server: server.name,
          location: server.source,
        });
      }
      servers.set(server.name, server);
    }
    if (config.defaults !== undefined) defaults = mergeDefaults(defaults, config.defaults);
    for (const input of config.inputs ?? []) inputs.set(input.id, input);
    for (const [name, view] of Object.entries(config.views ?? {})) views.set(name, view);
    roots.push(...(config.roots ?? []));
    if (config.gateway !== undefined) gateway = config.gateway;
    if (config.api !== undefined) api = config.api;
    if (config.state !== undefined) state = config.state;
    if (config.extra !== undefined) extra = { ...extra, ...config.extra };
  }

  const merged: McpConfig = { servers: [...servers.values()], files };
  if (defaults !== undefined) merged.defaults = defaults;
  if (inputs.size > 0) merged.inputs = [...inputs.values()];
  if (extra !== undefined) merged.extra = extra;
  if (roots.length > 0) merged.roots = uniqueRoots(roots);
  if (views.size > 0) {
    // A server that failed to read is still defined: only names no file has are unknown.
    const defined = new Set(servers.keys());
    for (const d of diagnostics) if (d.server !== undefined) defined.add(d.server);
    merged.views = Object.fromEntries(views);
    for (const [name, view] of views) diagnostics.push(...unknownViewServers(name, view, defined));
  }
  if (api !== undefined) merged.api = api;
  if (state !== undefined) merged.state = state;
  if (gateway !== undefined) {
    merged.gateway = gateway;
    diagnostics.push(...unknownGatewayViews(gateway, new Set(views.keys())));
  }

  // Names that clash only once servers of several files are together (`a.b` and `a_b`).
  let problems: ReturnType<typeof configServerKeyProblems> = [];
  try {
    problems = configServerKeyProblems(servers.keys(), merged.defaults?.naming);
  } catch {
    // Invalid naming options were reported where they were read.
  }
  for (const problem of problems) {
    const server = servers.get(problem.server);
    if (server === undefined) continue;
    const known = diagnostics.some(
      (d) => d.kind === 'invalid-server-name' && d.server === problem.server,
    );
    if (!known)
      diagnostics.push({
        severity: 'error',
        kind: 'invalid-server-name',
        message: problem.message,
        server: problem.server,
        location: server.source,
      });
    merged.servers = merged.servers.filter((s) => s.name !== problem.server);
  }
  return { config: merged, diagnostics };
}

/** An error per entry of a view's `servers` that names no server of the config. */
function unknownViewServers(
  name: string,
  view: ViewConfig,
  defined: ReadonlySet<string>,
): ConfigDiagnostic[] {
  const problems: ConfigDiagnostic[] = [];
  (view.servers ?? []).forEach((server, index) => {
    if (defined.has(server)) return;
    const suggestion = closestKey(server, defined);
    problems.push({
      severity: 'error',
      kind: 'unknown-server',
      message: `the view '${name}' names the server '${server}', which no config file defines`,
      location: { ...view.source, path: [...view.source.path, 'servers', index] },
      ...(suggestion === undefined ? {} : { suggestion }),
    });
  });
  return problems;
}

/** An error per entry of `gateway.views` that names no view of the config. */
function unknownGatewayViews(
  gateway: GatewayConfig,
  defined: ReadonlySet<string>,
): ConfigDiagnostic[] {
  const problems: ConfigDiagnostic[] = [];
  (gateway.views ?? []).forEach((view, index) => {
    if (defined.has(view)) return;
    const suggestion = closestKey(view, defined);
    problems.push({
      severity: 'error',
      kind: 'unknown-view',
      message: `the gateway offers the view '${view}', which no config file defines under \`views:\``,
      location: { ...gateway.source, path: [...gateway.source.path, 'views', index] },
      ...(suggestion === undefined ? {} : { suggestion }),
    });
  });
  for (const [name, client] of Object.entries(gateway.clients ?? {})) {
    if (client.view === undefined || defined.has(client.view)) continue;
    const suggestion = closestKey(client.view, defined);
    problems.push({
      severity: 'error',
      kind: 'unknown-view',
      message: `the gateway client '${name}' is served the view '${client.view}', which no config file defines under \`views:\``,
      location: { ...gateway.source, path: [...gateway.source.path, 'clients', name, 'view'] },
      ...(suggestion === undefined ? {} : { suggestion }),
    });
  }
  return problems;
}

const NESTED_DEFAULTS = ['timeouts', 'restart', 'health', 'naming'] as const;

function mergeDefaults(
  earlier: HostDefaultsConfig | undefined,
  later: HostDefaultsConfig,
): HostDefaultsConfig {
  const result: HostDefaultsConfig = { ...earlier, ...later };
  for (const key of NESTED_DEFAULTS) {
    const a = earlier?.[key];
    const b = later[key];
    if (a !== undefined && b !== undefined)
      (result as Record<string, unknown>)[key] = { ...a, ...b };
  }
  const retryA = earlier?.retry;
  const retryB = later.retry;
  if (typeof retryA === 'object' && typeof retryB === 'object')
    result.retry = { ...retryA, ...retryB };
  return result;
}
