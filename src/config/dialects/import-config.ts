/**
 * A foreign config file as native `mcp.yaml` text: read in its dialect, printed by the native
 * writer (src/config/native/native-write.ts), which keeps the keys the reader kept in `extra`. Nothing is
 * written to disk here: pass the text to `writeConfigFile`, which makes a backup first.
 */
import { readFile } from 'node:fs/promises';
import type { ConfigDiagnostic, ConfigDialect, McpConfig } from '../model.js';
import { writeNativeConfig } from '../native/native-write.js';
import { readForeignText, type ReadForeignOptions } from './read-text.js';

export interface ImportConfigOptions extends ReadForeignOptions {
  /** `yaml` (default, for `mcp.yaml`) or `json` (for `mcp.json`). */
  format?: 'yaml' | 'json';
}

export interface ImportConfigResult {
  /** The dialect the file was read as. */
  dialect: ConfigDialect;
  config: McpConfig;
  /** The native text. Servers with an error were left out (see `diagnostics`). */
  text: string;
  /** The reader's and the writer's, in that order. */
  diagnostics: ConfigDiagnostic[];
}

/** `importConfig` on text already read. */
export function importConfigText(
  text: string,
  file: string,
  options: ImportConfigOptions = {},
): ImportConfigResult {
  const { format = 'yaml', ...readOptions } = options;
  const read = readForeignText(text, file, readOptions);
  const written = writeNativeConfig(read.config, { format });
  return {
    dialect: read.dialect,
    config: read.config,
    text: written.text,
    diagnostics: [...read.diagnostics, ...written.diagnostics],
  };
}

/** Reads a foreign config file and prints it as native text. */
export async function importConfig(
  file: string,
  options: ImportConfigOptions = {},
): Promise<ImportConfigResult> {
  return importConfigText(await readFile(file, 'utf8'), file, options);
}
