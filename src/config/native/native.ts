/**
 * The native format, `mcp.yaml` / `mcp.json` (see docs/config.md): reading, writing, and the
 * dialect module that plugs it into loading beside the foreign dialects.
 */
import type { ConfigDiagnostic, McpConfig } from '../model.js';
import { readNativeConfig, type NativeDocument, type NativeReadResult } from './native-read.js';
import { writeNativeConfig } from './native-write.js';
import { formatOfFile, parseConfigText } from '../parse.js';

/** Parses and reads native config text; the format follows the file name (`.json`: strict JSON). */
export function readNativeText(text: string, file: string): NativeReadResult {
  return readNativeConfig(parseConfigText(text, file, formatOfFile(file), 'mcp-host'), file);
}

/** The native format as a dialect module (the shape of `src/config/dialects/types.ts`). */
export const nativeDialect = {
  dialect: 'mcp-host',
  format: 'yaml',
  read(
    document: NativeDocument,
    file: string,
  ): { config: McpConfig; diagnostics: ConfigDiagnostic[] } {
    return readNativeConfig(document, file);
  },
  write(config: McpConfig): { text: string; diagnostics: ConfigDiagnostic[] } {
    return writeNativeConfig(config);
  },
} as const;
