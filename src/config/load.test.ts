import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/scratch.js';
import { ConfigError, formatDiagnostic } from './diagnostics.js';
import { configSearchPaths, discoverConfigFiles, userConfigDir } from './discover.js';
import { loadConfig, loadConfigText, mergeConfigs, tryLoadConfig } from './load.js';
import { writeNativeConfig } from './native/native-write.js';
import { readConfigText } from './read-config-text.js';
import { resolveConfig } from './resolve-config.js';

function write(dir: string, name: string, text: string): string {
  const file = join(dir, name);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
}

describe('discoverConfigFiles', () => {
  it('finds the user file, then the project files, in merge order', async () => {
    using dir = tempDir();
    const home = join(dir.path, 'home');
    const project = join(dir.path, 'project');
    const env = { HOME: home, XDG_CONFIG_HOME: undefined };
    expect(await discoverConfigFiles(project, env)).toEqual([]);
    write(home, '.config/mcp-host/mcp.yaml', 'servers: {}\n');
    write(project, 'mcp.yaml', 'servers: {}\n');
    write(project, '.mcp.json', '{ "mcpServers": {} }\n');
    write(project, 'mcp.json', '{ "servers": {} }\n');
    expect(await discoverConfigFiles(project, env)).toEqual([
      { path: join(home, '.config/mcp-host/mcp.yaml'), dialect: 'mcp-host' },
      { path: join(project, '.mcp.json'), dialect: 'claude-code' },
      { path: join(project, 'mcp.json'), dialect: 'mcp-host' },
      { path: join(project, 'mcp.yaml'), dialect: 'mcp-host' },
    ]);
  });

  it('follows XDG_CONFIG_HOME (absolute only) and APPDATA on Windows', () => {
    expect(userConfigDir({ XDG_CONFIG_HOME: '/xdg', HOME: '/h' }, 'linux')).toBe('/xdg/mcp-host');
    expect(userConfigDir({ XDG_CONFIG_HOME: 'rel', HOME: '/h' }, 'linux')).toBe(
      '/h/.config/mcp-host',
    );
    expect(userConfigDir({ APPDATA: 'C:\\AppData' }, 'win32')).toMatch(/AppData.mcp-host$/);
    expect(configSearchPaths('/p', { HOME: '/h' }).map((s) => s.path)).toEqual([
      '/h/.config/mcp-host/mcp.json',
      '/h/.config/mcp-host/mcp.yml',
      '/h/.config/mcp-host/mcp.yaml',
      '/p/.mcp.json',
      '/p/mcp.json',
      '/p/mcp.yml',
      '/p/mcp.yaml',
    ]);
  });
});

