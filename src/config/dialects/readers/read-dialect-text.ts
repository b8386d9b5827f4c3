/** Config text read with one foreign dialect's reader (the dialect already known). */
import { parseConfigText, type ConfigTextFormat, type ParsedDocument } from '../../parse.js';
import type { DialectReader, DialectReadOptions, DialectReadResult } from '../types.js';

/** The syntax a dialect's file is parsed with. */
export function textFormatOf(
  file: string,
  module: Pick<DialectReader, 'format'>,
): ConfigTextFormat {
  const lower = file.toLowerCase();
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'yaml';
  return module.format === 'yaml' ? 'json' : module.format;
}

/**
 * Parses `text` in the reader's syntax and reads it: the parser's diagnostics, then the reader's,
 * and the parsed document (for positions).
 */
export function readDialectText(
  reader: DialectReader,
  text: string,
  file: string,
  options?: DialectReadOptions,
): DialectReadResult & { document: ParsedDocument } {
  const document = parseConfigText(text, file, textFormatOf(file, reader), reader.dialect);
  const read = reader.read(document, file, options);
  return {
    config: read.config,
    diagnostics: [...document.diagnostics, ...read.diagnostics],
    document,
  };
}
