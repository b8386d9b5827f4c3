/**
 * The top level of the `mcpServers` / `servers` family: one object of servers by name, a few
 * dialect keys beside it (VS Code `inputs`), unknown keys kept in `config.extra` with a warning.
 */
import { homedir } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import type { ConfigDialect, McpConfig, ServerConfig } from '../model.js';
import type { GrammarContext } from './grammars.js';
import { closestKey } from '../diagnostics.js';
import { dropBadServerNames, ReadContext, typeName } from './read-context.js';
import { readServerEntry, type EntryRules } from './server-entry.js';
import type { DialectReadOptions, DialectReadResult, DialectDocument } from './types.js';
import { isRecord, type KeyPath } from '../parse.js';

/**
 * What `${workspaceFolder}` and `${userHome}` stand for: the folder holding `.vscode/` or
 * `.cursor/` (not the home folder: `~/.cursor/mcp.json` belongs to no workspace).
 */
export function grammarContextOf(file: string, options: DialectReadOptions = {}): GrammarContext {
  const homeDir = options.homeDir ?? homedir();
  let workspaceFolder = options.workspaceFolder;
  if (workspaceFolder === undefined) {
    const folder = dirname(resolve(file));
    const parent = dirname(folder);
    if (
      (basename(folder) === '.vscode' || basename(folder) === '.cursor') &&
      parent !== resolve(homeDir)
    )
      workspaceFolder = parent;
  }
  return { homeDir, ...(workspaceFolder === undefined ? {} : { workspaceFolder }) };
}

export interface MapDocumentSpec {
  dialect: ConfigDialect;
  /** The key holding the servers. */
  serversKey: 'mcpServers' | 'servers';
  rules: EntryRules;
  /** Other top-level keys the dialect knows. */
  topKeys?: readonly string[];
  readTopKey?(
    key: string,
    value: unknown,
    path: KeyPath,
    config: McpConfig,
    ctx: ReadContext,
  ): void;
}

export function readMapDocument(
  document: DialectDocument,
  file: string,
  options: DialectReadOptions | undefined,
  spec: MapDocumentSpec,
): DialectReadResult {
  const ctx = new ReadContext(file, spec.dialect, document, grammarContextOf(file, options));
  const config: McpConfig = { servers: [], files: [{ file, dialect: spec.dialect }] };
  const root = document.value;
  if (root === undefined || root === null) return { config, diagnostics: ctx.diagnostics };
  if (!isRecord(root)) {
    ctx.report(
      'error',
      'invalid-type',
      `expected an object at the top, found ${typeName(root)}`,
      [],
    );
    return { config, diagnostics: ctx.diagnostics };
  }
  const known = [spec.serversKey, ...(spec.topKeys ?? [])];
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(root)) {
    if (key === spec.serversKey) {
      if (!isRecord(value)) {
        ctx.report(
          'error',
          'invalid-type',
          `"${key}": expected an object of servers by name, found ${typeName(value)}`,
          [key],
        );
        continue;
      }
      const servers: ServerConfig[] = [];
      for (const [name, entry] of Object.entries(value)) {
        const server = readServerEntry(name, entry, [key, name], spec.rules, ctx);
        if (server !== undefined) servers.push(server);
      }
      config.servers = dropBadServerNames(servers, ctx);
    } else if (spec.topKeys?.includes(key)) spec.readTopKey?.(key, value, [key], config, ctx);
    else {
      extra[key] = value;
      const suggestion = closestKey(key, known);
      ctx.report(
        'warning',
        'unknown-key',
        `unknown top-level key "${key}" kept as it is${suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`}`,
        [key],
        undefined,
        suggestion,
      );
    }
  }
  if (Object.keys(extra).length > 0) config.extra = { ...config.extra, ...extra };
  return { config, diagnostics: ctx.diagnostics };
}
