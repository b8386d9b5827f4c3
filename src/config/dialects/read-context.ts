import { configServerKeyProblems } from '../server-key-problems.js';
import type { ConfigDiagnostic, ConfigDialect, ServerConfig, SourceLocation } from '../model.js';
import { escapeCanonical, printCanonical } from './canonical-template.js';
import type { DialectGrammar, GrammarContext } from './grammars.js';
import type { DialectDocument } from './types.js';

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

export class ReadContext {
  readonly diagnostics: ConfigDiagnostic[] = [];

  constructor(
    readonly file: string,
    readonly dialect: ConfigDialect,
    private readonly document: DialectDocument,
    readonly grammarContext: GrammarContext,
  ) {}

  /** Where the value at `path` is (its key, for `unknown-key` style reports: `atKey`). */
  location(path: readonly (string | number)[], atKey = false): SourceLocation {
    const position = atKey ? this.document.locateKey?.(path) : this.document.locate?.(path);
    return {
      file: this.file,
      dialect: this.dialect,
      path: [...path],
      ...(position === undefined ? {} : { line: position.line, column: position.column }),
    };
  }

  report(
    severity: ConfigDiagnostic['severity'],
    kind: string,
    message: string,
    path: readonly (string | number)[],
    server?: string,
    suggestion?: string,
  ): void {
    this.diagnostics.push({
      severity,
      kind,
      message,
      ...(server === undefined ? {} : { server }),
      location: this.location(path, kind === 'unknown-key' || kind === 'unsupported-key'),
      ...(suggestion === undefined ? {} : { suggestion }),
    });
  }

  /** Errors reported so far for one server (a server with any is left out). */
  errorCount(server: string): number {
    return this.diagnostics.filter((d) => d.severity === 'error' && d.server === server).length;
  }

  /**
   * One string of the file as a canonical template. `undefined` after an error (reported).
   * Without a grammar the text is literal (`${` escaped).
   */
  template(
    value: string,
    path: readonly (string | number)[],
    grammar: DialectGrammar | undefined,
    server?: string,
  ): string | undefined {
    if (grammar === undefined) return escapeCanonical(value);
    const read = grammar.read(value, this.grammarContext);
    for (const problem of read.problems)
      this.report(problem.severity, problem.kind, problem.message, path, server);
    if (read.problems.some((problem) => problem.severity === 'error')) return undefined;
    const printed = printCanonical(read.parts);
    if (!printed.ok) {
      this.report('error', 'not-expressible', printed.message, path, server);
      return undefined;
    }
    return printed.value;
  }
}

/**
 * Servers whose names cannot be used (the `__` separator, empty, too long, the same
 * as another once sanitised, a `/`) fail with `invalid-server-name`, as in the native format.
 */
export function dropBadServerNames(servers: ServerConfig[], ctx: ReadContext): ServerConfig[] {
  const problems = configServerKeyProblems(servers.map((server) => server.name));
  if (problems.length === 0) return servers;
  const bad = new Set<string>();
  for (const problem of problems) {
    bad.add(problem.server);
    const server = servers.find((s) => s.name === problem.server);
    ctx.report(
      'error',
      'invalid-server-name',
      problem.message,
      server?.source.path ?? [],
      problem.server,
    );
  }
  return servers.filter((server) => !bad.has(server.name));
}
