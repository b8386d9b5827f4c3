import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BASIC, DIALECTS, fixture, HOME, kinds, load, strip } from './dialects-test-helpers.js';

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
    // The server named as every message about a server names it (aboutServer).
    expect(unknown.message).toBe(`server 'tools': unknown key "timeoutMs" kept as it is`);
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
