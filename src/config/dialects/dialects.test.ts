import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ConfigDiagnostic, ConfigDialect, McpConfig, ServerConfig } from '../model.js';
import { parseConfigText } from '../parse.js';
import { readNativeText } from '../native.js';
import {
  detectDialect,
  dialects,
  foreignDialects,
  importConfig,
  importConfigText,
  readForeignText,
  type ForeignDialect,
} from './index.js';

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/config');
const HOME = '/home/tester';

const FIXTURE_FILES: Record<ForeignDialect, string> = {
  'claude-desktop': 'claude_desktop_config.json',
  'claude-code': '.mcp.json',
  vscode: '.vscode/mcp.json',
  cursor: '.cursor/mcp.json',
  crewai: 'crew.yaml',
};

function fixture(
  dialect: ForeignDialect,
  kind: 'basic' | 'full',
  name = FIXTURE_FILES[dialect],
): string {
  return join(FIXTURES, dialect, kind, name);
}

function load(file: string, dialect?: ForeignDialect) {
  return readForeignText(readFileSync(file, 'utf8'), file, {
    homeDir: HOME,
    ...(dialect ? { dialect } : {}),
  });
}

/** The model without where it came from and without dialect-specific extras. */
function strip(config: McpConfig): unknown {
  return {
    servers: config.servers.map(({ source: _source, extra: _extra, ...rest }) => rest),
    ...(config.inputs === undefined ? {} : { inputs: config.inputs }),
  };
}

/** A server's name, enable flag and transport without cwd / envFile (what every dialect has). */
function core(server: Omit<ServerConfig, 'source'>): unknown {
  const {
    cwd: _cwd,
    envFile: _envFile,
    ...transport
  } = server.transport as { cwd?: string; envFile?: string };
  return { name: server.name, enabled: server.enabled, transport };
}

function kinds(diagnostics: readonly ConfigDiagnostic[]): string[] {
  return diagnostics.map(
    (d) => `${d.severity}:${d.kind}${d.server === undefined ? '' : `:${d.server}`}`,
  );
}

const BASIC: Omit<ServerConfig, 'source'>[] = [
  {
    name: 'files',
    transport: {
      type: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
      env: { LOG_LEVEL: 'info' },
    },
    enabled: true,
  },
  {
    name: 'memory',
    transport: {
      type: 'stdio',
      command: 'node',
      args: ['./memory-server.js', '--verbose'],
      env: {},
    },
    enabled: true,
  },
];

const DIALECTS = Object.keys(FIXTURE_FILES) as ForeignDialect[];

describe('basic fixtures: every dialect loads into the same model', () => {
  it.each(DIALECTS)('%s', (dialect) => {
    const file = fixture(dialect, 'basic');
    const read = load(file);
    expect(read.dialect).toBe(dialect);
    expect(read.diagnostics).toEqual([]);
    expect(strip(read.config)).toEqual({ servers: BASIC });
    expect(read.config.files).toEqual([{ file, dialect }]);
    for (const server of read.config.servers) {
      expect(server.source.file).toBe(file);
      expect(server.source.dialect).toBe(dialect);
      expect(server.source.line).toBeGreaterThan(0);
    }
  });
});

