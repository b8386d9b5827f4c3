import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ConfigDialect, McpConfig, ServerConfig } from '../model.js';
import { parseConfigText } from '../parse.js';
import { readNativeText } from '../native/native.js';
import { core, DIALECTS, fixture, HOME, kinds, load, strip } from './dialects-test-helpers.js';
import { detectDialect } from './detect.js';
import { dialects, foreignDialects, type ForeignDialect } from './registry.js';
import { importConfig, importConfigText } from './import-config.js';
import { readForeignText } from './read-text.js';

describe('detectDialect', () => {
  it.each<[string, unknown, ConfigDialect]>([
    ['/a/claude_desktop_config.json', {}, 'claude-desktop'],
    ['/a/.mcp.json', {}, 'claude-code'],
    ['/a/.vscode/mcp.json', {}, 'vscode'],
    ['/a/.cursor/mcp.json', {}, 'cursor'],
    ['C:\\work\\.VSCode\\mcp.json', {}, 'vscode'],
    ['/a/mcp.yaml', {}, 'mcp-host'],
    ['/a/mcp.json', { servers: { a: { command: 'x' } } }, 'mcp-host'],
    ['/u/Code/User/mcp.json', { servers: {}, inputs: [] }, 'vscode'],
    [
      '/u/Code/User/mcp.json',
      { servers: { a: { command: 'x', env: { T: '${input:t}' } } } },
      'vscode',
    ],
    ['/a/x.json', { mcpServers: { a: { command: 'x' } } }, 'claude-desktop'],
    ['/a/x.json', { mcpServers: { a: { type: 'http', url: 'https://x' } } }, 'claude-code'],
    ['/a/x.json', { mcpServers: { a: { command: 'x', env: { T: '${T:-1}' } } } }, 'claude-code'],
    ['/a/x.json', { mcpServers: { a: { url: 'https://x', auth: {} } } }, 'cursor'],
    ['/a/x.json', { mcpServers: { a: { command: 'x', env: { T: '${env:T}' } } } }, 'cursor'],
    ['/a/crew.yaml', { mcps: [] }, 'crewai'],
    ['/a/list.json', ['https://x/mcp'], 'crewai'],
  ])('%s %j → %s', (file, value, dialect) => {
    expect(detectDialect(file, value)).toBe(dialect);
  });

  it('an override wins', () => {
    expect(detectDialect('/a/.mcp.json', {}, 'cursor')).toBe('cursor');
  });
});

describe('round trips', () => {
  const sources = DIALECTS.flatMap((dialect) => [
    { dialect, file: fixture(dialect, 'basic') },
    {
      dialect,
      file:
        dialect === 'crewai' ? fixture(dialect, 'full', 'agents.yaml') : fixture(dialect, 'full'),
    },
  ]);

  it.each(DIALECTS)('every basic fixture printed as %s reads back the same', (target) => {
    for (const source of DIALECTS) {
      const config = load(fixture(source, 'basic')).config;
      const written = foreignDialects[target].write(config);
      expect(written.diagnostics).toEqual([]);
      expect(written.text.endsWith('\n')).toBe(true);
      const back = readForeignText(written.text, `/out/${target}.json`, { dialect: target });
      expect(back.diagnostics).toEqual([]);
      expect(strip(back.config)).toEqual(strip(config));
    }
  });

  it.each(sources.flatMap((s) => DIALECTS.map((target) => ({ ...s, target }))))(
    '$file as $target: what it can express reads back the same',
    ({ file, dialect, target }) => {
      const config = load(file, dialect).config;
      const written = foreignDialects[target].write(config);
      const back = readForeignText(written.text, `/out/${target}.json`, {
        dialect: target,
        homeDir: HOME,
      });
      expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const backByName = new Map(back.config.servers.map((s) => [s.name, s]));
      for (const server of config.servers) {
        const about = written.diagnostics.filter((d) => d.server === server.name);
        const { source: _s, extra: _e, ...expected } = server;
        const found = backByName.get(server.name);
        if (about.some((d) => d.severity === 'error')) {
          expect(found, `${server.name} left out`).toBeUndefined();
          continue;
        }
        expect(found, `${server.name} written`).toBeDefined();
        const { source: _s2, extra: _e2, ...actual } = found!;
        if (about.length === 0) expect(actual).toEqual(expected);
        else if (about.some((d) => d.kind === 'template-semantics'))
          expect(actual.transport.type).toBe(expected.transport.type);
        // Warnings leave settings out: what remains is the same.
        else expect(core(actual)).toEqual(core(expected));
      }
      // Into its own dialect, only disabled servers and VS Code's ${config:…} are left out.
      if (target === dialect)
        expect(kinds(written.diagnostics.filter((d) => d.severity === 'error')).sort()).toEqual(
          {
            'claude-desktop': ['error:not-expressible:off', 'error:not-expressible:remote'],
            'claude-code': ['error:not-expressible:legacy'],
            vscode: ['error:not-expressible:api'],
          }[file.includes('/full/') ? (dialect as string) : ''] ?? [],
        );
    },
  );

  it('same dialect: extras written back where they were', () => {
    const config = load(fixture('claude-code', 'full')).config;
    const written = foreignDialects['claude-code'].write(config);
    const value = JSON.parse(written.text) as {
      mcpServers: Record<string, Record<string, unknown>>;
    };
    expect(value.mcpServers.api!.oauth).toEqual({
      clientId: 'client-${NOT_EXPANDED}',
      scopes: 'read write',
      callbackPort: 8080,
    });
    expect(value.mcpServers.tools).toMatchObject({ alwaysAllow: ['fetch'], timeoutMs: 5000 });
  });

  it('vscode keeps inputs and unsupported inputs when written back as vscode', () => {
    const config = load(fixture('vscode', 'full')).config;
    const written = foreignDialects.vscode.write(config);
    const value = JSON.parse(written.text) as { inputs: { id: string }[] };
    expect(value.inputs.map((i) => i.id)).toEqual(['api-key', 'region', 'picked']);
  });
});

