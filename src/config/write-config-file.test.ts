import {
  chmodSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/scratch.js';
import { writeConfigFile } from './write-config-file.js';

const unix = process.platform !== 'win32';

describe('writeConfigFile', () => {
  it('a new file: written with mode 0600, no backup, no temporary file left', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    const result = await writeConfigFile(file, 'servers: {}\n');
    expect(result).toEqual({ file });
    expect(readFileSync(file, 'utf8')).toBe('servers: {}\n');
    if (unix) expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir.path)).toEqual(['mcp.yaml']);
  });

  it('an existing file: copied to <file>.bak first, replaced, its mode kept', async () => {
    using dir = tempDir();
    const file = join(dir.path, '.mcp.json');
    writeFileSync(file, 'old');
    chmodSync(file, 0o640);
    const result = await writeConfigFile(file, 'new');
    expect(result).toEqual({ file, backupFile: `${file}.bak` });
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe('old');
    expect(readFileSync(file, 'utf8')).toBe('new');
    if (unix) expect(statSync(file).mode & 0o777).toBe(0o640);
  });

  it('backups are numbered: <file>.bak, then <file>.bak.1, .bak.2; none is replaced', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(file, 'v1');
    const names: (string | undefined)[] = [];
    for (const text of ['v2', 'v3', 'v4'])
      names.push((await writeConfigFile(file, text)).backupFile);
    expect(names).toEqual([`${file}.bak`, `${file}.bak.1`, `${file}.bak.2`]);
    expect(names.map((name) => readFileSync(name!, 'utf8'))).toEqual(['v1', 'v2', 'v3']);
    expect(readFileSync(file, 'utf8')).toBe('v4');
  });

  it('backup: false makes none', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'mcp.json');
    writeFileSync(file, 'v1');
    expect(await writeConfigFile(file, 'v2', { backup: false })).toEqual({ file });
    expect(readdirSync(dir.path)).toEqual(['mcp.json']);
  });

  it.runIf(unix)(
    'a symbolic link is followed: its target is replaced, the link stays',
    async () => {
      using dir = tempDir();
      const target = join(dir.path, 'real.json');
      const link = join(dir.path, 'link.json');
      writeFileSync(target, 'old');
      symlinkSync(target, link);
      const result = await writeConfigFile(link, 'new');
      expect(result.file).toBe(target);
      expect(readFileSync(link, 'utf8')).toBe('new');
      expect(readFileSync(`${target}.bak`, 'utf8')).toBe('old');
    },
  );

  it('a failed write leaves the old file and no temporary file', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'missing-folder', 'mcp.json');
    await expect(writeConfigFile(file, 'x')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(readdirSync(dir.path)).toEqual([]);
  });
});
