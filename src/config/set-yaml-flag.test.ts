import { describe, expect, it } from 'vitest';
import { setYamlFlag } from './set-yaml-flag.js';

const text = [
  '# servers for the team',
  'servers:',
  '  a:',
  '    command: node   # the runtime',
  "    args: ['x.mjs', --flag]",
  '    enabled: true  # turned on by hand',
  '  b:',
  '    command: npx',
  '    args: [-y, pkg]',
  '  c: { command: node, args: [c.mjs] }',
  '',
].join('\n');

describe('setYamlFlag', () => {
  it('replaces only the value of an existing key (its comment stays)', () => {
    expect(setYamlFlag(text, ['servers', 'a', 'enabled'], false)).toBe(
      text.replace('enabled: true  #', 'enabled: false  #'),
    );
  });

  it('adds one line to a block mapping, indented as its keys; nothing else moves', () => {
    expect(setYamlFlag(text, ['servers', 'b', 'enabled'], false)).toBe(
      text.replace('  b:\n', '  b:\n    enabled: false\n'),
    );
  });

  it('adds an entry to a flow mapping', () => {
    expect(setYamlFlag(text, ['servers', 'c', 'enabled'], false)).toBe(
      text.replace('{ command: node', '{ enabled: false, command: node'),
    );
  });

  it('keeps CRLF line ends', () => {
    const crlf = text.replace(/\n/g, '\r\n');
    expect(setYamlFlag(crlf, ['servers', 'b', 'enabled'], true)).toBe(
      crlf.replace('  b:\r\n', '  b:\r\n    enabled: true\r\n'),
    );
  });

  it('an empty mapping takes the round trip and still gets the value', () => {
    expect(setYamlFlag('servers:\n  d: {}\n', ['servers', 'd', 'enabled'], false)).toMatch(
      /d:\s*\{?\s*enabled: false/,
    );
  });
});