describe('full fixtures', () => {
  it('claude-desktop: literal strings, remote read with a warning, unknown keys kept', () => {
    const read = load(fixture('claude-desktop', 'full'));
    expect(strip(read.config)).toEqual({
      servers: [
        {
          name: 'files',
          transport: {
            type: 'stdio',
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-filesystem', '$${HOME}/docs'],
            env: { PRICE: '$5', TOKEN: '$TOKEN' },
          },
          enabled: true,
        },
        {
          name: 'remote',
          transport: { type: 'http', url: 'https://example.com/mcp', headers: {} },
          enabled: true,
        },
        {
          name: 'off',
          transport: { type: 'stdio', command: 'node', args: ['off.js'], env: {} },
          enabled: false,
        },
      ],
    });
    expect(read.config.extra).toEqual({ globalShortcut: 'Ctrl+Space' });
    expect(kinds(read.diagnostics)).toEqual([
      'warning:unknown-key',
      'warning:unsupported-transport:remote',
    ]);
    expect(read.diagnostics[0]!.location).toMatchObject({
      path: ['globalShortcut'],
      line: 2,
      column: 3,
    });
  });

  it('claude-code: ${VAR:-default} keeps an empty VAR (canonical "-"), oauth, filters, array command', () => {
    const read = load(fixture('claude-code', 'full'));
    expect(strip(read.config)).toEqual({
      servers: [
        {
          name: 'github',
          transport: {
            type: 'stdio',
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-github', '--root=${PROJECT_ROOT-.}'],
            env: {
              GITHUB_TOKEN: '${GITHUB_TOKEN}',
              OPTIONAL: '${OPTIONAL-}',
              PRICE: '$5 and $HOME stay',
            },
          },
          enabled: true,
        },
        {
          name: 'api',
          transport: {
            type: 'http',
            url: '${API_BASE-https://api.example.com}/mcp',
            headers: { Authorization: 'Bearer ${API_TOKEN}' },
          },
          enabled: true,
          // oauth is not an expanded field in Claude Code: its `${` is literal.
          oauth: { clientId: 'client-$${NOT_EXPANDED}', scopes: ['read', 'write'] },
        },
        {
          name: 'legacy',
          transport: { type: 'sse', url: 'https://legacy.example.com/sse', headers: {} },
          enabled: false,
        },
        {
          name: 'tools',
          transport: {
            type: 'stdio',
            command: 'uvx',
            args: ['mcp-server-fetch', '--ignore-robots-txt'],
            env: {},
          },
          enabled: true,
          tools: { block: ['delete', 'rm\\*'] },
        },
      ],
    });
    const servers = new Map(read.config.servers.map((s) => [s.name, s]));
    expect(servers.get('api')!.extra).toEqual({ oauth: { callbackPort: 8080 } });
    expect(servers.get('tools')!.extra).toEqual({ alwaysAllow: ['fetch'], timeoutMs: 5000 });
    expect(kinds(read.diagnostics)).toEqual([
      'warning:unsupported-key:tools',
      'warning:unknown-key:tools',
    ]);
    const unknown = read.diagnostics[1]!;
    expect(unknown.location).toMatchObject({
      path: ['mcpServers', 'tools', 'timeoutMs'],
      line: 29,
      column: 7,
    });
  });

  it('vscode: inputs, ${env:}, ${input:}, predefined variables, unsupported ones kept literal', () => {
    const file = fixture('vscode', 'full');
    const workspace = resolve(dirname(file), '..');
    const read = load(file);
    expect(strip(read.config)).toEqual({
      servers: [
        {
          name: 'github',
          transport: {
            type: 'stdio',
            command: 'docker',
            args: ['run', '-i', '--rm', '-e', 'GITHUB_TOKEN', 'ghcr.io/github/github-mcp-server'],
            env: {
              GITHUB_TOKEN: '${input:api-key}',
              HOME_DIR: HOME,
              USER_NAME: '${USER}',
              LITERAL: '$USER and $${USER}',
            },
            cwd: workspace,
            envFile: `${workspace}/.env`,
          },
          enabled: true,
        },
        {
          name: 'api',
          transport: {
            type: 'http',
            url: 'https://api.example.com/${input:region}/mcp',
            headers: {
              Authorization: 'Bearer ${API_TOKEN}',
              'X-Font': '$${config:editor.fontSize}',
            },
          },
          enabled: true,
        },
        {
          name: 'events',
          transport: { type: 'sse', url: 'http://localhost:3001/sse', headers: {} },
          enabled: true,
        },
      ],
      inputs: [
        { id: 'api-key', type: 'promptString', description: 'GitHub token', password: true },
        {
          id: 'region',
          type: 'pickString',
          description: 'Region',
          options: ['eu', 'us'],
          default: 'eu',
        },
      ],
    });
    expect(read.config.extra).toEqual({
      vscodeInputs: [{ type: 'command', id: 'picked', command: 'extension.pick' }],
    });
    expect(read.config.servers[0]!.extra).toEqual({ dev: { watch: 'src/**/*.ts' } });
    expect(kinds(read.diagnostics)).toEqual([
      'warning:unsupported-input',
      'warning:literal-variable:github',
      'warning:unsupported-key:github',
      'warning:unsupported-variable:api',
    ]);
  });

  it('cursor: ${env:}, auth block, envFile; ${input:} is not Cursor grammar', () => {
    const file = fixture('cursor', 'full');
    const workspace = resolve(dirname(file), '..');
    const read = load(file);
    expect(strip(read.config)).toEqual({
      servers: [
        {
          name: 'db',
          transport: {
            type: 'stdio',
            command: 'npx',
            args: ['-y', 'db-mcp', `${workspace}/data.db`],
            env: { DB_PASSWORD: '${DB_PASSWORD}' },
            envFile: '.env',
          },
          enabled: true,
        },
        {
          name: 'linear',
          transport: { type: 'http', url: 'https://mcp.linear.app/mcp', headers: {} },
          enabled: true,
          oauth: {
            clientId: '${LINEAR_CLIENT_ID}',
            clientSecret: '${LINEAR_CLIENT_SECRET}',
            scopes: ['read', 'write'],
          },
        },
        {
          name: 'legacy',
          transport: {
            type: 'sse',
            url: 'https://legacy.example.com/sse',
            headers: { 'X-Key': '$${input:key}' },
          },
          enabled: true,
        },
      ],
    });
    expect(kinds(read.diagnostics)).toEqual(['warning:literal-variable:legacy']);
  });

  it('crewai: string references, tagged and class forms, tool_filter, cache, catalogue refused', () => {
    const read = load(fixture('crewai', 'full', 'agents.yaml'));
    expect(read.dialect).toBe('crewai');
    expect(strip(read.config)).toEqual({
      servers: [
        {
          name: 'api.weather.com',
          transport: { type: 'http', url: 'https://api.weather.com/mcp', headers: {} },
          enabled: true,
          tools: { allow: ['get_forecast'] },
        },
        {
          name: 'files',
          transport: {
            type: 'stdio',
            command: 'python',
            args: ['-m', 'mcp_server', '$${NOT_EXPANDED}'],
            env: { MODE: 'fast' },
          },
          enabled: true,
          toolsTtlMs: 300_000,
          tools: { allow: ['read_file', 'list\\*'], block: ['delete_file'] },
        },
        {
          name: 'tools.example.com',
          transport: {
            type: 'http',
            url: 'https://tools.example.com/mcp',
            headers: { Authorization: 'Bearer token123' },
          },
          enabled: true,
        },
        {
          name: 'events.example.com',
          transport: { type: 'sse', url: 'https://events.example.com/sse', headers: {} },
          enabled: true,
        },
      ],
    });
    expect(read.config.servers[2]!.extra).toEqual({ streamable: false });
    expect(read.config.servers[3]!.extra).toEqual({ retries: 3 });
    expect(kinds(read.diagnostics)).toEqual([
      'warning:unknown-key:events.example.com',
      'error:unsupported-reference:snowflake',
    ]);
    expect(read.diagnostics[1]!.location).toMatchObject({ path: ['mcps', 4], line: 19 });
  });
});

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
