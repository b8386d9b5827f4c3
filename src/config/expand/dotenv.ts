/**
 * A small dotenv parser for `envFile` (VS Code, Cursor): `KEY=value` lines, an optional `export `
 * prefix, `#` comments (whole lines, or after whitespace in an unquoted value), single-quoted
 * values taken literally, double-quoted values with `\n`, `\r`, `\t`, `\"` and `\\` escapes and
 * spanning lines. Nothing is expanded (`$VAR` and `${VAR}` stay as written: the file is data, and
 * expansion is single-pass). A malformed line throws `DotenvSyntaxError` (CONFIG_INVALID) naming
 * its line number, never its content.
 */
import { McpHostError } from '../../errors/mcp-host-error.js';

/** A malformed line of an env file: CONFIG_INVALID with the line's number (never its content). */
export class DotenvSyntaxError extends McpHostError {
  override readonly name = 'DotenvSyntaxError';
  /** The 1-based number of the line (the first line of a quoted value that spans lines). */
  readonly line: number;

  constructor(message: string, line: number) {
    super('CONFIG_INVALID', message, { details: { line } });
    this.line = line;
  }
}

const KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const lineNumber = index + 1;
    let line = (lines[index] ?? '').trimStart();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('export ')) line = line.slice('export '.length).trimStart();
    const eq = line.indexOf('=');
    if (eq < 0) throw new DotenvSyntaxError(`line ${lineNumber}: expected KEY=value`, lineNumber);
    const key = line.slice(0, eq).trim();
    if (!KEY.test(key))
      throw new DotenvSyntaxError(`line ${lineNumber}: invalid variable name`, lineNumber);
    let rest = line.slice(eq + 1).trimStart();
    let value: string;
    const quote = rest[0];
    if (quote === '"' || quote === "'") {
      // The closing quote may be on a later line.
      let body = rest.slice(1);
      let close = findClose(body, quote);
      while (close < 0 && index + 1 < lines.length) {
        index++;
        body += `\n${lines[index] ?? ''}`;
        close = findClose(body, quote);
      }
      if (close < 0)
        throw new DotenvSyntaxError(`line ${lineNumber}: unterminated ${quote} quote`, lineNumber);
      const raw = body.slice(0, close);
      rest = body.slice(close + 1).trim();
      if (rest !== '' && !rest.startsWith('#'))
        throw new DotenvSyntaxError(
          `line ${lineNumber}: unexpected text after the closing quote`,
          lineNumber,
        );
      value = quote === '"' ? unescape(raw) : raw;
    } else {
      const comment = rest.search(/\s#/);
      value = (comment < 0 ? rest : rest.slice(0, comment)).trim();
    }
    out[key] = value;
  }
  return { ...out };
}

function findClose(body: string, quote: string): number {
  for (let i = 0; i < body.length; i++) {
    if (quote === '"' && body[i] === '\\') {
      i++;
      continue;
    }
    if (body[i] === quote) return i;
  }
  return -1;
}

function unescape(raw: string): string {
  return raw.replace(/\\([nrt"\\])/g, (_match, char: string) => {
    switch (char) {
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      default:
        return char;
    }
  });
}
