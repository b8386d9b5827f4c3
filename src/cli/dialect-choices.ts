/**
 * The dialect names `config import --from` and `config print --for` accept, written out so that
 * registering the commands loads no dialect (dialect-choices.test.ts pins them to the registry).
 */
import type { ConfigDialect } from '../config/model.js';
import type { ForeignDialect } from '../config/dialects/registry.js';

/** The dialects a config can be imported from: every foreign one. */
export const importDialects: ForeignDialect[] = [
  'claude-desktop',
  'claude-code',
  'vscode',
  'cursor',
  'crewai',
];

/** The dialects a config can be printed in: the native one, then every foreign one. */
export const printDialects: ConfigDialect[] = ['mcp-host', ...importDialects];