describe('loadConfig', () => {
  it('loads the discovered files: the project overrides the user, each server keeps its source', async () => {
    using dir = tempDir();
    const home = join(dir.path, 'home');
    const project = join(dir.path, 'project');
    const user = write(
      home,
      '.config/mcp-host/mcp.yaml',
      'servers:\n  memory:\n    command: user-memory\n  notes:\n    command: notes\n' +
        'defaults:\n  timeouts: { connectMs: 1000, requestMs: 2000 }\n  pins: strict\n',
    );
    const claude = write(
      project,
      '.mcp.json',
      '{ "mcpServers": { "web": { "type": "http", "url": "https://web.example/mcp" } } }\n',
    );
    const native = write(
      project,
      'mcp.yaml',
      'servers:\n  memory:\n    command: project-memory\ndefaults:\n  timeouts: { requestMs: 5000 }\n',
    );
    const { config, diagnostics } = await loadConfig({
      cwd: project,
      env: { HOME: home, XDG_CONFIG_HOME: undefined },
    });
    expect(config.servers.map((s) => [s.name, s.source.file, s.source.dialect])).toEqual([
      ['memory', native, 'mcp-host'],
      ['notes', user, 'mcp-host'],
      ['web', claude, 'claude-code'],
    ]);
    expect(config.servers[0]!.transport).toMatchObject({ command: 'project-memory' });
    expect(config.files).toEqual([
      { file: user, dialect: 'mcp-host' },
      { file: claude, dialect: 'claude-code' },
      { file: native, dialect: 'mcp-host' },
    ]);
    expect(config.defaults).toEqual({
      timeouts: { connectMs: 1000, requestMs: 5000 },
      pins: 'strict',
    });
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      `${native}:2:3: warning: servers.memory: replaces the server 'memory' defined at ${user}:2:3`,
    ]);
  });

  it('takes explicit files (relative to cwd) instead of discovering, in the order given', async () => {
    using dir = tempDir();
    write(dir.path, 'a.yaml', 'servers:\n  x:\n    command: a\n');
    write(dir.path, 'b.yaml', 'servers:\n  x:\n    command: b\n');
    write(dir.path, 'mcp.yaml', 'servers:\n  ignored:\n    command: c\n');
    const ab = await loadConfig({ cwd: dir.path, files: ['a.yaml', 'b.yaml'] });
    expect(ab.config.servers.map((s) => s.transport)).toMatchObject([{ command: 'b' }]);
    const ba = await loadConfig({ cwd: dir.path, files: ['b.yaml', 'a.yaml'] });
    expect(ba.config.servers.map((s) => s.transport)).toMatchObject([{ command: 'a' }]);
  });

  it("with duplicates: 'error', a server defined in two files fails (and only it)", async () => {
    using dir = tempDir();
    const a = write(dir.path, 'a.yaml', 'servers:\n  x:\n    command: a\n  y:\n    command: y\n');
    const b = write(dir.path, 'b.yaml', 'servers:\n  x:\n    command: b\n');
    const c = write(dir.path, 'c.yaml', 'servers:\n  x:\n    command: c\n');
    const { config, diagnostics } = await loadConfig({
      cwd: dir.path,
      files: [a, b, c],
      duplicates: 'error',
    });
    expect(config.servers.map((s) => s.name)).toEqual(['y']);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      severity: 'error',
      kind: 'duplicate-server',
      server: 'x',
    });
    expect(formatDiagnostic(diagnostics[0]!)).toBe(
      `${b}:2:3: error: servers.x: the server 'x' is also defined at ${a}:2:3`,
    );
  });

  it('a later file that gets a server wrong fails it: the earlier definition is not used', async () => {
    using dir = tempDir();
    const a = write(dir.path, 'a.yaml', 'servers:\n  x:\n    command: a\n');
    const b = write(
      dir.path,
      'b.yaml',
      'servers:\n  x:\n    command: b\n    timeouts: { connectMs: -1 }\n',
    );
    const { config, diagnostics } = await loadConfig({ files: [a, b] });
    expect(config.servers).toEqual([]);
    expect(diagnostics).toMatchObject([{ severity: 'error', server: 'x', kind: 'out-of-range' }]);
  });

  it('throws ConfigError (CONFIG_INVALID) with file:line:column for a file-level error', async () => {
    using dir = tempDir();
    const good = write(dir.path, 'good.yaml', 'servers:\n  x:\n    command: a\n');
    const bad = write(dir.path, 'bad.yaml', 'servers:\n  y: [unclosed\n');
    const error = await loadConfig({ files: [good, bad] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const configError = error as ConfigError;
    expect(configError.code).toBe('CONFIG_INVALID');
    expect(configError.permanent).toBe(true);
    expect(configError.message).toMatch(
      new RegExp(`^invalid configuration: ${bad}:\\d+:\\d+: error: YAML: `),
    );
    expect(configError.diagnostics[0]).toMatchObject({ kind: 'syntax-error', severity: 'error' });
    expect(JSON.parse(JSON.stringify(configError))).toMatchObject({
      code: 'CONFIG_INVALID',
      details: { diagnostics: [{ kind: 'syntax-error', file: bad }] },
    });
    const tried = await tryLoadConfig({ files: [good, bad] });
    expect(tried.config).toBeUndefined();
    expect(tried.diagnostics.length).toBeGreaterThan(0);
  });

  it('an explicit file that does not exist is a file-level error', async () => {
    using dir = tempDir();
    const error = await loadConfig({ cwd: dir.path, files: ['nope.yaml'] }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      `invalid configuration: ${join(dir.path, 'nope.yaml')}: error: cannot read the config file: no such file`,
    );
  });

  it('refuses a file larger than maxFileBytes, and a directory, unread', async () => {
    using dir = tempDir();
    const big = write(dir.path, 'big.yaml', `servers: {}\n# ${'x'.repeat(2000)}\n`);
    const error = (await loadConfig({ files: [big], maxFileBytes: 1000 }).catch(
      (e: unknown) => e,
    )) as ConfigError;
    expect(error.message).toBe(
      `invalid configuration: ${big}: error: cannot read the config file: it is larger than 1000 bytes`,
    );
    expect((await loadConfig({ files: [big] })).config.servers).toEqual([]);
    const folder = (await loadConfig({ files: [dir.path] }).catch(
      (e: unknown) => e,
    )) as ConfigError;
    expect(folder.message).toMatch(/it is a directory$/);
  });

  it('invalid defaults fail the file (a typo in pins must not fall back to a weaker policy)', async () => {
    using dir = tempDir();
    const file = write(
      dir.path,
      'mcp.yaml',
      'servers:\n  ok:\n    command: node\ndefaults:\n  pins: strcit\n',
    );
    const error = (await loadConfig({ files: [file] }).catch((e: unknown) => e)) as ConfigError;
    expect(error.message).toBe(
      `invalid configuration: ${file}:5:9: error: defaults.pins: expected one of 'trust-on-first-use', 'strict' or false, found the string 'strcit' (did you mean 'strict'?)`,
    );
  });

  it('detects dialects by name and shape, with an override', async () => {
    using dir = tempDir();
    const desktop = write(
      dir.path,
      'claude_desktop_config.json',
      '{ "mcpServers": { "fs": { "command": "npx", "args": ["-y", "server-filesystem"] } } }',
    );
    const vscode = write(
      dir.path,
      '.vscode/mcp.json',
      '{\n  // comments allowed\n  "servers": { "gh": { "type": "stdio", "command": "gh-mcp" } },\n}\n',
    );
    const nativeJson = write(
      dir.path,
      'servers.json',
      '{ "servers": { "n": { "command": "n" } } }',
    );
    const { config } = await loadConfig({ files: [desktop, vscode, nativeJson] });
    expect(config.servers.map((s) => [s.name, s.source.dialect])).toEqual([
      ['fs', 'claude-desktop'],
      ['gh', 'vscode'],
      ['n', 'mcp-host'],
    ]);
    const forced = await loadConfig({ files: [{ path: nativeJson, dialect: 'vscode' }] });
    expect(forced.config.servers.map((s) => s.source.dialect)).toEqual(['vscode']);
  });

  it('a clash that only appears across files (names equal once sanitised) fails both servers', () => {
    const a = readConfigText('servers:\n  my.server:\n    command: a\n', '/a/mcp.yaml');
    const b = readConfigText(
      'servers:\n  my_server:\n    command: b\n  ok:\n    command: c\n',
      '/b/mcp.yaml',
    );
    const { config, diagnostics } = mergeConfigs([a, b]);
    expect(config.servers.map((s) => s.name)).toEqual(['ok']);
    expect(diagnostics.map((d) => [d.kind, d.server, d.location?.file])).toEqual([
      ['invalid-server-name', 'my.server', '/a/mcp.yaml'],
      ['invalid-server-name', 'my_server', '/b/mcp.yaml'],
    ]);
  });

  it('no files at all is an empty config, not an error', async () => {
    using dir = tempDir();
    const result = await loadConfig({ cwd: dir.path, env: { HOME: dir.path } });
    expect(result).toEqual({ config: { servers: [], files: [] }, diagnostics: [] });
  });

  it('what it loads resolves into host server definitions (expansion happens there, per server)', async () => {
    using dir = tempDir();
    const file = write(
      dir.path,
      'mcp.yaml',
      [
        'servers:',
        '  files:',
        '    command: node',
        "    args: [server.js, '${ROOT:-/srv}']",
        '    env:',
        '      TOKEN: ${FILES_TOKEN}',
        '  search:',
        '    url: https://search.example/mcp',
        "    headers: { Authorization: 'Bearer ${SEARCH_TOKEN}' }",
        '  live:',
        '    url: wss://live.example/mcp',
        '  legacy:',
        '    type: sse',
        '    url: http://127.0.0.1:9/sse',
        '  broken:',
        '    command: node',
        '    env:',
        '      KEY: ${UNSET_VARIABLE}',
        '',
      ].join('\n'),
    );
    const { config, diagnostics } = await loadConfig({ files: [file] });
    expect(diagnostics).toEqual([]);
    using resolved = await resolveConfig(config, {
      env: { FILES_TOKEN: 'files-secret-1234', SEARCH_TOKEN: 'search-secret-5678' },
      checkFileModes: false,
    });
    expect([...resolved.servers.keys()]).toEqual(['files', 'search', 'live', 'legacy']);
    expect([...resolved.errors.keys()]).toEqual(['broken']);
    const error = resolved.errors.get('broken')!;
    expect(error.code).toBe('CONFIG_VARIABLE_UNSET');
    expect(error.message).toContain('UNSET_VARIABLE');
    expect(error.message).toContain(file);
  });
});

