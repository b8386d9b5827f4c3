/**
 * Each foreign dialect's reader, loaded when a file in that dialect is read: loading a config
 * then costs its own dialect's reading code only, not the other dialects nor any writer (the
 * command line reads a file on every run; `registry.ts` holds every dialect module, readers and
 * writers, for the library's API and for the commands that write).
 */
import type { ForeignDialect } from '../registry.js';
import type { DialectReader } from '../types.js';

export async function loadDialectReader(dialect: ForeignDialect): Promise<DialectReader> {
  switch (dialect) {
    case 'claude-desktop':
      return (await import('./claude-desktop-reader.js')).claudeDesktopReader;
    case 'claude-code':
      return (await import('./claude-code-reader.js')).claudeCodeReader;
    case 'vscode':
      return (await import('./vscode-reader.js')).vscodeReader;
    case 'cursor':
      return (await import('./cursor-reader.js')).cursorReader;
    case 'crewai':
      return (await import('./crewai-reader.js')).crewaiReader;
  }
}
