/**
 * VS Code, `.vscode/mcp.json` or the user profile's `mcp.json` (JSON with comments):
 * `{ "servers": { name: { type, command, args, env, envFile, cwd } | { type, url, headers } },
 *    "inputs": [{ type: "promptString", id, description, password }] }`.
 *
 * Variables (grammars.ts, `vscodeGrammar`) in every string of a server: `${env:VAR}` → `${VAR}`
 * (VS Code itself puts an empty string for an unset VAR; mcp-host fails that server instead, so
 * a missing secret is loud), `${input:id}` → `${input:id}`; `${workspaceFolder}`,
 * `${workspaceFolderBasename}`, `${userHome}`, `${pathSeparator}`, `${/}` resolved at read time;
 * other variables (`${config:…}`, `${command:…}`, …) kept as literal text with a warning. `$VAR`
 * is literal. VS Code has no escape.
 *
 * `inputs`: `promptString` and `pickString` map to the model; other input types (`command`) are
 * kept in `extra.vscodeInputs` with a warning (written back into `inputs` by this writer only). `dev`, `gallery`, `version` are kept in `extra`.
 *
 * Writing: stdio, http and sse, always with `type`. Left out with an error: websocket and
 * disabled servers, defaults other than empty, literal `${…}` text VS Code would read as a
 * variable. With a warning: OAuth settings, host settings.
 */
import type { ConfigDiagnostic, McpConfig } from '../model.js';
import { vscodeGrammar } from './grammars.js';
import { VSCODE_KEPT_INPUTS, vscodeReader } from './readers/vscode-reader.js';
import { toJsonText, writeServerMap, writeTopLevel } from './server-writer.js';
import type { DialectModule } from './types.js';

const LABEL = 'VS Code';

export const vscode: DialectModule = {
  ...vscodeReader,
  write(config: McpConfig) {
    const diagnostics: ConfigDiagnostic[] = [];
    const out: Record<string, unknown> = {};
    const inputs: unknown[] = (config.inputs ?? []).map((input) => ({ ...input }));
    const keptInputs = config.files.every((f) => f.dialect === 'vscode')
      ? config.extra?.[VSCODE_KEPT_INPUTS]
      : undefined;
    if (Array.isArray(keptInputs)) inputs.push(...(keptInputs as unknown[]));
    if (inputs.length > 0) out.inputs = inputs;
    out.servers = writeServerMap(
      config,
      {
        dialect: 'vscode',
        label: LABEL,
        transports: ['stdio', 'http', 'sse'],
        typeValue: (type) => type,
        grammar: () => vscodeGrammar,
        stdio: { cwd: true, envFile: true },
        ownSettings: [],
      },
      diagnostics,
    );
    const { [VSCODE_KEPT_INPUTS]: _kept, ...extra } = config.extra ?? {};
    writeTopLevel({ ...config, extra }, 'vscode', LABEL, out, diagnostics, { inputs: true });
    return { text: toJsonText(out), diagnostics };
  },
};
