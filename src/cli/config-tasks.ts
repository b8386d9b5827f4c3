/**
 * The work behind `mcp-host config validate|show|import|print`, as functions from options to data
 * (the command group in commands/config.ts prints them). Nothing here prints or exits.
 */
import { access } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { formatDiagnostic } from '../config/diagnostics.js';
import { discoverConfigFiles } from '../config/discover.js';
import { importConfig } from '../config/dialects/import-config.js';
import { dialects, type ForeignDialect } from '../config/dialects/registry.js';
import { tryLoadConfig } from '../config/load.js';
import type { ConfigDiagnostic, ConfigDialect, McpConfig } from '../config/model.js';
import { writeNativeConfig } from '../config/native/native-write.js';
import { fileModeDiagnostics, maskConfig } from '../config/expand/secrets.js';
import { resolutionDiagnostics } from '../config/resolution-diagnostics.js';
import { writeConfigFile } from '../config/write-config-file.js';
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
  const { config, diagnostics } = await tryLoadConfig({
    files: specs,
    cwd,
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  const all = [...diagnostics];
  if (config !== undefined) {
    all.push(...(await fileModeDiagnostics(config)));
    all.push(...(await resolutionDiagnostics(config, { env: options.env ?? process.env, cwd })));
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

export interface ImportResult {
  from: ConfigDialect;
  source: string;
  /** Where it was written (undefined with `dryRun`). */
  written?: string;
  /** The old file's copy, when there was one. */
  backup?: string;
  servers: string[];
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
  const imported = await importConfig(source, { dialect: options.from, format });
  const shown =
    options.reveal === true
      ? imported.text
      : writeNativeConfig(maskConfig(imported.config), { format }).text;
  const result: ImportResult = {
    from: imported.dialect,
    source,
    servers: imported.config.servers.map((s) => s.name),
    diagnostics: imported.diagnostics.map(toCliDiagnostic),
    text: shown,
    masked: shown !== imported.text,
  };
  if (options.dryRun === true) return result;
  const out = resolve(cwd, options.out ?? (format === 'json' ? 'mcp.json' : 'mcp.yaml'));
  const written = await writeConfigFile(out, imported.text, { backup: 'bak' });
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
): { dialect: ConfigDialect; text: string; masked: boolean; diagnostics: CliDiagnostic[] } {
  const written = dialects[dialect].write(config);
  if (options.reveal === true)
    return {
      dialect,
      text: written.text,
      masked: false,
      diagnostics: written.diagnostics.map(toCliDiagnostic),
    };
  const text = dialects[dialect].write(maskConfig(config)).text;
  return {
    dialect,
    text,
    masked: text !== written.text,
    diagnostics: written.diagnostics.map(toCliDiagnostic),
  };
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
