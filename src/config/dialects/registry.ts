/**
 * The dialects by name: the five foreign ones (this folder) and, in `dialects`, the native
 * `mcp-host` format too (src/config/native/native.ts).
 */
import type { ConfigDialect } from '../model.js';
import { nativeDialect } from '../native/native.js';
import { claudeCode } from './claude-code.js';
import { claudeDesktop } from './claude-desktop.js';
import { crewai } from './crewai.js';
import { cursor } from './cursor.js';
import type { DialectModule } from './types.js';
import { vscode } from './vscode.js';

export type ForeignDialect = Exclude<ConfigDialect, 'mcp-host'>;

export const foreignDialects: Readonly<Record<ForeignDialect, DialectModule>> = {
  'claude-desktop': claudeDesktop,
  'claude-code': claudeCode,
  vscode,
  cursor,
  crewai,
};

export function isForeignDialect(dialect: ConfigDialect): dialect is ForeignDialect {
  return dialect !== 'mcp-host';
}

/** Every dialect, the native one included. */
export const dialects: Readonly<Record<ConfigDialect, DialectModule>> = {
  'mcp-host': nativeDialect,
  ...foreignDialects,
};