describe('views in mcp.yaml', () => {
  const servers = 'servers:\n  files:\n    command: files\n  memory:\n    command: memory\n';

  it('reads views, resolves them into the host options, and writes them back', async () => {
    using dir = tempDir();
    const file = write(
      dir.path,
      'mcp.yaml',
      servers +
        [
          'views:',
          '  researcher:',
          '    servers: [memory]',
          "    allow: ['memory/read_*', 'memory/search_*']",
          '    permissions:',
          "      intern: { block: ['memory/search_*'] }",
          '    maxResultBytes: 4096',
          '  everything: {}',
          '',
        ].join('\n'),
    );
    const { config, diagnostics } = await loadConfig({ files: [file] });
    expect(diagnostics).toEqual([]);
    expect(config.views?.researcher).toMatchObject({
      servers: ['memory'],
      source: { file, path: ['views', 'researcher'], line: 7 },
    });
    using resolved = await resolveConfig(config, { env: {}, checkFileModes: false });
    expect(resolved.host.views).toEqual({
      researcher: {
        servers: ['memory'],
        allow: ['memory/read_*', 'memory/search_*'],
        permissions: { intern: { block: ['memory/search_*'] } },
        maxResultBytes: 4096,
      },
      everything: {},
    });
    const { text } = writeNativeConfig(config);
    expect(text).toContain('views:');
    const again = await loadConfigText(text, file);
    expect(again.diagnostics).toEqual([]);
    const plain = (views: typeof config.views) =>
      Object.entries(views ?? {}).map(([name, { source: _source, ...view }]) => [name, view]);
    expect(plain(again.config.views)).toEqual(plain(config.views));
  });

  it('a view naming an unknown server fails the file, naming the file and the key', async () => {
    using dir = tempDir();
    const file = write(
      dir.path,
      'mcp.yaml',
      servers + 'views:\n  researcher:\n    servers: [memory, memroy]\n',
    );
    const error = (await loadConfig({ files: [file] }).catch((e: unknown) => e)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.diagnostics).toMatchObject([
      {
        severity: 'error',
        kind: 'unknown-server',
        suggestion: 'memory',
        location: { file, path: ['views', 'researcher', 'servers', 1] },
      },
    ]);
    expect(error.message).toContain(`${file}:`);
    expect(error.message).toContain(
      "views.researcher.servers[1]: the view 'researcher' names the server 'memroy', which no config file defines",
    );
  });

  it('a view may name a server of another file; the later file’s view of a name wins', async () => {
    using dir = tempDir();
    const user = write(
      dir.path,
      'user.yaml',
      'servers: {}\nviews:\n  mine:\n    servers: [files]\n  shared:\n    allow: [a]\n',
    );
    const project = write(dir.path, 'mcp.yaml', servers + 'views:\n  shared:\n    allow: [b]\n');
    const { config, diagnostics } = await loadConfig({ files: [user, project] });
    expect(diagnostics).toEqual([]);
    expect(Object.keys(config.views ?? {})).toEqual(['mine', 'shared']);
    expect(config.views?.shared).toMatchObject({ allow: ['b'], source: { file: project } });
  });

  it('a mistyped view fails the file', async () => {
    using dir = tempDir();
    const file = write(dir.path, 'mcp.yaml', servers + 'views:\n  bad:\n    maxResultBytes: -1\n');
    await expect(loadConfig({ files: [file] })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      diagnostics: [{ location: { path: ['views', 'bad', 'maxResultBytes'] } }],
    });
  });
});
