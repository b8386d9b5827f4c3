import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../diagnostics.js';
import { read, withoutPositions } from './native-test-helpers.js';
import { readNativeConfig } from './native-read.js';
import { readNativeText } from './native.js';
import { writeNativeConfig } from './native-write.js';

describe('native format: reading', () => {
  it('reads every key of the full example', () => {
    const { config, diagnostics } = read('valid/full.yaml');
    expect(diagnostics).toEqual([]);
    expect(config.servers.map((s) => s.name)).toEqual([
      'github',
      'files',
      'search',
      'linear',
      'live',
    ]);
    const [github, files, search, linear, live] = config.servers;
    expect(github).toMatchObject({
      name: 'github',
      transport: {
        type: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-github'],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_TOKEN}', LOG_LEVEL: '${LOG_LEVEL:-info}' },
      },
      enabled: true,
      tools: { block: ['delete_*', '*_admin'] },
      secretKeys: ['LOG_LEVEL'],
      source: { dialect: 'mcp-host', path: ['servers', 'github'], line: 4, column: 3 },
    });
    expect(github!.source.file).toMatch(/full\.yaml$/);
    expect(files).toMatchObject({
      transport: { type: 'stdio', cwd: '~/projects', envFile: '.env', env: {} },
      lazy: true,
      timeouts: { connectMs: 20000, requestMs: 60000, discoverMs: 10000 },
      restart: { enabled: true, crashLimit: 5 },
      maxInFlight: 4,
      maxQueue: 32,
    });
    expect(search).toMatchObject({
      transport: {
        type: 'http',
        url: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer ${input:search-token}', 'X-Region': 'eu' },
      },
      retry: { maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 2000 },
      toolsTtlMs: 60000,
      trusted: true,
      tools: { allow: ['search', 'fetch_*'] },
    });
    expect(linear).toMatchObject({
      transport: { type: 'sse', url: 'https://mcp.linear.app/sse' },
      retry: false,
      oauth: {
        clientId: 'mcp-host',
        clientSecret: '${LINEAR_CLIENT_SECRET}',
        scopes: ['read', 'write'],
      },
    });
    expect(live).toMatchObject({ transport: { type: 'websocket' }, enabled: false });
    expect(config.inputs).toEqual([
      { id: 'search-token', type: 'promptString', description: 'Search API token', password: true },
    ]);
    expect(config.defaults).toEqual({
      timeouts: { connectMs: 10000, requestMs: 30000 },
      retry: { maxAttempts: 2 },
      toolsTtlMs: 300000,
      restart: { crashLimit: 5 },
      health: { intervalMs: 30000, timeoutMs: 5000, failuresBeforeRestart: 2 },
      naming: { prefix: 'mcp', separator: '__', providerSafe: true },
      maxResultBytes: 1048576,
      pins: 'trust-on-first-use',
    });
    expect(config.views).toEqual({
      researcher: {
        servers: ['search', 'files'],
        allow: ['search/*', 'files/read_*'],
        block: ['*_admin'],
        permissions: { intern: { block: ['files/*'] } },
        maxResultBytes: 65536,
        source: expect.objectContaining({ path: ['views', 'researcher'], line: 68 }) as unknown,
      },
    });
    expect(config.files).toEqual([{ file: github!.source.file, dialect: 'mcp-host' }]);
    expect(JSON.parse(JSON.stringify(config))).toEqual(config); // plain JSON data
  });

  it('reads YAML and JSON of the same config into the same model', () => {
    const yaml = read('valid/minimal.yaml');
    const json = read('valid/minimal.json');
    expect(yaml.diagnostics).toEqual([]);
    expect(json.diagnostics).toEqual([]);
    expect(withoutPositions({ ...yaml.config, files: [] })).toEqual(
      withoutPositions({ ...json.config, files: [] }),
    );
    expect(json.config.servers[0]!.source).toMatchObject({ line: 3, column: 5 });
  });

  it('reads the A3S layout (transport keys under `transport:`) as the flat one', () => {
    const { config, diagnostics } = read('valid/a3s-layout.yaml');
    expect(diagnostics).toEqual([]);
    expect(config.servers.map((s) => [s.name, s.transport])).toEqual([
      [
        'github',
        {
          type: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-github'],
          env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' },
        },
      ],
      [
        'filesystem',
        {
          type: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '/workspace'],
          env: {},
        },
      ],
      [
        'custom-api',
        {
          type: 'http',
          url: 'https://mcp.example.com/api',
          headers: { Authorization: 'Bearer ${API_TOKEN}' },
        },
      ],
    ]);
    // Written flat.
    expect(writeNativeConfig(config).text).toContain(
      '  custom-api:\n    url: https://mcp.example.com/api\n    headers:\n',
    );
    // A type error under `transport:` points there.
    const bad = readNativeText('servers:\n  a:\n    transport:\n      url: 5\n', 'm.yaml');
    expect(bad.diagnostics.map(formatDiagnostic)).toEqual([
      'm.yaml:4:12: error: servers.a.transport.url: expected a non-empty string, found 5',
    ]);
    expect(bad.config.servers).toEqual([]);
  });

  it('infers transports from command and url, and keeps templates as written', () => {
    const { config, diagnostics } = read('valid/remote.json');
    expect(diagnostics).toEqual([]);
    expect(config.servers.map((s) => [s.name, s.transport.type])).toEqual([
      ['search', 'http'],
      ['legacy', 'sse'],
      ['socket', 'websocket'],
    ]);
    expect(config.servers[0]!.transport).toMatchObject({
      url: '${SEARCH_URL:-https://mcp.example.com/mcp}',
    });
    expect(config.extra).toEqual({
      $schema: 'https://unpkg.com/mcp-host/schema/mcp-config.schema.json',
    });
    expect(config.defaults).toEqual({ pins: false });
    const ws = readNativeConfig(
      { value: { servers: { a: { url: 'wss://x/mcp' }, b: { url: 'WS://x/mcp' } } } },
      '<inline>',
    );
    expect(ws.config.servers.map((s) => s.transport.type)).toEqual(['websocket', 'websocket']);
  });

  it('takes numbers in args, env and headers as text, and warns about true/false', () => {
    const { config, diagnostics } = readNativeConfig(
      {
        value: { servers: { a: { command: 'x', args: ['--port', 8080], env: { N: 1, B: true } } } },
      },
      '<inline>',
    );
    expect(config.servers[0]!.transport).toMatchObject({
      args: ['--port', '8080'],
      env: { N: '1', B: 'true' },
    });
    expect(diagnostics.map((d) => [d.severity, d.kind, d.location?.path])).toEqual([
      ['warning', 'coerced-value', ['servers', 'a', 'env', 'B']],
    ]);
  });

  it('an empty file is a warning, not an error', () => {
    expect(readNativeText('', 'mcp.yaml').diagnostics).toMatchObject([
      { severity: 'warning', kind: 'empty-file' },
    ]);
    expect(readNativeText('# nothing yet\n', 'mcp.yaml').config.servers).toEqual([]);
  });
});

