/**
 * The one place config text becomes data: YAML through `yaml` (YAML 1.2 core schema, so `on` and
 * `no` stay strings), JSON and JSON with comments through `jsonc-parser`. Every value keeps where it
 * came from (`locate`), and syntax errors come back as diagnostics with line and column, never as a
 * throw, so a reader can report every problem of a file at once.
 *
 * Strict JSON goes through `jsonc-parser` with comments and trailing commas disallowed: the `yaml`
 * package's JSON mode accepts trailing commas and single quotes, which no JSON tool would. A
 * well-formed JSON or JSONC document is read by plain-json.ts instead, with the same values and
 * positions; `jsonc-parser` then loads only for a document with something to report. Each parser
 * is loaded when the first document of its format needs it (parser-modules.ts).
 */
import type { Node as JsonNode, ParseError as JsonParseError } from 'jsonc-parser';
import type { Node as YamlNode } from 'yaml';
import type { ConfigDiagnostic, ConfigDialect } from './model.js';
import { jsoncModule, yamlModule } from './parser-modules.js';
import { plainJsonNode, readPlainJson } from './plain-json.js';

export type ConfigTextFormat = 'yaml' | 'json' | 'jsonc';

/** A 1-based position in the text. Columns count UTF-16 code units. */
export interface TextPosition {
  line: number;
  column: number;
}

/** Where a value sits in a document: keys and array indexes from the root. */
export type KeyPath = readonly (string | number)[];

/** A parsed mapping (a YAML map or a JSON object): not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface ParsedDocument {
  /** The parsed data (plain JSON values); `undefined` when the text is empty or unreadable. */
  value: unknown;
  /** Where the value at `path` starts, or `undefined` when there is no such value. */
  locate(path: KeyPath): TextPosition | undefined;
  /** Where the key of the entry at `path` starts (its value for array items and the root). */
  locateKey(path: KeyPath): TextPosition | undefined;
  /** Syntax errors (severity `error`, kind `syntax-error` or `duplicate-key`) and parser warnings. */
  diagnostics: ConfigDiagnostic[];
}

/** The format a file name implies: `.yaml`/`.yml` YAML, `.jsonc` JSONC, anything else JSON. */
export function formatOfFile(file: string): ConfigTextFormat {
  const lower = file.toLowerCase();
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'yaml';
  if (lower.endsWith('.jsonc')) return 'jsonc';
  return 'json';
}

/**
 * Parses config text. `file` and `dialect` only label the diagnostics' locations. Never throws for
 * bad input: syntax errors are diagnostics, and `value` is whatever could be recovered (possibly
 * `undefined`).
 */
export function parseConfigText(
  text: string,
  file: string,
  format: ConfigTextFormat,
  dialect: ConfigDialect = 'mcp-host',
): ParsedDocument {
  // A byte order mark is not part of the document (editors on Windows write one).
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const offset = body === text ? 0 : 1;
  let parsed: ParsedDocument;
  try {
    parsed =
      format === 'yaml'
        ? parseYaml(body, file, dialect, offset)
        : parseJson(body, file, format, dialect, offset);
  } catch (error) {
    // The parsers recurse: a document nested thousands of levels deep overflows the stack.
    if (!(error instanceof RangeError)) throw error;
    return {
      value: undefined,
      locate: () => undefined,
      locateKey: () => undefined,
      diagnostics: [
        {
          severity: 'error',
          kind: 'syntax-error',
          message: 'the document is nested too deeply to read',
          location: { file, dialect, path: [], line: 1, column: 1 },
        },
      ],
    };
  }
  if (parsed.diagnostics.length > MAX_SYNTAX_DIAGNOSTICS) {
    const more = parsed.diagnostics.length - MAX_SYNTAX_DIAGNOSTICS;
    parsed.diagnostics = parsed.diagnostics.slice(0, MAX_SYNTAX_DIAGNOSTICS);
    parsed.diagnostics.push({
      severity: 'error',
      kind: 'syntax-error',
      message: `${more} more syntax errors not shown`,
      location: { file, dialect, path: [] },
    });
  }
  return parsed;
}

/** Syntax errors kept per document: after the first few, the rest are usually echoes. */
export const MAX_SYNTAX_DIAGNOSTICS = 20;

