/**
 * What a dialect reader carries while it walks one file: where it is (file, dialect, positions),
 * the diagnostics so far, and the translation of one string field into the canonical grammar.
 */
import type { ConfigDiagnostic, ConfigDialect, SourceLocation } from '../model.js';
import { escapeCanonical, printCanonical } from './canonical-template.js';
import type { DialectGrammar, GrammarContext } from './grammars.js';
import type { ParsedDocument } from './types.js';

export type KeyPath = (string | number)[];

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

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
    private readonly document: ParsedDocument,
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

/** The closest of `candidates` to `key` (edit distance at most 2, or a case-only difference). */
export function closestKey(key: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const distance =
      candidate.toLowerCase() === key.toLowerCase() ? 0 : editDistance(key, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost));
    }
    previous = current;
  }
  return previous[b.length]!;
}
