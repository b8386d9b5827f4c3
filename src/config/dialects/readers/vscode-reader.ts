/** Reads VS Code's `.vscode/mcp.json` (see ../vscode.ts). */
import { aboutServer } from '../../../errors/mcp-host-error.js';
import type { InputConfig, McpConfig } from '../../model.js';
import { isRecord, type KeyPath } from '../../parse.js';
import { vscodeGrammar } from '../grammars.js';
import { typeName, type ReadContext } from '../read-context.js';
import { readMapDocument } from '../read-document.js';
import type { DialectDocument, DialectReader, DialectReadOptions } from '../types.js';

/** Where inputs of types mcp-host does not ask for are kept (in `extra`). */
export const VSCODE_KEPT_INPUTS = 'vscodeInputs';
const INPUT_KEYS = ['type', 'id', 'description', 'password', 'default', 'options'];

export const vscodeReader: DialectReader = {
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
  if (kept.length > 0) config.extra = { ...config.extra, [VSCODE_KEPT_INPUTS]: kept };
}
