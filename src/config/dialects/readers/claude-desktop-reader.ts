/** Reads Claude Desktop's `claude_desktop_config.json` (see ../claude-desktop.ts). */
import { readMapDocument } from '../read-document.js';
import type { DialectDocument, DialectReader, DialectReadOptions } from '../types.js';

export const claudeDesktopReader: DialectReader = {
  dialect: 'claude-desktop',
  format: 'json',
  read(document: DialectDocument, file: string, options?: DialectReadOptions) {
    return readMapDocument(document, file, options, {
      dialect: 'claude-desktop',
      serversKey: 'mcpServers',
      rules: {
        dialect: 'claude-desktop',
        grammar: () => undefined,
        ownKeys: [],
        remoteWarning:
          'Claude Desktop starts only stdio servers from its config file; mcp-host connects to this one',
      },
    });
  },
};
