/**
 * The foreign dialects by name. The native `mcp-host` format is src/config/native.ts; `dialects`
 * in index.ts holds all six.
 */
import type { ConfigDialect } from '../model.js';
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
