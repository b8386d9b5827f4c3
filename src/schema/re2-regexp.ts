import { RE2JS } from 're2js';
import { preview } from '../errors/redact.js';

/** What ajv needs of a compiled pattern (ajv's `RegExpLike`), plus a distinct `toString()`. */
export interface RegExpLike {
  test(input: string): boolean;
  /** Ajv keys the compiled patterns of a schema by this text, so it must differ per pattern. */
  toString(): string;
}

/** A factory of patterns in the shape of ajv's `code.regExp` option (`RegExpEngine`). */
export interface RegExpEngine {
  (pattern: string, flags: string): RegExpLike;
  /** Only read by ajv for `$data` patterns and standalone code, neither of which is used here. */
  code: string;
}

export interface Re2RegExpOptions {
  /** Called for each pattern that is valid ECMAScript but that RE2 cannot run. */
  onUnsupported?: (pattern: string) => void;
}

// ECMAScript's \s (WhiteSpace and LineTerminator); RE2's \s is ASCII only.
const jsWhitespace =
  '\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
// ECMAScript's `.` stops at every line terminator; RE2's only at \n.
const jsLineTerminators = '\\n\\r\\x{2028}\\x{2029}';

/**
 * A linear-time pattern engine for ajv: JSON Schema `pattern`s and `patternProperties` keys from
 * untrusted servers run on RE2 (the pure-JS port `re2js`), so no pattern, however catastrophic
 * for a backtracking engine (`^(a+)+$`), can block the event loop.
 *
 * - A pattern that is not valid ECMAScript (JSON Schema's regex dialect), such as `[`, throws:
 *   ajv then fails to compile the schema, and it is reported invalid, as with ajv's own engine.
 *   Checking that takes only a parse by `new RegExp`; the native object never matches anything.
 * - A valid pattern is translated to RE2 syntax (`\u` escapes, named groups, ECMAScript's `\s` and
 *   `.`) and compiled with linear-time lookbehind support.
 * - A valid pattern RE2 cannot run (lookahead, backreferences, a program too large) matches every
 *   string and is reported through `onUnsupported`: the server, not the host, is the last judge of
 *   its own input, and a tool should not be dropped for a lookahead in one of its patterns. (For a
 *   `patternProperties` key that alone would apply its subschema to every property: the caller
 *   replaces such subschemas by `true` first, so that spot accepts anything.)
 */
export function createRe2RegExp(options: Re2RegExpOptions = {}): RegExpEngine {
  const engine = (pattern: string, flags: string): RegExpLike => {
    const name = `/${pattern}/${flags}`;
    const compiled = compileRe2Pattern(pattern, flags);
    if (compiled !== undefined)
      return { test: (input) => compiled.test(input), toString: () => name };
    options.onUnsupported?.(pattern);
    return { test: () => true, toString: () => `${name} (unsupported: accepts anything)` };
  };
  return Object.assign(engine, { code: 'mcpHostRe2RegExp' });
}

/**
 * Compiles an ECMAScript pattern for RE2: the compiled pattern, or `undefined` when the pattern
 * is valid ECMAScript that RE2 cannot run. Throws when it is not valid ECMAScript.
 */
export function compileRe2Pattern(pattern: string, flags: string): RE2JS | undefined {
  try {
    new RegExp(pattern, flags);
  } catch {
    throw new Error(
      `pattern "${preview(pattern, 100)}" is not a valid ECMAScript regular expression`,
    );
  }
  if (hasNamedBackreference(pattern)) return undefined;
  try {
    return RE2JS.compile(
      toJsSemantics(RE2JS.translateRegExp(pattern), flags.includes('s')),
      re2Flags(flags),
    );
  } catch {
    return undefined;
  }
}

/** `\k<name>`: RE2 has no backreferences, and re2js's translation would turn it into a literal `k`. */
function hasNamedBackreference(pattern: string): boolean {
  for (let index = 0; index < pattern.length; index++)
    if (pattern[index] === '\\' && pattern[++index] === 'k') return true;
  return false;
}

function re2Flags(flags: string): number {
  let bits = RE2JS.LOOKBEHINDS;
  if (flags.includes('i')) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) bits |= RE2JS.MULTILINE;
  if (flags.includes('s')) bits |= RE2JS.DOTALL;
  return bits;
}

/**
 * Rewrites the classes whose meaning differs between ECMAScript and RE2 in an RE2 pattern: `\s`
 * (and `\S` outside brackets) and `.`. `\S` inside brackets keeps RE2's ASCII meaning.
 */
export function toJsSemantics(source: string, dotAll: boolean): string {
  let out = '';
  let inClass = false;
  for (let index = 0; index < source.length; index++) {
    const char = source[index]!;
    if (char === '\\') {
      const next = source[index + 1] ?? '';
      index++;
      if (next === 's') out += inClass ? jsWhitespace : `[${jsWhitespace}]`;
      else if (next === 'S' && !inClass) out += `[^${jsWhitespace}]`;
      else out += char + next;
    } else if (inClass) {
      if (char === '[' && source[index + 1] === ':') {
        // A POSIX class such as [:alpha:] inside brackets: copy it whole.
        const end = source.indexOf(':]', index + 2);
        if (end !== -1) {
          out += source.slice(index, end + 2);
          index = end + 1;
          continue;
        }
      }
      if (char === ']') inClass = false;
      out += char;
    } else if (char === '[') {
      inClass = true;
      out += char;
      if (source[index + 1] === '^') out += source[++index];
      if (source[index + 1] === ']') out += source[++index]; // a leading `]` is a member in RE2
    } else if (char === '.' && !dotAll) out += `[^${jsLineTerminators}]`;
    else out += char;
  }
  return out;
}
