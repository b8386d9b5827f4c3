/**
 * The client against the official filesystem reference server over stdio, confined to a fresh
 * temporary directory: write, read back, list, search, file info and edit through its tools, and
 * an access outside the allowed directory coming back as a tool error result (data, not a throw).
 */
import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '../../src/index.js';
import { connectScript, type RunningClient } from '../helpers/mcp-servers.js';
import { tempDir, type TempDir } from '../helpers/scratch.js';
import { SpecSchema } from '../helpers/spec-schema.js';

const script = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
);
let dir: TempDir;
let root: string;
let server: RunningClient;

beforeAll(async () => {
  dir = tempDir();
  // The server resolves its allowed directories to real paths; compare against the same.
  root = realpathSync(dir.path);
  server = await connectScript('filesystem', script, [root]);
});

afterAll(async () => {
  await server[Symbol.asyncDispose]();
  dir[Symbol.dispose]();
});

/** The text of a result's text content, joined. */
function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

describe('official filesystem server over stdio', () => {
  it('is detected as legacy and lists its tools, none excluded', async () => {
    expect(server.client.era).toBe('legacy');
    expect(server.client.session?.version).toBe('2025-11-25');
    const { tools: items, excluded } = await server.client.listTools();
    const names = items.map((t) => t.name);
    for (const expected of [
      'read_text_file',
      'write_file',
      'edit_file',
      'list_directory',
      'search_files',
      'get_file_info',
      'list_allowed_directories',
    ]) {
      expect(names).toContain(expected);
    }
    expect(excluded).toEqual([]);
    // Its tools declare output schemas; the results below must carry structured content.
    expect(items.find((t) => t.name === 'write_file')?.outputSchema).toBeDefined();
  });

  it('names the temporary directory as the only allowed one', async () => {
    const result = await server.client.callTool('list_allowed_directories', {});
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toContain(root);
  });

  it('writes a file and reads it back', async () => {
    const path = join(root, 'notes.txt');
    const written = await server.client.callTool('write_file', {
      path,
      content: 'first line\nsecond line\n',
    });
    expect(written.isError).not.toBe(true);
    expect(written.structuredContent).toMatchObject({ content: expect.any(String) });
    expect(await readFile(path, 'utf8')).toBe('first line\nsecond line\n');
    const read = await server.client.callTool('read_text_file', { path });
    expect(read.isError).not.toBe(true);
    expect(textOf(read)).toBe('first line\nsecond line\n');
    const head = await server.client.callTool('read_text_file', { path, head: 1 });
    expect(textOf(head)).toBe('first line');
  });

  it('lists the directory', async () => {
    await server.client.callTool('create_directory', { path: join(root, 'sub') });
    await server.client.callTool('write_file', {
      path: join(root, 'sub', 'deep.md'),
      content: '# deep',
    });
    const listing = await server.client.callTool('list_directory', { path: root });
    expect(listing.isError).not.toBe(true);
    const lines = textOf(listing).split('\n');
    expect(lines).toContain('[FILE] notes.txt');
    expect(lines).toContain('[DIR] sub');
  });

  it('searches for files by glob', async () => {
    const found = await server.client.callTool('search_files', { path: root, pattern: '**/*.md' });
    expect(found.isError).not.toBe(true);
    expect(textOf(found).split('\n')).toEqual([join(root, 'sub', 'deep.md')]);
    const none = await server.client.callTool('search_files', { path: root, pattern: '*.png' });
    expect(none.isError).not.toBe(true);
    expect(textOf(none)).toMatch(/no matches/i);
  });

  it('gets file info', async () => {
    const info = await server.client.callTool('get_file_info', { path: join(root, 'notes.txt') });
    expect(info.isError).not.toBe(true);
    const text = textOf(info);
    expect(text).toContain('size: 23');
    expect(text).toContain('isFile: true');
  });

  it('edits a file (dry run first, then for real)', async () => {
    const path = join(root, 'notes.txt');
    const edits = [{ oldText: 'second line', newText: 'edited line' }];
    const dryRun = await server.client.callTool('edit_file', { path, edits, dryRun: true });
    expect(dryRun.isError).not.toBe(true);
    expect(textOf(dryRun)).toContain('+edited line');
    expect(await readFile(path, 'utf8')).toBe('first line\nsecond line\n');
    const edited = await server.client.callTool('edit_file', { path, edits });
    expect(edited.isError).not.toBe(true);
    expect(await readFile(path, 'utf8')).toBe('first line\nedited line\n');
    const missing = await server.client.callTool('edit_file', { path, edits });
    expect(missing.isError).toBe(true);
  });

  it('returns access outside the allowed directory as a tool error result, not a throw', async () => {
    for (const [tool, args] of [
      ['read_text_file', { path: '/etc/hostname' }],
      ['write_file', { path: join(root, '..', 'escaped.txt'), content: 'no' }],
      ['list_directory', { path: '/' }],
    ] as const) {
      const result = await server.client.callTool(tool, args);
      expect(result.isError, tool).toBe(true);
      expect(textOf(result), tool).toMatch(/access denied/i);
    }
    await expect(readFile(join(root, '..', 'escaped.txt'))).rejects.toMatchObject({
      code: 'ENOENT',
    });
    // The connection is unaffected.
    const read = await server.client.callTool('read_text_file', { path: join(root, 'notes.txt') });
    expect(read.isError).not.toBe(true);
  });

  it('sent only messages that validate against the schema of their revision', () => {
    const transport = server.transports.at(-1)!;
    const [probe, ...legacy] = transport.sent;
    expect(probe).toMatchObject({ method: 'server/discover' });
    expect(new SpecSchema('2026-07-28').check(probe!)).toEqual([]);
    const schema = new SpecSchema('2025-11-25');
    expect(legacy.flatMap((m) => schema.check(m, transport.inboundMethods))).toEqual([]);
  });
});
