/**
 * Config text in a foreign dialect into the normalised model in one call: parse (with the
 * dialect's syntax: JSON with comments for VS Code and Cursor, YAML for `.yaml` files), detect the
 * dialect unless told, read.
 */
import type { ConfigDialect } from '../model.js';
import { parseConfigText, type ConfigTextFormat, type ParsedDocument } from '../parse.js';
import { detectDialect } from './detect.js';
import { foreignDialects, type ForeignDialect } from './registry.js';
import { readDialectText } from './readers/read-dialect-text.js';
import type { DialectReadOptions, DialectReadResult } from './types.js';

export interface ReadForeignOptions extends DialectReadOptions {
  /** The dialect, when not to be detected from the file name and shape. */
  dialect?: ForeignDialect;
}

export interface ReadForeignResult extends DialectReadResult {
  dialect: ConfigDialect;
  /** The parsed text (for positions), when the file was read. */
  document?: ParsedDocument;
}

/**
 * Reads foreign config text. A file detected as native (`mcp-host`) is refused with an error
 * diagnostic: read it with the native reader (src/config/native/native.ts).
 */
export function readForeignText(
  text: string,
  file: string,
  options: ReadForeignOptions = {},
): ReadForeignResult {
  // Detection by shape needs a value: JSONC reads JSON, comments and trailing commas alike.
  const lower = file.toLowerCase();
  const probeFormat: ConfigTextFormat =
    lower.endsWith('.yaml') || lower.endsWith('.yml') ? 'yaml' : 'jsonc';
  const dialect =
    options.dialect ?? detectDialect(file, parseConfigText(text, file, probeFormat).value);
  if (dialect === 'mcp-host')
    return {
      dialect,
      config: { servers: [], files: [{ file, dialect }] },
      diagnostics: [
        {
          severity: 'error',
          kind: 'wrong-dialect',
          message: `${file} is in the native mcp-host format, not a foreign dialect`,
          location: { file, dialect, path: [] },
        },
      ],
    };
  return { dialect, ...readDialectText(foreignDialects[dialect], text, file, options) };
}