describe('writers: what the target cannot express', () => {
  const base: McpConfig = { servers: [], files: [] };
  const source = { file: '/x/mcp.yaml', dialect: 'mcp-host' as const, path: [] };
  const stdio = (env: Record<string, string>, name = 's'): ServerConfig => ({
    name,
    transport: { type: 'stdio', command: 'node', args: [], env },
    enabled: true,
    source,
  });
  const write = (dialect: ForeignDialect, ...servers: ServerConfig[]) =>
    foreignDialects[dialect].write({ ...base, servers });

  it('claude-desktop leaves out http servers and variables with an error, host settings with a warning', () => {
    const http: ServerConfig = {
      name: 'h',
      transport: { type: 'http', url: 'https://x', headers: {} },
      enabled: true,
      source,
    };
    const timed: ServerConfig = { ...stdio({}, 't'), timeouts: { connectMs: 1 } };
    const out = write('claude-desktop', http, stdio({ T: '${T}' }, 'v'), timed);
    expect(JSON.parse(out.text)).toEqual({ mcpServers: { t: { command: 'node', args: [] } } });
    expect(kinds(out.diagnostics)).toEqual([
      'error:not-expressible:h',
      'error:not-expressible:v',
      'warning:not-expressible:t',
    ]);
    expect(out.diagnostics[0]!.message).toContain('server left out');
  });

  it('a disabled server is left out everywhere', () => {
    for (const dialect of DIALECTS) {
      const out = write(dialect, { ...stdio({}), enabled: false });
      expect(kinds(out.diagnostics)).toEqual(['error:not-expressible:s']);
    }
  });

  it('roots are left out everywhere, with a warning', () => {
    for (const dialect of DIALECTS) {
      const out = foreignDialects[dialect].write({
        ...base,
        servers: [stdio({})],
        roots: [{ path: './sandbox', source }],
      });
      expect(out.text).not.toContain('sandbox');
      expect(kinds(out.diagnostics)).toEqual(['warning:not-expressible']);
      expect(out.diagnostics[0]!.message).toContain('roots cannot be expressed');
    }
  });
});

it('parse errors come with the read (JSONC where the dialect allows it, strict JSON for .mcp.json)', () => {
  const loose = '{ "mcpServers": { "a": { "command": "x", }, }, }';
  expect(readForeignText(loose, '/p/.cursor/mcp.json').diagnostics).toEqual([]);
  const strict = readForeignText(loose, '/p/.mcp.json');
  expect(strict.diagnostics.some((d) => d.kind === 'syntax-error')).toBe(true);
  expect(parseConfigText('{}', '/p/.mcp.json', 'json').diagnostics).toEqual([]);
});

describe('importConfig: a foreign file as native mcp.yaml', () => {
  const files = DIALECTS.flatMap((dialect) => [
    fixture(dialect, 'basic'),
    dialect === 'crewai' ? fixture(dialect, 'full', 'agents.yaml') : fixture(dialect, 'full'),
  ]);

  it.each(files)('%s', async (file) => {
    const imported = await importConfig(file, { homeDir: HOME });
    expect(
      imported.diagnostics.filter((d) => d.severity === 'error' && d.server !== 'snowflake'),
    ).toEqual([]);
    const back = readNativeText(imported.text, '/out/mcp.yaml');
    expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(strip(back.config)).toEqual(strip(imported.config));
    // Keys mcp-host does not know travel along.
    expect(back.config.servers.map((s) => s.extra ?? {})).toEqual(
      imported.config.servers.map((s) => s.extra ?? {}),
    );
  });

  it('JSON on request', () => {
    const file = fixture('claude-code', 'basic');
    const imported = importConfigText(readFileSync(file, 'utf8'), file, { format: 'json' });
    expect(JSON.parse(imported.text)).toMatchObject({ servers: { files: { command: 'npx' } } });
  });

  it('a native file is refused', () => {
    const result = importConfigText('servers: {}\n', '/p/mcp.yaml');
    expect(kinds(result.diagnostics)).toEqual(['error:wrong-dialect']);
  });
});

it('dialects holds all six, the native one included', () => {
  expect(Object.keys(dialects).sort()).toEqual([
    'claude-code',
    'claude-desktop',
    'crewai',
    'cursor',
    'mcp-host',
    'vscode',
  ]);
  for (const [name, module] of Object.entries(dialects)) expect(module.dialect).toBe(name);
});
