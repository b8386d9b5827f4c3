/**
 * The work behind `mcp-host config validate|show|import|print`, as functions from options to data
 * (the command group in commands/config.ts prints them). Nothing here prints or exits.
 */
import { access, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { formatDiagnostic } from '../config/diagnostics.js';
import { discoverConfigFiles } from '../config/discover.js';
import { importConfigText } from '../config/dialects/import-config.js';
import { dialects, type ForeignDialect } from '../config/dialects/registry.js';
import { dialectOfText, tryLoadConfig } from '../config/load.js';
import type { ConfigDiagnostic, ConfigDialect, McpConfig } from '../config/model.js';
import { writeNativeConfig } from '../config/native/native-write.js';
import { fileModeDiagnostics, maskConfig } from '../config/expand/secrets.js';
import { resolutionDiagnostics } from '../config/resolution-diagnostics.js';
import { writeConfigFile } from '../config/write-config-file.js';
import { withoutServerName } from '../errors/mcp-host-error.js';
import { redact } from '../errors/redact.js';

/** A diagnostic as the CLI shows it: masked, flat, with `file:line:col` in `text`. */
export interface CliDiagnostic {
  severity: 'error' | 'warning';
  kind: string;
  message: string;
  server?: string;
  file?: string;
  line?: number;
  column?: number;
  path?: string;
  /** `file:line:col: severity: key.path: message` (formatDiagnostic, masked). */
  text: string;
}

export function toCliDiagnostic(d: ConfigDiagnostic): CliDiagnostic {
  const loc = d.location;
  return {
    severity: d.severity,
    kind: d.kind,
    message: redact(d.message),
    ...(d.server === undefined ? {} : { server: d.server }),
    ...(loc === undefined ? {} : { file: loc.file }),
    ...(loc?.line === undefined ? {} : { line: loc.line }),
    ...(loc?.column === undefined ? {} : { column: loc.column }),
    ...(loc === undefined || loc.path.length === 0 ? {} : { path: loc.path.join('.') }),
    text: redact(formatDiagnostic(d)),
  };
}

export interface ValidateResult {
  files: string[];
  /** The servers that loaded. */
  servers: string[];
  diagnostics: CliDiagnostic[];
  errors: number;
  warnings: number;
  /** False when there is an error (exit 1). */
  valid: boolean;
}

/**
 * Loads `files` (or the discovered ones) as the host would and reports every diagnostic, with
 * the file-mode check (world-readable files holding literal secrets) on top, then resolves the
 * servers as a run would (`env`: unset variables, unreadable env files; nothing is started).
 */
export async function validateConfig(
  files: readonly string[],
  options: { cwd?: string; env?: Readonly<Record<string, string | undefined>> } = {},
): Promise<ValidateResult> {
  const cwd = options.cwd ?? process.cwd();
  const specs =
    files.length > 0
      ? files.map((path) => ({ path }))
      : await discoverConfigFiles(cwd, options.env ?? process.env);
  const { config, diagnostics, documents } = await tryLoadConfig({
    files: specs,
    cwd,
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  const all = [...diagnostics];
  if (config !== undefined) {
    all.push(...(await fileModeDiagnostics(config)));
    // Relative `cwd` and `envFile` against each server's config file, as a run resolves them;
    // positions of unset variables from the documents the load parsed: each file once.
    all.push(
      ...(await resolutionDiagnostics(config, {
        env: options.env ?? process.env,
        documents,
      })),
    );
  }
  const list = all.map(toCliDiagnostic);
  const errors = list.filter((d) => d.severity === 'error').length;
  return {
    files: specs.map((s) => resolve(cwd, s.path)),
    servers: config?.servers.map((s) => s.name) ?? [],
    diagnostics: list,
    errors,
    warnings: list.length - errors,
    valid: errors === 0 && specs.length > 0,
  };
}

/** The merged config as `mcp.yaml` text (or the model for JSON), secrets masked unless `reveal`. */
export function showConfig(
  config: McpConfig,
  options: { reveal?: boolean } = {},
): { config: McpConfig; text: string } {
  const masked = maskConfig(config, { reveal: options.reveal === true });
  return { config: masked, text: writeNativeConfig(masked, { format: 'yaml' }).text };
}

/** Where each tool keeps its config by default (the first that exists is imported). */
export function defaultImportPaths(
  dialect: ForeignDialect,
  cwd: string = process.cwd(),
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
): string[] {
  const home = env.HOME ?? env.USERPROFILE ?? homedir();
  switch (dialect) {
    case 'claude-desktop':
      if (platform === 'darwin')
        return [
          join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json'),
        ];
      if (platform === 'win32')
        return [
          join(
            env.APPDATA ?? join(home, 'AppData', 'Roaming'),
            'Claude',
            'claude_desktop_config.json',
          ),
        ];
      return [
        join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'Claude', 'claude_desktop_config.json'),
      ];
    case 'claude-code':
      return [join(cwd, '.mcp.json')];
    case 'vscode':
      return [join(cwd, '.vscode', 'mcp.json')];
    case 'cursor':
      return [join(cwd, '.cursor', 'mcp.json'), join(home, '.cursor', 'mcp.json')];
    case 'crewai':
      return [join(cwd, 'crewai.yaml')];
  }
}

/** A server a conversion left out, and why (its error diagnostic, without the server's name). */
export interface DroppedServer {
  server: string;
  reason: string;
}

/** The servers that an error diagnostic left out of `kept` (each once, the first reason). */
function droppedServers(
  diagnostics: readonly CliDiagnostic[],
  kept: readonly string[],
): DroppedServer[] {
  const dropped = new Map<string, string>();
  for (const d of diagnostics)
    if (d.severity === 'error' && d.server !== undefined && !kept.includes(d.server))
      if (!dropped.has(d.server))
        dropped.set(
          d.server,
          withoutServerName(d.server, d.message).replace(/ \(server left out\)$/, ''),
        );
  return [...dropped].map(([server, reason]) => ({ server, reason }));
}

/** `2 servers left out[ of <what>]: a (why), b (why)`. */
export function describeDropped(dropped: readonly DroppedServer[], of?: string): string {
  const list = dropped.map((d) => `${d.server} (${d.reason})`).join(', ');
  const count = `${dropped.length} server${dropped.length === 1 ? '' : 's'}`;
  return `${count} left out${of === undefined ? '' : ` of ${of}`}: ${list}`;
}

export interface ImportResult {
  from: ConfigDialect;
  source: string;
  /**
   * Where it was written: undefined with `dryRun`, and when servers were left out without
   * `allowPartial` (nothing is written then).
   */
  written?: string;
  /** The old file's copy, when there was one (never replaced: `mcp.yaml.bak`, then `.bak.1`, …). */
  backup?: string;
  servers: string[];
  /** Servers of the file that were left out, and why. */
  dropped: DroppedServer[];
  diagnostics: CliDiagnostic[];
  /** The native text (printed with `dryRun`), secrets masked unless `reveal`. */
  text: string;
  /** Whether `text` had secrets masked. */
  masked: boolean;
}

/** Reads another tool's file and writes it as `mcp.yaml` (after a backup), or only returns it. */
export async function importConfigFile(options: {
  from: ForeignDialect;
  file?: string;
  out?: string;
  dryRun?: boolean;
  format?: 'yaml' | 'json';
  /** Return `text` with secrets as written (the file written always has them). */
  reveal?: boolean;
  /** Write the servers that were read although others were left out. */
  allowPartial?: boolean;
  cwd?: string;
  env?: Readonly<Record<string, string | undefined>>;
}): Promise<ImportResult> {
  const cwd = options.cwd ?? process.cwd();
  let source: string;
  if (options.file !== undefined) source = resolve(cwd, options.file);
  else {
    const candidates = defaultImportPaths(options.from, cwd, options.env);
    const found = await firstExisting(candidates);
    if (found === undefined)
      throw new Error(
        `no ${options.from} config found (looked in ${candidates.join(', ')}); give the file`,
      );
    source = found;
  }
  const format = options.format ?? 'yaml';
  const sourceText = await readFile(source, 'utf8');
  const imported = importConfigText(sourceText, source, { dialect: options.from, format });
  if (imported.config.servers.length === 0 && sourceText.trim() !== '') {
    const looksLike = dialectOfText(sourceText, source);
    if (looksLike !== options.from || imported.diagnostics.some((d) => d.severity === 'error'))
      throw new Error(
        `read no server from ${source} as ${options.from}${looksLike === options.from ? ' (see the errors above)' : looksLike === 'mcp-host' ? '; it looks like a native mcp-host file: use it as it is' : `; it looks like ${looksLike}: try --from ${looksLike}`}; nothing written`,
      );
  }
  const shown =
    options.reveal === true
      ? imported.text
      : writeNativeConfig(maskConfig(imported.config), { format }).text;
  const servers = imported.config.servers.map((s) => s.name);
  const diagnostics = imported.diagnostics.map(toCliDiagnostic);
  const result: ImportResult = {
    from: imported.dialect,
    source,
    servers,
    dropped: droppedServers(diagnostics, servers),
    diagnostics,
    text: shown,
    masked: shown !== imported.text,
  };
  if (options.dryRun === true) return result;
  if (result.dropped.length > 0 && options.allowPartial !== true) return result;
  const out = resolve(cwd, options.out ?? (format === 'json' ? 'mcp.json' : 'mcp.yaml'));
  const written = await writeConfigFile(out, imported.text);
  return {
    ...result,
    written: out,
    ...(written.backupFile === undefined ? {} : { backup: written.backupFile }),
  };
}

/**
 * The merged config in another tool's dialect, secrets masked unless `reveal` (`masked` says
 * whether anything was: such a text is for reading, not for use).
 */
export function printConfigFor(
  config: McpConfig,
  dialect: ConfigDialect,
  options: { reveal?: boolean } = {},
): PrintResult {
  const written = dialects[dialect].write(config);
  const diagnostics = written.diagnostics.map(toCliDiagnostic);
  const kept = config.servers.map((s) => s.name);
  const dropped = droppedServers(diagnostics, []).filter((d) => kept.includes(d.server));
  if (options.reveal === true)
    return { dialect, text: written.text, masked: false, dropped, diagnostics };
  const text = dialects[dialect].write(maskConfig(config)).text;
  return { dialect, text, masked: text !== written.text, dropped, diagnostics };
}

export interface PrintResult {
  dialect: ConfigDialect;
  text: string;
  masked: boolean;
  /** The servers the dialect cannot hold, and why. */
  dropped: DroppedServer[];
  diagnostics: CliDiagnostic[];
}

async function firstExisting(paths: readonly string[]): Promise<string | undefined> {
  for (const path of paths) {
    try {
      await access(path);
      return path;
    } catch {
      // next
    }
  }
  return undefined;
}
