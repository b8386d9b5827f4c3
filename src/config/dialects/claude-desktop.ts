/**
 * Claude Desktop, `claude_desktop_config.json`: `{ "mcpServers": { name: { command, args, env } } }`.
 * Stdio only, and no variables: every string is literal (a `${` in it is escaped in the canonical
 * form). Remote entries (`url`, `type`) are read leniently, with a warning that Claude Desktop
 * itself does not start them from this file. Other top-level keys (app preferences) are kept.
 *
 * Writing: stdio servers only. A remote server, a disabled one, or one whose strings hold
 * variables is left out with an error; `cwd`, `envFile` and host settings with a warning.
 */
import type { ConfigDiagnostic, McpConfig } from '../model.js';
import { claudeDesktopReader } from './readers/claude-desktop-reader.js';
import { toJsonText, writeServerMap, writeTopLevel } from './server-writer.js';
import type { DialectModule } from './types.js';

const LABEL = 'Claude Desktop';

export const claudeDesktop: DialectModule = {
  ...claudeDesktopReader,
  write(config: McpConfig) {
    const diagnostics: ConfigDiagnostic[] = [];
    const out: Record<string, unknown> = {
      mcpServers: writeServerMap(
        config,
        {
          dialect: 'claude-desktop',
          label: LABEL,
          transports: ['stdio'],
          typeValue: () => undefined,
          grammar: () => undefined,
          stdio: { cwd: false, envFile: false },
          ownSettings: [],
        },
        diagnostics,
      ),
    };
    writeTopLevel(config, 'claude-desktop', LABEL, out, diagnostics);
    return { text: toJsonText(out), diagnostics };
  },
};
