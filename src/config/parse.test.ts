import { describe, expect, it } from 'vitest';
import { MAX_SYNTAX_DIAGNOSTICS, formatOfFile, parseConfigText } from './parse.js';

describe('parseConfigText', () => {
  it('parses YAML and locates values and keys (1-based)', () => {
    const text = 'servers:\n  github:\n    command: npx\n    args: [-y, server]\n';
    const doc = parseConfigText(text, '/x/mcp.yaml', 'yaml');
    expect(doc.diagnostics).toEqual([]);
    expect(doc.value).toEqual({ servers: { github: { command: 'npx', args: ['-y', 'server'] } } });
    expect(doc.locate(['servers', 'github', 'command'])).toEqual({ line: 3, column: 14 });
    expect(doc.locateKey(['servers', 'github', 'command'])).toEqual({ line: 3, column: 5 });
    expect(doc.locate(['servers', 'github', 'args', 1])).toEqual({ line: 4, column: 16 });
    expect(doc.locate(['servers', 'nope'])).toBeUndefined();
    expect(doc.locate([])).toEqual({ line: 1, column: 1 });
  });

  it('keeps YAML 1.2 scalars: on/no are strings, anchors and merge keys work', () => {
    const text = 'base: &b { a: 1 }\nx:\n  <<: *b\n  flag: on\n';
    const doc = parseConfigText(text, 'f.yaml', 'yaml');
    expect(doc.diagnostics).toEqual([]);
    expect(doc.value).toEqual({ base: { a: 1 }, x: { a: 1, flag: 'on' } });
  });

  it('reports YAML syntax errors with line and column instead of throwing', () => {
    const doc = parseConfigText('servers:\n  a: [1, 2\n  b: 3\n', 'bad.yaml', 'yaml');
    expect(doc.diagnostics.length).toBeGreaterThan(0);
    const [first] = doc.diagnostics;
    expect(first).toMatchObject({ severity: 'error', kind: 'syntax-error' });
    expect(first!.location).toMatchObject({ file: 'bad.yaml', dialect: 'mcp-host' });
    expect(first!.location!.line).toBeGreaterThanOrEqual(2);
  });

  it('reports duplicate YAML keys', () => {
    const doc = parseConfigText('a: 1\na: 2\n', 'd.yaml', 'yaml');
    expect(doc.diagnostics[0]).toMatchObject({ kind: 'duplicate-key', severity: 'error' });
    expect(doc.diagnostics[0]!.location).toMatchObject({ line: 2, column: 1 });
  });

  it('parses strict JSON and refuses comments and trailing commas', () => {
    const good = parseConfigText(
      '{\n  "mcpServers": { "a": { "command": "x" } }\n}',
      'c.json',
      'json',
    );
    expect(good.diagnostics).toEqual([]);
    expect(good.locate(['mcpServers', 'a', 'command'])).toEqual({ line: 2, column: 37 });
    expect(good.locateKey(['mcpServers', 'a'])).toEqual({ line: 2, column: 19 });

    const bad = parseConfigText('{\n  // hi\n  "a": 1,\n}', 'c.json', 'json', 'claude-desktop');
    expect(bad.diagnostics.length).toBeGreaterThanOrEqual(2);
    expect(new Set(bad.diagnostics.map((d) => d.kind))).toEqual(new Set(['syntax-error']));
    expect(bad.diagnostics[0]!.message).toContain('comments are not allowed');
    expect(bad.diagnostics[0]!.location).toMatchObject({
      line: 2,
      column: 3,
      dialect: 'claude-desktop',
    });
  });

  it('parses JSONC with comments and trailing commas', () => {
    const doc = parseConfigText('{\n  // hi\n  "servers": { "a": 1, },\n}', 'm.json', 'jsonc');
    expect(doc.diagnostics).toEqual([]);
    expect(doc.value).toEqual({ servers: { a: 1 } });
    expect(doc.locate(['servers', 'a'])).toEqual({ line: 3, column: 21 });
  });

  it('reports JSON syntax errors and duplicate keys with positions', () => {
    const doc = parseConfigText('{"a": 1, "a": 2, "b": tru}', 'x.json', 'json');
    const kinds = doc.diagnostics.map((d) => [d.kind, d.location?.column]);
    expect(kinds).toContainEqual(['syntax-error', 23]);
    expect(kinds).toContainEqual(['duplicate-key', 10]);
  });

  it('skips a byte order mark and handles CRLF and empty text', () => {
    const doc = parseConfigText('\ufeff{\r\n"a": 1\r\n}', 'x.json', 'json');
    expect(doc.value).toEqual({ a: 1 });
    expect(doc.locate(['a'])).toEqual({ line: 2, column: 6 });
    expect(parseConfigText('', 'e.json', 'json')).toMatchObject({
      value: undefined,
      diagnostics: [],
    });
    expect(parseConfigText('', 'e.yaml', 'yaml')).toMatchObject({ value: null, diagnostics: [] });
  });

  it('bounds YAML alias expansion', () => {
    const text =
      'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n' +
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n' +
      'e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n';
    const doc = parseConfigText(text, 'bomb.yaml', 'yaml');
    expect(doc.diagnostics.some((d) => d.severity === 'error')).toBe(true);
  });

  it('infers the format from the file name', () => {
    expect(formatOfFile('mcp.yaml')).toBe('yaml');
    expect(formatOfFile('A.YML')).toBe('yaml');
    expect(formatOfFile('x.jsonc')).toBe('jsonc');
    expect(formatOfFile('.mcp.json')).toBe('json');
  });

  it('never throws on documents nested too deeply, and bounds the diagnostics', () => {
    for (const [text, format] of [
      ['['.repeat(100_000), 'json'],
      ['['.repeat(100_000) + ']'.repeat(100_000), 'jsonc'],
      ['a: ' + '['.repeat(100_000), 'yaml'],
    ] as const) {
      const doc = parseConfigText(text, 'deep', format);
      expect(doc.diagnostics.length).toBeGreaterThan(0);
      expect(doc.diagnostics.length).toBeLessThanOrEqual(MAX_SYNTAX_DIAGNOSTICS + 1);
      expect(doc.diagnostics.every((d) => d.severity === 'error')).toBe(true);
    }
  });

  it('says to quote a template when one breaks a YAML flow collection', () => {
    const doc = parseConfigText('args: [a, ${ROOT:-/srv}]\nenv: ${X}\n', 'm.yaml', 'yaml');
    expect(doc.diagnostics[0]!.message).toMatch(/quote a template: '\$\{VAR\}'\)$/);
    expect(
      parseConfigText("args: [a, '${ROOT:-/srv}']\nenv: ${X}\n", 'm.yaml', 'yaml'),
    ).toMatchObject({
      value: { args: ['a', '${ROOT:-/srv}'], env: '${X}' },
      diagnostics: [],
    });
  });
});
