/**
 * The writer of a JSON dialect whose file is `{ "mcpServers": { name: entry } }` plus top-level
 * keys (Claude Code, Cursor): the entries by the dialect's rules, then what the dialect cannot
 * say at the top level, as diagnostics.
 */
import type { ConfigDiagnostic, McpConfig } from '../model.js';
import {
  toJsonText,
  writeServerMap,
  writeTopLevel,
  type EntryWriteRules,
} from './server-writer.js';

/** `config` as an `mcpServers` JSON file of the dialect `rules` describe. */
export function writeMcpServersJson(
  config: McpConfig,
  rules: EntryWriteRules,
): { text: string; diagnostics: ConfigDiagnostic[] } {
  const diagnostics: ConfigDiagnostic[] = [];
  const out: Record<string, unknown> = {
    mcpServers: writeServerMap(config, rules, diagnostics),
  };
  writeTopLevel(config, rules.dialect, rules.label, out, diagnostics);
  return { text: toJsonText(out), diagnostics };
}