function parseYaml(
  text: string,
  file: string,
  dialect: ConfigDialect,
  bomOffset: number,
): ParsedDocument {
  const { isMap, isScalar, LineCounter, parseDocument } = yamlModule();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    // `<<: *defaults` is common in hand-written config; YAML 1.2 alone does not have it.
    merge: true,
    uniqueKeys: true,
  });
  const position = (offset: number): TextPosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col + (line === 1 ? bomOffset : 0) };
  };
  const diagnostics: ConfigDiagnostic[] = [];
  for (const [severity, list] of [
    ['error', doc.errors],
    ['warning', doc.warnings],
  ] as const) {
    for (const problem of list) {
      const at = position(problem.pos[0]);
      diagnostics.push({
        severity,
        kind: problem.code === 'DUPLICATE_KEY' ? 'duplicate-key' : 'syntax-error',
        message: `YAML: ${yamlProblem(problem.message)}${templateHint(text, problem.pos[0])}`,
        location: { file, dialect, path: [], ...at },
      });
    }
  }
  let value: unknown;
  try {
    // maxAliasCount bounds "billion laughs" documents.
    value = doc.toJS({ maxAliasCount: 1000 });
  } catch (error) {
    diagnostics.push({
      severity: 'error',
      kind: 'syntax-error',
      message: `YAML: ${yamlProblem(error instanceof Error ? error.message : String(error))}`,
      location: { file, dialect, path: [], line: 1, column: 1 },
    });
    value = undefined;
  }
  const nodeAt = (path: KeyPath): YamlNode | undefined => {
    if (path.length === 0) return isNode(doc.contents) ? doc.contents : undefined;
    const node: unknown = doc.getIn(path, true);
    return isNode(node) ? node : undefined;
  };
  const locate = (path: KeyPath): TextPosition | undefined => {
    const range = nodeAt(path)?.range;
    return range ? position(range[0]) : undefined;
  };
  const locateKey = (path: KeyPath): TextPosition | undefined => {
    if (path.length === 0) return locate(path);
    const parent = nodeAt(path.slice(0, -1));
    const last = path[path.length - 1];
    if (isMap(parent)) {
      for (const pair of parent.items) {
        const key = pair.key;
        const name = isScalar(key) ? key.value : key;
        if (String(name) === String(last) && isNode(key) && key.range)
          return position(key.range[0]);
      }
    }
    return locate(path);
  };
  return { value, locate, locateKey, diagnostics };
}

function isNode(value: unknown): value is YamlNode {
  const { isMap, isScalar, isSeq } = yamlModule();
  return isScalar(value) || isMap(value) || isSeq(value);
}

function parseJson(
  text: string,
  file: string,
  format: 'json' | 'jsonc',
  dialect: ConfigDialect,
  bomOffset: number,
): ParsedDocument {
  const strict = format === 'json';
  const lineStarts = computeLineStarts(text);
  const position = (offset: number): TextPosition => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((lineStarts[mid] ?? 0) <= offset) low = mid;
      else high = mid - 1;
    }
    const column = offset - (lineStarts[low] ?? 0) + 1;
    return { line: low + 1, column: column + (low === 0 ? bomOffset : 0) };
  };
  const plain = readPlainJson(text, !strict);
  if (plain !== undefined) {
    const nodeAt = (path: KeyPath) => plainJsonNode(plain.root, path);
    return {
      value: plain.value,
      locate: (path) => {
        const node = nodeAt(path);
        return node && position(node.offset);
      },
      locateKey: (path) => {
        const node = nodeAt(path);
        return node && position(node.keyOffset ?? node.offset);
      },
      diagnostics: [],
    };
  }
  const { findNodeAtLocation, getNodeValue, parseTree } = jsoncModule();
  const errors: JsonParseError[] = [];
  const root = parseTree(text, errors, {
    disallowComments: strict,
    allowTrailingComma: !strict,
    allowEmptyContent: true,
  });
  const label = strict ? 'JSON' : 'JSONC';
  const diagnostics: ConfigDiagnostic[] = errors.map((error) => ({
    severity: 'error',
    kind: 'syntax-error',
    message: `${label}: ${describeJsonError(error, text, strict)}`,
    location: { file, dialect, path: [], ...position(error.offset) },
  }));
  if (root) findDuplicateKeys(root, [], file, dialect, position, diagnostics);
  const value: unknown = root ? getNodeValue(root) : undefined;
  const nodeAt = (path: KeyPath): JsonNode | undefined =>
    root ? findNodeAtLocation(root, [...path]) : undefined;
  const locate = (path: KeyPath): TextPosition | undefined => {
    const node = nodeAt(path);
    return node ? position(node.offset) : undefined;
  };
  const locateKey = (path: KeyPath): TextPosition | undefined => {
    const node = nodeAt(path);
    const property = node?.parent;
    if (property?.type === 'property' && property.children?.[0])
      return position(property.children[0].offset);
    return node ? position(node.offset) : undefined;
  };
  return { value, locate, locateKey, diagnostics };
}

