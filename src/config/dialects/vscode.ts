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
import { aboutServer } from '../../errors/mcp-host-error.js';
import type { ConfigDiagnostic, InputConfig, McpConfig } from '../model.js';
import { vscodeGrammar } from './grammars.js';
import { typeName, type ReadContext } from './read-context.js';
import { readMapDocument } from './read-document.js';
import { toJsonText, writeServerMap, writeTopLevel } from './server-writer.js';
import type { DialectModule, DialectReadOptions, DialectDocument } from './types.js';
import { isRecord, type KeyPath } from '../parse.js';

const LABEL = 'VS Code';
/** Where inputs of types mcp-host does not ask for are kept. */
const KEPT_INPUTS = 'vscodeInputs';
const INPUT_KEYS = ['type', 'id', 'description', 'password', 'default', 'options'];

export const vscode: DialectModule = {
  dialect: 'vscode',
  format: 'jsonc',
  read(document: DialectDocument, file: string, options?: DialectReadOptions) {
    return readMapDocument(document, file, options, {
      dialect: 'vscode',
      serversKey: 'servers',
      topKeys: ['inputs'],
      readTopKey: (_key, value, path, config, ctx) => readInputs(value, path, config, ctx),
      rules: {
        dialect: 'vscode',
        grammar: () => vscodeGrammar,
        ownKeys: ['dev', 'gallery', 'version'],
        readOwnKey(key, value, path, draft, name, ctx) {
          draft.extra[key] = value;
          ctx.report(
            'warning',
            'unsupported-key',
            aboutServer(name, `VS Code's "${key}" is not used by mcp-host; kept as it is`),
            path,
            name,
          );
        },
      },
    });
  },
  write(config: McpConfig) {
    const diagnostics: ConfigDiagnostic[] = [];
    const out: Record<string, unknown> = {};
    const inputs: unknown[] = (config.inputs ?? []).map((input) => ({ ...input }));
    const keptInputs = config.files.every((f) => f.dialect === 'vscode')
      ? config.extra?.[KEPT_INPUTS]
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
    const { [KEPT_INPUTS]: _kept, ...extra } = config.extra ?? {};
    writeTopLevel({ ...config, extra }, 'vscode', LABEL, out, diagnostics, { inputs: true });
    return { text: toJsonText(out), diagnostics };
  },
};

function readInputs(value: unknown, path: KeyPath, config: McpConfig, ctx: ReadContext): void {
  if (!Array.isArray(value)) {
    ctx.report(
      'error',
      'invalid-type',
      `"inputs": expected an array, found ${typeName(value)}`,
      path,
    );
    return;
  }
  const inputs: InputConfig[] = [];
  const kept: unknown[] = [];
  value.forEach((raw, i) => {
    const at = [...path, i];
    if (!isRecord(raw) || typeof raw.id !== 'string') {
      ctx.report('error', 'invalid-value', 'an input needs an "id"', at);
      return;
    }
    if (raw.type !== 'promptString' && raw.type !== 'pickString') {
      kept.push(raw);
      ctx.report(
        'warning',
        'unsupported-input',
        `input "${raw.id}": type ${JSON.stringify(raw.type)} is not supported by mcp-host; kept as it is`,
        [...at, 'type'],
      );
      return;
    }
    const input: InputConfig = { id: raw.id, type: raw.type };
    if (typeof raw.description === 'string') input.description = raw.description;
    if (typeof raw.password === 'boolean') input.password = raw.password;
    if (typeof raw.default === 'string') input.default = raw.default;
    if (Array.isArray(raw.options))
      input.options = raw.options.map((option) =>
        isRecord(option) && typeof option.value === 'string' ? option.value : String(option),
      );
    for (const key of Object.keys(raw))
      if (!INPUT_KEYS.includes(key))
        ctx.report('warning', 'unknown-key', `input "${raw.id}": unknown key "${key}" left out`, [
          ...at,
          key,
        ]);
    inputs.push(input);
  });
  config.inputs = inputs;
  if (kept.length > 0) config.extra = { ...config.extra, [KEPT_INPUTS]: kept };
}
