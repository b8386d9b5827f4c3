/**
 * Config diagnostics for people: `file:line:column: error: key.path: message (did you mean x?)`,
 * the "did you mean" search, and `ConfigError`, the CONFIG_INVALID error that carries them.
 * Messages never hold a configured value (it may be a secret): they say what was expected and
 * what kind of value was found.
 */
import { McpHostError } from '../errors/mcp-host-error.js';
import type { ConfigDiagnostic } from './model.js';

/**
 * A key path as people write it: `servers.github.args[2]`, `mcpServers.github.env.TOKEN`,
 * `servers["my.server"].env`.
 */
export function formatKeyPath(path: readonly (string | number)[]): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(part)) text += text === '' ? part : `.${part}`;
    else text += `[${JSON.stringify(part)}]`;
  }
  return text;
}

/** `file:line:column` (or less, as far as known). */
export function formatLocation(diagnostic: ConfigDiagnostic): string | undefined {
  const location = diagnostic.location;
  if (location === undefined) return undefined;
  let text = location.file;
  if (location.line !== undefined) {
    text += `:${location.line}`;
    if (location.column !== undefined) text += `:${location.column}`;
  }
  return text;
}

/** One line: `mcp.yaml:4:17: error: servers.github.timeouts.connectMs: expected ... (did you mean x?)`. */
export function formatDiagnostic(diagnostic: ConfigDiagnostic): string {
  const where = formatLocation(diagnostic);
  const path = diagnostic.location ? formatKeyPath(diagnostic.location.path) : '';
  const suggestion =
    diagnostic.suggestion === undefined ? '' : ` (did you mean '${diagnostic.suggestion}'?)`;
  const hasSuggestion = diagnostic.message.includes('did you mean');
  return (
    `${where === undefined ? '' : `${where}: `}${diagnostic.severity}: ` +
    `${path === '' ? '' : `${path}: `}${diagnostic.message}${hasSuggestion ? '' : suggestion}`
  );
}

/** True for diagnostics that fail the whole file (an error not tied to one server). */
export function isFileLevelError(diagnostic: ConfigDiagnostic): boolean {
  return diagnostic.severity === 'error' && diagnostic.server === undefined;
}

/**
 * The closest of `candidates` to `key`: edit distance (Levenshtein) at most 2, or the same
 * letters in another case; `undefined` when nothing is that close.
 */
export function closestKey(key: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  const lower = key.toLowerCase();
  for (const candidate of candidates) {
    if (candidate === key) return undefined;
    const distance = candidate.toLowerCase() === lower ? 0 : editDistance(key, candidate, 2);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance, or `limit + 1` as soon as it is known to exceed `limit`. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/** How many diagnostics a ConfigError's message shows before "and N more". */
const SHOWN_IN_MESSAGE = 5;

/**
 * A config that cannot be used: CONFIG_INVALID with every diagnostic (errors first). Thrown by
 * `loadConfig` for file-level problems (unreadable file, syntax error, invalid defaults); a problem
 * inside one server only leaves that server out and is reported as a diagnostic.
 */
export class ConfigError extends McpHostError {
  override readonly name = 'ConfigError';
  readonly diagnostics: readonly ConfigDiagnostic[];

  constructor(diagnostics: readonly ConfigDiagnostic[], options: { cause?: unknown } = {}) {
    const ordered = [
      ...diagnostics.filter((d) => d.severity === 'error'),
      ...diagnostics.filter((d) => d.severity !== 'error'),
    ];
    const errors = ordered.filter((d) => d.severity === 'error');
    const shown = (errors.length > 0 ? errors : ordered).slice(0, SHOWN_IN_MESSAGE);
    const more = (errors.length > 0 ? errors.length : ordered.length) - shown.length;
    const message =
      `invalid configuration: ${shown.map(formatDiagnostic).join('; ')}` +
      (more > 0 ? `; and ${more} more` : '');
    super('CONFIG_INVALID', message, {
      ...options,
      details: {
        diagnostics: ordered.map((d) => ({
          severity: d.severity,
          kind: d.kind,
          message: d.message,
          ...(d.server === undefined ? {} : { server: d.server }),
          ...(d.location === undefined
            ? {}
            : {
                file: d.location.file,
                path: formatKeyPath(d.location.path),
                line: d.location.line,
                column: d.location.column,
              }),
          ...(d.suggestion === undefined ? {} : { suggestion: d.suggestion }),
        })),
      },
    });
    this.diagnostics = ordered;
  }
}

export function isConfigError(error: unknown): error is ConfigError {
  return error instanceof ConfigError;
}
