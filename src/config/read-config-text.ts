/**
 * One config file's text in any dialect, synchronously: every dialect module, writers included, is
 * loaded with this one (the library's API; loading files goes through `loadConfigText`, which
 * loads no writer).
 */
import type { DialectReadOptions } from './dialects/types.js';
import { readForeignText } from './dialects/read-text.js';
import { detectText, type ReadConfigResult } from './load.js';
import type { ConfigDialect } from './model.js';
import { readNativeConfig } from './native/native-read.js';
import { formatOfFile, parseConfigText } from './parse.js';

/** One file's text in any dialect (detected by name and shape unless `dialect` says). */
export function readConfigText(
  text: string,
  file: string,
  options: DialectReadOptions & { dialect?: ConfigDialect | undefined } = {},
): ReadConfigResult {
  const { dialect: override, ...readOptions } = options;
  const { dialect, own } = detectText(text, file, override);
  if (dialect === 'mcp-host') {
    const document = own ?? parseConfigText(text, file, formatOfFile(file), 'mcp-host');
    return { dialect, ...readNativeConfig(document, file) };
  }
  return readForeignText(text, file, { ...readOptions, dialect });
}
