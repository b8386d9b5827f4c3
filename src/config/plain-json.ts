/**
 * The quick reading of a JSON or JSONC config: a small parser for well-formed documents that keeps
 * where each value and key starts. Almost every config file is well-formed, and reading one this
 * way spares loading `jsonc-parser` (about 75 KB of code, more than the rest of a command's config
 * work) on every start. Anything it does not take as plainly valid (a syntax error, a duplicate key,
 * an empty document, nesting deeper than any config) it leaves to `jsonc-parser`, which reports it
 * with line and column, so the diagnostics are the same as if it were not here.
 */

/** Where a value starts, where its key starts (object members), and where its members are. */
export interface PlainJsonNode {
  offset: number;
  keyOffset?: number;
  members?: Map<string, PlainJsonNode> | PlainJsonNode[];
}

export interface PlainJson {
  /** The value, with objects created without a prototype (as `jsonc-parser` creates them). */
  value: unknown;
  root: PlainJsonNode;
}

/** Deeper nesting is left to `jsonc-parser` (and its "nested too deeply" diagnostic). */
const MAX_DEPTH = 256;

/** Not plainly valid: `readPlainJson` gives up. */
class NotPlain extends Error {}

/**
 * Reads a well-formed JSON document (`jsonc`: comments and trailing commas allowed) with its value
 * positions; `undefined` when it is anything else, to be read by `jsonc-parser`.
 */
export function readPlainJson(text: string, jsonc: boolean): PlainJson | undefined {
  const reader = new Reader(text, jsonc);
  try {
    reader.skipSpace();
    if (reader.at >= text.length) return undefined;
    const root: PlainJsonNode = { offset: reader.at };
    const value = reader.value(root, 0);
    reader.skipSpace();
    return reader.at === text.length ? { value, root } : undefined;
  } catch (error) {
    if (error instanceof NotPlain) return undefined;
    throw error;
  }
}

/** The node at `path` (keys and indexes from the root), if there is one. */
export function plainJsonNode(
  root: PlainJsonNode,
  path: readonly (string | number)[],
): PlainJsonNode | undefined {
  let node: PlainJsonNode | undefined = root;
  for (const segment of path) {
    const members: PlainJsonNode['members'] = node?.members;
    if (members === undefined) return undefined;
    node =
      typeof segment === 'string'
        ? members instanceof Map
          ? members.get(segment)
          : undefined
        : Array.isArray(members)
          ? members[segment]
          : undefined;
  }
  return node;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;

class Reader {
  at = 0;

  constructor(
    private readonly text: string,
    private readonly jsonc: boolean,
  ) {}

  /** The value starting at `this.at` (after space); fills `node`'s members. */
  value(node: PlainJsonNode, depth: number): unknown {
    if (depth > MAX_DEPTH) throw new NotPlain();
    const text = this.text;
    switch (text.charCodeAt(this.at)) {
      case 0x7b /* { */:
        return this.object(node, depth);
      case 0x5b /* [ */:
        return this.array(node, depth);
      case 0x22 /* " */:
        return this.string();
      case 0x74 /* t */:
        return this.word('true', true);
      case 0x66 /* f */:
        return this.word('false', false);
      case 0x6e /* n */:
        return this.word('null', null);
      default:
        return this.number();
    }
  }

  object(node: PlainJsonNode, depth: number): Record<string, unknown> {
    const value = Object.create(null) as Record<string, unknown>;
    const members = new Map<string, PlainJsonNode>();
    node.members = members;
    this.at++;
    this.skipSpace();
    if (this.text.charCodeAt(this.at) === 0x7d /* } */) {
      this.at++;
      return value;
    }
    for (;;) {
      const keyOffset = this.at;
      if (this.text.charCodeAt(this.at) !== 0x22) throw new NotPlain();
      const key = this.string();
      if (members.has(key)) throw new NotPlain(); // jsonc-parser's reading reports it
      this.skipSpace();
      if (this.text.charCodeAt(this.at) !== 0x3a /* : */) throw new NotPlain();
      this.at++;
      this.skipSpace();
      const member: PlainJsonNode = { offset: this.at, keyOffset };
      members.set(key, member);
      value[key] = this.value(member, depth + 1);
      if (this.#endOf(0x7d /* } */)) return value;
    }
  }

  array(node: PlainJsonNode, depth: number): unknown[] {
    const value: unknown[] = [];
    const members: PlainJsonNode[] = [];
    node.members = members;
    this.at++;
    this.skipSpace();
    if (this.text.charCodeAt(this.at) === 0x5d /* ] */) {
      this.at++;
      return value;
    }
    for (;;) {
      const member: PlainJsonNode = { offset: this.at };
      members.push(member);
      value.push(this.value(member, depth + 1));
      if (this.#endOf(0x5d /* ] */)) return value;
    }
  }

  /** After a member: true at the closing bracket (consumed), false after a comma and space. */
  #endOf(close: number): boolean {
    this.skipSpace();
    const char = this.text.charCodeAt(this.at++);
    if (char === close) return true;
    if (char !== 0x2c /* , */) throw new NotPlain();
    this.skipSpace();
    if (this.text.charCodeAt(this.at) !== close) return false;
    if (!this.jsonc) throw new NotPlain();
    this.at++;
    return true;
  }

  /**
   * A string token: no raw control character, escapes as JSON has them. Scanned, not matched with
   * a regular expression, whose backtracking overflows the stack on a string of megabytes.
   */
  string(): string {
    const text = this.text;
    const start = this.at;
    let escaped = false;
    let i = start + 1;
    for (;;) {
      const char = text.charCodeAt(i);
      if (char === 0x22 /* " */) break;
      // The end of the text (NaN) or a raw control character.
      if (!(char >= 0x20)) throw new NotPlain();
      if (char !== 0x5c /* \ */) {
        i++;
        continue;
      }
      escaped = true;
      const next = text[i + 1];
      if (next === 'u') {
        if (!HEX4.test(text.slice(i + 2, i + 6))) throw new NotPlain();
        i += 6;
      } else if (next !== undefined && '"\\/bfnrt'.includes(next)) {
        i += 2;
      } else {
        throw new NotPlain();
      }
    }
    this.at = i + 1;
    const token = text.slice(start, i + 1);
    return escaped ? (JSON.parse(token) as string) : token.slice(1, -1);
  }

  number(): number {
    NUMBER.lastIndex = this.at;
    const match = NUMBER.exec(this.text);
    if (match === null) throw new NotPlain();
    this.at += match[0].length;
    return Number(match[0]);
  }

  word<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.at)) throw new NotPlain();
    this.at += word.length;
    return value;
  }

  /** Skips white space (JSON's four characters) and, in JSONC, comments. */
  skipSpace(): void {
    const text = this.text;
    for (;;) {
      const char = text.charCodeAt(this.at);
      if (char === 0x20 || char === 0x0a || char === 0x0d || char === 0x09) this.at++;
      else if (char === 0x2f /* / */ && this.jsonc) this.#comment();
      else return;
    }
  }

  #comment(): void {
    const text = this.text;
    const next = text.charCodeAt(this.at + 1);
    if (next === 0x2f /* / */) {
      let end = this.at + 2;
      while (end < text.length && text[end] !== '\n' && text[end] !== '\r') end++;
      this.at = end;
    } else if (next === 0x2a /* * */) {
      const end = text.indexOf('*/', this.at + 2);
      if (end < 0) throw new NotPlain();
      this.at = end + 2;
    } else {
      throw new NotPlain();
    }
  }
}
