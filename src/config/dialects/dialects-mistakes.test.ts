import { describe, expect, it } from 'vitest';
import { kinds } from './dialects-test-helpers.js';
import { readForeignText } from './read-text.js';

describe('mistakes: each a located diagnostic, the other servers still load', () => {
  const ok = '"ok": { "command": "node" }';
  it.each<[string, string, string, (string | number)[], number, number, string?]>([
    [
      'a misspelt key',
      '"a": { "comand": "npx" }',
      'warning:unknown-key:a',
      ['mcpServers', 'a', 'comand'],
      3,
      12,
      'command',
    ],
    [
      'no command nor url',
      '"a": { "comand": "npx" }',
      'error:missing-key:a',
      ['mcpServers', 'a'],
      3,
      10,
    ],
    [
      'args not an array',
      '"a": { "command": "x", "args": "-y" }',
      'error:invalid-type:a',
      ['mcpServers', 'a', 'args'],
      3,
      36,
    ],
    [
      'an arg not a string',
      '"a": { "command": "x", "args": [{}] }',
      'error:invalid-type:a',
      ['mcpServers', 'a', 'args', 0],
      3,
      37,
    ],
    [
      'env not an object',
      '"a": { "command": "x", "env": [] }',
      'error:invalid-type:a',
      ['mcpServers', 'a', 'env'],
      3,
      35,
    ],
    [
      'an unknown transport',
      '"a": { "type": "htp", "url": "https://x" }',
      'error:invalid-value:a',
      ['mcpServers', 'a', 'type'],
      3,
      20,
      'http',
    ],
    [
      'command and url',
      '"a": { "command": "x", "url": "https://x" }',
      'error:conflicting-keys:a',
      ['mcpServers', 'a'],
      3,
      10,
    ],
    [
      'url and serverUrl',
      '"a": { "url": "https://x", "serverUrl": "https://y" }',
      'error:conflicting-keys:a',
      ['mcpServers', 'a', 'serverUrl'],
      3,
      45,
    ],
    [
      'http without url',
      '"a": { "type": "http" }',
      'error:missing-key:a',
      ['mcpServers', 'a'],
      3,
      10,
    ],
    [
      'disabled not a boolean',
      '"a": { "command": "x", "disabled": "yes" }',
      'error:invalid-type:a',
      ['mcpServers', 'a', 'disabled'],
      3,
      40,
    ],
    ['a server not an object', '"a": "npx x"', 'error:invalid-type:a', ['mcpServers', 'a'], 3, 10],
    [
      'an unknown variable name',
      '"a": { "command": "x", "args": ["${A B}"] }',
      'error:invalid-variable:a',
      ['mcpServers', 'a', 'args', 0],
      3,
      37,
    ],
  ])('%s', (_what, entry, kind, path, line, column, suggestion) => {
    const text = `{\n  "mcpServers": {\n    ${entry},\n    ${ok}\n  }\n}\n`;
    const read = readForeignText(text, '/p/.mcp.json');
    const found = read.diagnostics.find((d) => kinds([d])[0] === kind);
    expect(found, kinds(read.diagnostics).join(', ')).toBeDefined();
    expect(found!.location).toEqual({
      file: '/p/.mcp.json',
      dialect: 'claude-code',
      path,
      line,
      column,
    });
    expect(found!.suggestion).toBe(suggestion);
    expect(read.config.servers.map((s) => s.name)).toContain('ok');
  });

  it('a top-level typo', () => {
    const read = readForeignText('{ "mcpServer": {} }', '/p/.cursor/mcp.json');
    expect(read.diagnostics[0]).toMatchObject({ kind: 'unknown-key', suggestion: 'mcpServers' });
  });

  it('a ws:// URL without a type is a WebSocket server', () => {
    const read = readForeignText(
      '{ "mcpServers": { "w": { "url": "wss://x/mcp" } } }',
      '/p/.mcp.json',
    );
    expect(read.config.servers[0]!.transport.type).toBe('websocket');
  });
});

it('a server name that cannot namespace its tools fails that server only', () => {
  const read = readForeignText(
    '{ "mcpServers": { "a__b": { "command": "x" }, "ok": { "command": "y" } } }',
    '/p/.mcp.json',
  );
  expect(kinds(read.diagnostics)).toEqual(['error:invalid-server-name:a__b']);
  expect(read.diagnostics[0]!.location).toMatchObject({ path: ['mcpServers', 'a__b'], line: 1 });
  expect(read.config.servers.map((s) => s.name)).toEqual(['ok']);
});