describe('docs/config.md', () => {
  const docs = readFileSync(new URL('../../../docs/config.md', import.meta.url), 'utf8');
  const blocks = (language: string) =>
    [...docs.matchAll(new RegExp('^```' + language + '\\n([^]*?)^```$', 'gm'))].map((m) => m[1]!);

  it('the complete example is the full fixture', () => {
    const example = readNativeText(blocks('yaml')[0]!, 'mcp.yaml');
    expect(example.diagnostics).toEqual([]);
    expect(withoutPositions({ ...example.config, files: [] })).toEqual(
      withoutPositions({ ...read('valid/full.yaml').config, files: [] }),
    );
  });

  it('every other YAML example reads cleanly', () => {
    for (const block of blocks('yaml').filter((b) => !b.includes('enabeld')))
      expect(readNativeText(block, 'mcp.yaml').diagnostics).toEqual([]);
  });

  it('the validation example prints what the docs show', () => {
    const example = blocks('yaml').find((block) => block.includes('enabeld'))!;
    const { config, diagnostics } = readNativeText(example, 'mcp.yaml');
    expect(config.servers.map((s) => s.name)).toEqual(['remote']);
    expect(diagnostics.map(formatDiagnostic).join('\n') + '\n').toBe(blocks('text')[0]);
  });
});

describe('native format: empty values', () => {
  it('`servers:`, `defaults:` or `inputs:` with nothing under them is a warning, not an error', () => {
    const value = { servers: null, defaults: null };
    const { config, diagnostics } = readNativeText('servers:\ndefaults:\n', 'mcp.yaml');
    expect(config.servers).toEqual([]);
    expect(diagnostics.map((d) => [d.severity, d.kind, d.location?.line])).toEqual([
      ['warning', 'empty-value', 1],
      ['warning', 'empty-value', 2],
    ]);
    readNativeConfig({ value }, '<inline>');
    expect(value).toEqual({ servers: null, defaults: null }); // the document is not changed
  });
});

describe('native format: names passed through', () => {
  it('reads defaults.naming.passThrough, and fails every server when there are two', () => {
    const one = readNativeText(
      'servers:\n  only:\n    command: server\ndefaults:\n  naming: { passThrough: true }\n',
      'mcp.yaml',
    );
    expect(one.diagnostics).toEqual([]);
    expect(one.config.defaults?.naming).toEqual({ passThrough: true });

    const two = readNativeText(
      'servers:\n  a:\n    command: x\n  b:\n    command: y\ndefaults:\n  naming: { passThrough: true }\n',
      'mcp.yaml',
    );
    expect(two.config.servers).toEqual([]);
    expect(two.diagnostics.map((d) => [d.severity, d.kind, d.server])).toEqual([
      ['error', 'invalid-server-name', 'a'],
      ['error', 'invalid-server-name', 'b'],
    ]);
    expect(two.diagnostics[0]?.message).toContain('"a", "b"');
  });
});
