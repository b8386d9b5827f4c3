/**
 * Which dialect a file is written in: by its name first, then by its shape, unless the caller
 * says (`override`, e.g. `--dialect vscode`).
 *
 * Names: `claude_desktop_config.json` → claude-desktop; `.mcp.json` → claude-code; `mcp.json` in a
 * `.vscode` folder → vscode; `mcp.json` in a `.cursor` folder → cursor; `mcp.yaml` / `mcp.yml` →
 * mcp-host. Shape (any other name, e.g. a VS Code user-profile `mcp.json` or a native
 * `mcp.json`): a top-level `mcps` list (or a list at the top) → crewai; `servers` with `inputs`,
 * or with VS Code variables (`${env:…}`, `${input:…}`) → vscode; other `servers` → mcp-host;
 * `mcpServers` with Cursor's `auth`/`envFile` or `${env:…}` → cursor, with a `type`, a `url` or a
 * `${…}` → claude-code, else claude-desktop (stdio only, no variables).
 */
import type { ConfigDialect } from '../model.js';
import { isRecord } from '../parse.js';

export function detectDialect(
  file: string,
  value: unknown,
  override?: ConfigDialect,
): ConfigDialect {
  if (override !== undefined) return override;
  // Both separators, so a Windows path is named right on any platform.
  const segments = file.toLowerCase().split(/[\\/]/);
  const name = segments.at(-1) ?? '';
  const folder = segments.at(-2) ?? '';
  if (name === 'claude_desktop_config.json') return 'claude-desktop';
  if (name === '.mcp.json') return 'claude-code';
  if (name === 'mcp.json' && folder === '.vscode') return 'vscode';
  if (name === 'mcp.json' && folder === '.cursor') return 'cursor';
  if (name === 'mcp.yaml' || name === 'mcp.yml') return 'mcp-host';
  return detectByShape(value);
}

export function detectByShape(value: unknown): ConfigDialect {
  if (Array.isArray(value) || (isRecord(value) && Array.isArray(value.mcps))) return 'crewai';
  if (!isRecord(value)) return 'mcp-host';
  const text = JSON.stringify(value);
  if (isRecord(value.servers) && value.mcpServers === undefined) {
    if (Array.isArray(value.inputs) || /\$\{(?:env|input):/.test(text)) return 'vscode';
    return 'mcp-host';
  }
  if (isRecord(value.mcpServers)) {
    const entries = Object.values(value.mcpServers).filter(isRecord);
    if (
      /\$\{env:/.test(text) ||
      entries.some((e) => e.auth !== undefined || e.envFile !== undefined)
    )
      return 'cursor';
    if (/\$\{/.test(text) || entries.some((e) => e.type !== undefined || e.url !== undefined))
      return 'claude-code';
    return 'claude-desktop';
  }
  return 'mcp-host';
}