function describeJsonError(error: JsonParseError, text: string, strict: boolean): string {
  const code = jsoncModule().printParseErrorCode(error.error);
  const found = text.slice(error.offset, error.offset + Math.min(error.length, 20));
  const readable: Record<string, string> = {
    InvalidSymbol: 'invalid symbol',
    InvalidNumberFormat: 'invalid number',
    PropertyNameExpected: 'a property name (in double quotes) was expected',
    ValueExpected: 'a value was expected',
    ColonExpected: "':' was expected",
    CommaExpected: "',' was expected",
    CloseBraceExpected: "'}' was expected",
    CloseBracketExpected: "']' was expected",
    EndOfFileExpected: 'the end of the file was expected',
    InvalidCommentToken: strict
      ? 'comments are not allowed in JSON (name the file .jsonc to allow them)'
      : 'invalid comment',
    UnexpectedEndOfComment: 'a comment is not closed',
    UnexpectedEndOfString: 'a string is not closed',
    UnexpectedEndOfNumber: 'a number ends too early',
    InvalidUnicode: 'invalid unicode escape',
    InvalidEscapeCharacter: 'invalid escape character',
    InvalidCharacter: 'invalid character',
  };
  const what = readable[code] ?? code;
  const token = describeToken(found.trimStart());
  return token === undefined ? what : `${what}, found ${token}`;
}

/**
 * What a JSON syntax error stopped at, without quoting a value (it may be a secret, and the
 * diagnostic promises none): punctuation is quoted, anything else is named by its kind.
 */
function describeToken(text: string): string | undefined {
  const first = text[0];
  if (first === undefined) return undefined;
  if ('{}[]:,'.includes(first)) return `'${first}'`;
  if (first === '"' || first === "'") return 'a string';
  if (/[-+.\d]/.test(first)) return 'a number';
  if (first === '/') return 'a comment';
  if (/[\p{L}_$]/u.test(first)) return 'a word';
  return `a character U+${first.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

function findDuplicateKeys(
  node: JsonNode,
  path: (string | number)[],
  file: string,
  dialect: ConfigDialect,
  position: (offset: number) => TextPosition,
  diagnostics: ConfigDiagnostic[],
): void {
  if (node.type === 'object') {
    const seen = new Set<string>();
    for (const property of node.children ?? []) {
      const [keyNode, valueNode] = property.children ?? [];
      if (!keyNode || typeof keyNode.value !== 'string') continue;
      const key = keyNode.value;
      if (seen.has(key)) {
        diagnostics.push({
          severity: 'error',
          kind: 'duplicate-key',
          message: `the key '${key}' appears twice in the same object`,
          location: { file, dialect, path: [...path, key], ...position(keyNode.offset) },
        });
      }
      seen.add(key);
      if (valueNode)
        findDuplicateKeys(valueNode, [...path, key], file, dialect, position, diagnostics);
    }
  } else if (node.type === 'array') {
    (node.children ?? []).forEach((child, index) =>
      findDuplicateKeys(child, [...path, index], file, dialect, position, diagnostics),
    );
  }
}

function computeLineStarts(text: string): number[] {
  const starts = [0];
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === 0x0a) starts.push(index + 1);
    else if (char === 0x0d) {
      if (text.charCodeAt(index + 1) === 0x0a) index++;
      starts.push(index + 1);
    }
  }
  return starts;
}

/**
 * A YAML parser message without the source text some of them end with (`Unresolved alias …:
 * *abc`, `Unresolved tag: !x`): an unquoted value starting with `*` or `!` is read as an alias or
 * a tag, and it may be a secret.
 */
function yamlProblem(message: string): string {
  const line = firstLine(message);
  const quoting =
    /^(Unresolved alias \(the anchor must be set before the alias\)|Unresolved tag|Aliased anchor not found)(?=:|$)/.exec(
      line,
    );
  if (quoting === null) return line;
  return `${quoting[1]} (quote a value that starts with '*', '&' or '!')`;
}

function firstLine(message: string): string {
  const end = message.indexOf('\n');
  return end === -1 ? message : message.slice(0, end);
}

/**
 * `{` and `}` end a flow collection, so `[a, ${X}]` or `{ K: ${X} }` is broken YAML: the usual
 * cause of a syntax error on a line that holds a template, worth saying so.
 */
function templateHint(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const end = text.indexOf('\n', offset);
  const line = text.slice(start, end === -1 ? undefined : end);
  return /\$\{/.test(line) && /[[{]/.test(line.replace(/\$\{[^}]*\}/g, ''))
    ? " (inside [ ] or { }, quote a template: '${VAR}')"
    : '';
}
