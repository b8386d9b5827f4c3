/**
 * The shape every dialect module has: `read` a parsed document into the normalised model,
 * `write` the normalised model back out as text. Readers never throw on bad input: every problem
 * is a diagnostic; a server with an error is left out of `config.servers` (the diagnostic names
 * it), the others are kept.
 */
import type { ConfigDiagnostic, ConfigDialect, McpConfig } from '../model.js';
import type { ParsedDocument } from '../parse.js';

/**
 * What a dialect reads: a `ParsedDocument` (what `parseConfigText` returns), or just `{ value }`
 * for a value without a text (diagnostics then carry key paths without line and column).
 */
export type DialectDocument = Pick<ParsedDocument, 'value'> &
  Partial<Pick<ParsedDocument, 'locate' | 'locateKey'>>;

/** Facts about the surroundings that some dialects' variables stand for. */
export interface DialectReadOptions {
  /**
   * The workspace folder `${workspaceFolder}` stands for (VS Code, Cursor). Default: the folder
   * holding `.vscode/` or `.cursor/` when the file sits there; otherwise the variable is kept as
   * literal text with a warning.
   */
  workspaceFolder?: string;
  /** What `${userHome}` stands for (VS Code, Cursor). Default: `os.homedir()`. */
  homeDir?: string;
}

export interface DialectReadResult {
  config: McpConfig;
  diagnostics: ConfigDiagnostic[];
}

export interface DialectWriteResult {
  /** The file text: JSON with a 2-space indent and a final newline (no comments). */
  text: string;
  /**
   * What the target cannot express. `error`: a server (or input) was left out of `text`;
   * `warning`: a setting was left out and the server is still written.
   */
  diagnostics: ConfigDiagnostic[];
}

/** The read side of a dialect module: what loading a file needs (see readers/). */
export interface DialectReader {
  readonly dialect: ConfigDialect;
  /** Syntax of the file: `jsonc` allows comments and trailing commas. */
  readonly format: 'json' | 'jsonc' | 'yaml';
  read(document: DialectDocument, file: string, options?: DialectReadOptions): DialectReadResult;
}

export interface DialectModule extends DialectReader {
  write(config: McpConfig): DialectWriteResult;
}
