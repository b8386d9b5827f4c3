import * as jsonc from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/helpers/seeded-random.js';
import { plainJsonNode, readPlainJson } from './plain-json.js';

/** What jsonc-parser reads: the value, its errors, and where the value and key at `path` start. */
function jsoncReading(text: string, allowJsonc: boolean) {
  const errors: jsonc.ParseError[] = [];
  const root = jsonc.parseTree(text, errors, {
    disallowComments: !allowJsonc,
    allowTrailingComma: allowJsonc,
    allowEmptyContent: true,
  });
  const at = (path: (string | number)[]) => {
    const node = root && jsonc.findNodeAtLocation(root, path);
    if (node === undefined) return undefined;
    const key = node.parent?.type === 'property' ? node.parent.children?.[0]?.offset : undefined;
    return { offset: node.offset, keyOffset: key ?? node.offset };
  };
  return { errors, value: root && jsonc.getNodeValue(root), at };
}

/** Every key path into a value: its members', recursively. */
function pathsOf(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  const paths = [path];
  if (Array.isArray(value)) value.forEach((item, i) => paths.push(...pathsOf(item, [...path, i])));
  else if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...path, key]));
  return paths;
}

/** readPlainJson either agrees with jsonc-parser in value and every position, or declines. */
function expectAgreement(text: string, allowJsonc: boolean): 'read' | 'declined' {
  const plain = readPlainJson(text, allowJsonc);
  const reference = jsoncReading(text, allowJsonc);
  const duplicate = plain === undefined ? false : hasDuplicateKey(text);
  if (plain === undefined) return 'declined';
  expect(reference.errors, text).toEqual([]);
  expect(duplicate, text).toBe(false);
  expect(plain.value, text).toStrictEqual(reference.value);
  for (const path of pathsOf(plain.value)) {
    const node = plainJsonNode(plain.root, path)!;
    expect(
      { offset: node.offset, keyOffset: node.keyOffset ?? node.offset },
      `${text} at ${path.join('.')}`,
    ).toEqual(reference.at(path));
  }
  return 'read';
}

function hasDuplicateKey(text: string): boolean {
  let found = false;
  const keys: Set<string>[] = [];
  jsonc.visit(text, {
    onObjectBegin: () => void keys.push(new Set()),
    onObjectEnd: () => void keys.pop(),
    onObjectProperty: (key) => {
      const seen = keys.at(-1)!;
      if (seen.has(key)) found = true;
      seen.add(key);
    },
  });
  return found;
}

function randomDocument(next: () => number, allowJsonc: boolean): string {
  const space = () => {
    const options = [' ', '', '\n', '\r\n', '\t', '  '];
    if (allowJsonc) options.push(' // note\n', '/* a\n b */', '/**/');
    return options[Math.floor(next() * options.length)]!;
  };
  const strings = [
    '',
    'a',
    'é😀',
    'quote " inside',
    'back\\slash',
    'tab\there',
    '\u2028',
    '__proto__',
    'x',
  ];
  const numbers = ['0', '-0', '12', '3.25', '-1e3', '2E-7', '1e400', '123456789012345678901234'];
  const value = (depth: number): string => {
    const roll = next();
    if (depth > 3 || roll < 0.35) {
      const leaf = Math.floor(next() * 4);
      if (leaf === 0) return JSON.stringify(strings[Math.floor(next() * strings.length)]);
      if (leaf === 1) return numbers[Math.floor(next() * numbers.length)]!;
      return ['true', 'false', 'null'][Math.floor(next() * 3)]!;
    }
    const count = Math.floor(next() * 4);
    const trailing = allowJsonc && count > 0 && next() < 0.3 ? ',' : '';
    if (roll < 0.65) {
      const items = Array.from({ length: count }, () => space() + value(depth + 1) + space());
      return `[${items.join(',')}${trailing}${space()}]`;
    }
    const keys = [
      ...new Set(
        Array.from({ length: count }, () => strings[Math.floor(next() * strings.length)]!),
      ),
    ];
    const members = keys.map(
      (key) => `${space()}${JSON.stringify(key)}${space()}:${space()}${value(depth + 1)}${space()}`,
    );
    return `{${members.join(',')}${trailing}${space()}}`;
  };
  return space() + value(0) + space();
}

describe('readPlainJson', () => {
  it('reads well-formed JSON and JSONC as jsonc-parser does: values, key and value positions', () => {
    const next = seededRandom(12);
    let read = 0;
    for (let i = 0; i < 600; i++) {
      const allowJsonc = i % 2 === 1;
      if (expectAgreement(randomDocument(next, allowJsonc), allowJsonc) === 'read') read++;
    }
    // Well-formed documents are all read here (none is left to jsonc-parser).
    expect(read).toBe(600);
  });

  it('declines every document jsonc-parser has something to say about', () => {
    const bad = [
      '',
      '   ',
      '{',
      '{"a": 1,}',
      '[1,]',
      '{"a" 1}',
      '{a: 1}',
      "{'a': 1}",
      '{"a": 1} x',
      '{"a": 01}',
      '{"a": 1.}',
      '{"a": .5}',
      '{"a": +1}',
      '{"a": tru}',
      '{"a": truex}',
      '{"a": "\\x"}',
      '{"a": "line\nbreak"}',
      '{"a": "open}',
      '{"a": 1, "a": 2}',
      '{"a": {"b": 1, "b": 1}}',
      '// comment\n{}',
      '{"a": 1 /* comment */}',
      '{"a":\u00a01}',
      '\ufeff{}',
      '['.repeat(300) + ']'.repeat(300),
    ];
    for (const text of bad)
      expect(readPlainJson(text, false), JSON.stringify(text)).toBeUndefined();
    // In JSONC, comments and trailing commas are fine; an unclosed comment is not.
    expect(readPlainJson('{"a": 1,} // x', true)?.value).toStrictEqual(
      Object.assign(Object.create(null), { a: 1 }),
    );
    expect(readPlainJson('{"a": 1 /* x', true)).toBeUndefined();
    expect(readPlainJson('{"a": 1 / 2}', true)).toBeUndefined();
  });

  it('reads a string of megabytes (no regular expression backtracking over it)', () => {
    const long = 'x'.repeat(10_000_000);
    const text = JSON.stringify({ a: long, b: `${'é\\n'.repeat(1000)}"` });
    const plain = readPlainJson(text, false);
    expect(plain?.value).toStrictEqual(jsoncReading(text, false).value);
    expect((plain?.value as { a: string }).a.length).toBe(10_000_000);
  });

  it('never disagrees with jsonc-parser on damaged documents: it reads them the same or declines', () => {
    const next = seededRandom(7);
    let declined = 0;
    for (let i = 0; i < 1500; i++) {
      const allowJsonc = i % 2 === 1;
      const text = randomDocument(next, allowJsonc);
      // Delete, duplicate or replace one character.
      const at = Math.floor(next() * text.length);
      const noise = '{}[],:"/*\\ 0e-.tnx\n'[Math.floor(next() * 20)]!;
      const edits = [
        text.slice(0, at) + text.slice(at + 1),
        text.slice(0, at) + text[at] + text.slice(at),
        text.slice(0, at) + noise + text.slice(at + 1),
      ];
      for (const damaged of edits)
        if (expectAgreement(damaged, allowJsonc) === 'declined') declined++;
    }
    expect(declined).toBeGreaterThan(1000);
  });
});
