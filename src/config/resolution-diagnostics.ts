/**
 * What running a config would find that reading it cannot: every server resolved as a run
 * resolves it (resolve-config.ts: variables from `env`, env files read, URLs checked after
 * expansion), turned into diagnostics for `mcp-host config validate`. Nothing is started, no
 * input is asked for, and no value is ever put in a message: an unset variable is named, at the
 * `file:line:column` of the field that uses it.
 */
import { readFile } from 'node:fs/promises';
import type { McpHostError } from '../errors/mcp-host-error.js';
import type { FieldPath } from './expand/expand.js';
import type { ConfigDiagnostic, McpConfig, ServerConfig, SourceLocation } from './model.js';
import { formatOfFile, parseConfigText, type ParsedDocument, type TextPosition } from './parse.js';
import { resolveConfig } from './resolve-config.js';

export interface ResolutionDiagnosticsOptions {
  /** The environment a run would read variables from. */
  env: Readonly<Record<string, string | undefined>>;
  /** What a run resolves a relative `cwd` or `envFile` against (see `ResolveOptions.cwd`). */
  cwd?: string;
  /**
   * The files as the loader read and parsed them (`tryLoadConfig`'s `documents`), by absolute
   * path: positions come from these, and a file not in it is read and parsed here.
   */
  documents?: ReadonlyMap<string, { text: string; document: ParsedDocument }>;
}

/**
 * Resolves every server of `config` and reports what would keep each from starting:
 *
 * - each unset variable without a default: an error (`unset-variable`) at the field using it,
 *   naming the variable; a warning for a disabled server (it fails once enabled);
 * - an input with no value in `MCP_HOST_INPUTS`: a warning (`input-required`: a run on a terminal
 *   asks for it);
 * - any other failure (an unreadable env file, a URL that is invalid once expanded): an error at
 *   the server.
 *
 * Resolution warnings (a secret in `args`) are included. Secrets registered while resolving are
 * released before it returns.
 */
export async function resolutionDiagnostics(
  config: McpConfig,
  options: ResolutionDiagnosticsOptions,
): Promise<ConfigDiagnostic[]> {
  const resolved = await resolveConfig(config, {
    env: options.env,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    checkFileModes: false,
  });
  try {
    const documents = new DocumentCache(options.documents);
    const diagnostics: ConfigDiagnostic[] = [];
    for (const server of config.servers) {
      const error = resolved.errors.get(server.name);
      if (error === undefined) continue;
      diagnostics.push(...(await serverDiagnostics(server, error, documents)));
    }
    for (const diagnostic of resolved.diagnostics)
      if (diagnostic.severity === 'warning') diagnostics.push(diagnostic);
    return diagnostics;
  } finally {
    resolved.dispose();
  }
}

async function serverDiagnostics(
  server: ServerConfig,
  error: McpHostError,
  documents: DocumentCache,
): Promise<ConfigDiagnostic[]> {
  const severity = server.enabled ? 'error' : 'warning';
  const disabled = server.enabled ? '' : ' (the server is disabled: it fails once enabled)';
  const unset = unsetReferences(error);
  if (error.code === 'CONFIG_VARIABLE_UNSET' && unset.length > 0) {
    const document = await documents.get(server.source);
    return unset.map(({ variable, field }) => ({
      severity,
      kind: 'unset-variable',
      message: `variable ${variable} is not set (and has no default)${disabled}`,
      server: server.name,
      location: fieldLocation(server.source, field, variable, document),
    }));
  }
  return [
    {
      severity: error.code === 'CONFIG_INPUT_REQUIRED' ? 'warning' : severity,
      kind: error.code === 'CONFIG_INPUT_REQUIRED' ? 'input-required' : 'invalid-value',
      // The message names the place itself (`not started: file:line:col: key.path: ...`).
      message: `${error.message}${disabled}`,
      server: server.name,
    },
  ];
}

function unsetReferences(error: McpHostError): { variable: string; field: FieldPath }[] {
  const unset = error.details?.unset;
  if (!Array.isArray(unset)) return [];
  return unset.filter(
    (item): item is { variable: string; field: FieldPath } =>
      typeof (item as { variable?: unknown }).variable === 'string' &&
      Array.isArray((item as { field?: unknown }).field),
  );
}

/**
 * Where a field that uses `variable` was written: at the reference itself when it is on the
 * value's line, else at the value, else (a field a foreign dialect spells otherwise) the server.
 */
function fieldLocation(
  source: SourceLocation,
  field: FieldPath,
  variable: string,
  document: { parsed: ParsedDocument; lines: string[] } | undefined,
): SourceLocation {
  const path = [...source.path, ...field];
  const at = document?.parsed.locate(path);
  if (document === undefined || at === undefined) return { ...source, path };
  return { ...source, path, ...referenceColumn(document.lines, at, variable) };
}

function referenceColumn(lines: readonly string[], at: TextPosition, variable: string) {
  const line = lines[at.line - 1] ?? '';
  const reference = new RegExp(`\\$\\{(?:env:)?${variable}(?![A-Za-z0-9_])`, 'g');
  reference.lastIndex = Math.max(0, at.column - 1);
  const found = reference.exec(line);
  return { line: at.line, column: found === null ? at.column : found.index + 1 };
}

/**
 * Each config file read and parsed once, for its positions (undefined when unreadable): the
 * loader's documents when given, else read here.
 */
class DocumentCache {
  readonly #documents = new Map<
    string,
    Promise<{ parsed: ParsedDocument; lines: string[] } | undefined>
  >();

  constructor(loaded?: ReadonlyMap<string, { text: string; document: ParsedDocument }>) {
    for (const [file, { text, document }] of loaded ?? [])
      this.#documents.set(file, Promise.resolve({ parsed: document, lines: text.split(/\r?\n/) }));
  }

  get(source: SourceLocation): Promise<{ parsed: ParsedDocument; lines: string[] } | undefined> {
    let document = this.#documents.get(source.file);
    if (document === undefined) {
      document = readFile(source.file, 'utf8').then(
        (text) => ({
          // Only for positions: JSON read leniently (a foreign dialect's file may have comments).
          parsed: parseConfigText(
            text,
            source.file,
            formatOfFile(source.file) === 'yaml' ? 'yaml' : 'jsonc',
            source.dialect,
          ),
          lines: text.split(/\r?\n/),
        }),
        () => undefined,
      );
      this.#documents.set(source.file, document);
    }
    return document;
  }
}
