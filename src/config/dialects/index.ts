/**
 * The foreign config dialects (docs/config.md, "Dialects"): one module each, a registry, detection
 * and one-call reading of foreign text. Every module reads a parsed document into the normalised
 * model (src/config/model.ts) and writes the model back as its own JSON, reporting what it cannot
 * express.
 */
export { claudeCode } from './claude-code.js';
export { claudeDesktop } from './claude-desktop.js';
export { crewai } from './crewai.js';
export { cursor } from './cursor.js';
export { vscode } from './vscode.js';
export { detectByShape, detectDialect } from './detect.js';
export { dialects, foreignDialects, isForeignDialect, type ForeignDialect } from './registry.js';
export {
  importConfig,
  importConfigText,
  type ImportConfigOptions,
  type ImportConfigResult,
} from './import-config.js';
export {
  readForeignText,
  textFormatOf,
  type ReadForeignOptions,
  type ReadForeignResult,
} from './read-text.js';
export type {
  DialectModule,
  DialectReadOptions,
  DialectReadResult,
  DialectWriteResult,
  ParsedDocument,
} from './types.js';
