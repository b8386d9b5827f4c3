import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/scratch.js';
import { ConfigError } from './diagnostics.js';
import { loadConfig } from './load.js';
import type { RootConfig } from './model.js';
import { resolveConfig } from './resolve-config.js';
import { resolveRoots } from './resolve-roots.js';

const url = (path: string): string => pathToFileURL(path).href;

function write(dir: string, name: string, text: string): string {
  const file = join(dir, name);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

describe('roots from config', () => {
  it('resolve to absolute file:// URIs: paths against their file’s folder, ~ to the home directory', () => {
    const source = { file: '/etc/mcp/mcp.yaml', dialect: 'mcp-host' as const, path: ['roots'] };
    const roots: RootConfig[] = [
      { path: './sandbox', name: 'sandbox', source },
      { path: '../shared data', source },
      { path: '~/projects', source },
      { path: '/abs/x', source },
      { uri: 'file:///srv/a/../b', source },
    ];
    expect(resolveRoots(roots, { homeDir: '/home/me' })).toEqual([
      { uri: 'file:///etc/mcp/sandbox', name: 'sandbox' },
      { uri: 'file:///etc/shared%20data' },
      { uri: 'file:///home/me/projects' },
      { uri: 'file:///abs/x' },
      { uri: 'file:///srv/b' },
    ]);
    const inline = { ...source, file: '<inline>' };
    expect(resolveRoots([{ path: 'rel', source: inline }], { cwd: '/work' })).toEqual([
      { uri: 'file:///work/rel' },
    ]);
  });

  it('several files: one list in load order, a root pointing where an earlier one does dropped; the host gets them', async () => {
    using dir = tempDir();
    const user = write(
      dir.path,
      'user/mcp.yaml',
      `servers: {}\nroots:\n  - ${join(dir.path, 'project', 'src')}\n  - { path: ./notes, name: notes }\n`,
    );
    const project = write(
      dir.path,
      'project/mcp.yaml',
      'servers: {}\nroots:\n  - ./src\n  - ./tests\n  - { path: ../user/notes, name: again }\n',
    );
    const { config } = await loadConfig({ files: [user, project] });
    expect(config.roots?.map((root) => [root.path, root.source.file])).toEqual([
      [join(dir.path, 'project', 'src'), user],
      ['./notes', user],
      ['./tests', project],
    ]);
    using resolved = await resolveConfig(config, { env: {} });
    expect(resolved.host.roots).toEqual([
      { uri: url(join(dir.path, 'project', 'src')) },
      { uri: url(join(dir.path, 'user', 'notes')), name: 'notes' },
      { uri: url(join(dir.path, 'project', 'tests')) },
    ]);

    const none = await resolveConfig(
      (await loadConfig({ files: [write(dir.path, 'n.yaml', 'servers: {}\n')] })).config,
      { env: {} },
    );
    expect('roots' in none.host).toBe(false);
    none.dispose();
  });

  it('a bad root fails the load with a ConfigError naming the file and the key', async () => {
    using dir = tempDir();
    const file = write(dir.path, 'mcp.yaml', 'servers: {}\nroots:\n  - ./ok\n  - s3://bucket/x\n');
    const error = await loadConfig({ files: [file] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe('CONFIG_INVALID');
    expect((error as ConfigError).message).toContain(
      `${file}:4:5: error: roots[1]: expected a path or a file:// URI`,
    );
  });
});
