import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from './diagnostics.js';
import type { McpConfig } from './model.js';
import { nativeDialect, readNativeConfig, readNativeText, writeNativeConfig } from './native.js';

const fixtures = fileURLToPath(new URL('../../test/fixtures/config/native/', import.meta.url));
const read = (name: string) => {
  const file = `${fixtures}${name}`;
  return readNativeText(readFileSync(file, 'utf8'), file);
};
const withoutPositions = (config: McpConfig): unknown =>
  JSON.parse(
    JSON.stringify(config, (key, value: unknown) => (key === 'source' ? undefined : value)),
  );

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

interface MistakeCase {
  fixture: string;
  kind: string;
  severity?: 'error' | 'warning';
  /** The key path, as people write it. */
  path: string;
  line: number;
  column: number;
  /** The server it fails (`undefined`: the file). */
  server?: string;
  suggestion?: string;
  message?: RegExp;
  /** Servers still read. */
  servers?: string[];
}

const mistakes: MistakeCase[] = [
  {
    fixture: 'bad-template.yaml',
    kind: 'invalid-template',
    path: 'servers.api.headers.Authorization',
    line: 5,
    column: 22,
    server: 'api',
    message: /unterminated `\$\{`/,
    servers: ['ok'],
  },
  {
    fixture: 'foreign-disabled.yaml',
    kind: 'foreign-key',
    path: 'servers.files.disabled',
    line: 4,
    column: 5,
    server: 'files',
    suggestion: 'enabled',
    message: /'disabled' is how other tools say it; mcp.yaml says `enabled: false`/,
    servers: ['ok'],
  },
  {
    fixture: 'inconsistent-delays.yaml',
    kind: 'inconsistent-values',
    severity: 'warning',
    path: 'servers.files.restart.baseDelayMs',
    line: 4,
    column: 29,
    server: 'files',
    message: /every delay will be 1000/,
    servers: ['files'],
  },
  {
    fixture: 'wrong-type.yaml',
    kind: 'invalid-type',
    path: 'servers.github.args',
    line: 4,
    column: 11,
    server: 'github',
    message: /expected a list of strings or numbers, found a string$/,
    servers: ['ok'],
  },
  {
    fixture: 'missing-command.yaml',
    kind: 'missing-key',
    path: 'servers.github',
    line: 3,
    column: 5,
    server: 'github',
    message: /missing `command` \(stdio\) or `url`/,
    servers: ['ok'],
  },
  {
    fixture: 'command-and-url.yaml',
    kind: 'conflicting-keys',
    path: 'servers.both.url',
    line: 4,
    column: 10,
    server: 'both',
    servers: ['ok'],
  },
  {
    fixture: 'bad-url.yaml',
    kind: 'invalid-url',
    path: 'servers.remote.url',
    line: 3,
    column: 10,
    server: 'remote',
    message: /expected an absolute URL/,
    servers: ['ok'],
  },
  {
    fixture: 'url-scheme.yaml',
    kind: 'invalid-url',
    path: 'servers.remote.url',
    line: 4,
    column: 10,
    server: 'remote',
    message: /the http transport needs a URL starting with http:\/\/ or https:\/\/, found ws:\/\//,
    servers: ['ok'],
  },
  {
    fixture: 'negative-timeout.yaml',
    kind: 'out-of-range',
    path: 'servers.slow.timeouts.connectMs',
    line: 5,
    column: 18,
    server: 'slow',
    message: /expected a whole number ≥ 0, found -1000/,
    servers: ['ok'],
  },
  {
    fixture: 'unknown-key.yaml',
    kind: 'unknown-key',
    severity: 'warning',
    path: 'servers.files.enabeld',
    line: 4,
    column: 5,
    server: 'files',
    suggestion: 'enabled',
    servers: ['files'],
  },
  {
    fixture: 'misspelt-command.yaml',
    kind: 'unknown-key',
    severity: 'warning',
    path: 'servers.files.comand',
    line: 3,
    column: 5,
    server: 'files',
    suggestion: 'command',
    servers: [],
  },
  {
    fixture: 'invalid-glob.yaml',
    kind: 'invalid-value',
    path: 'servers.files.tools.allow[1]',
    line: 5,
    column: 26,
    server: 'files',
    message: /expected a non-empty string, found an empty string/,
    servers: ['ok'],
  },
  {
    fixture: 'regex-glob.yaml',
    kind: 'suspicious-glob',
    severity: 'warning',
    path: 'servers.files.tools.block[0]',
    line: 5,
    column: 15,
    server: 'files',
    servers: ['files'],
  },
  {
    fixture: 'invalid-enabled.yaml',
    kind: 'invalid-type',
    path: 'servers.files.enabled',
    line: 4,
    column: 14,
    server: 'files',
    message: /expected true or false, found the string 'yes' \(write true or false/,
    servers: ['ok'],
  },
  {
    fixture: 'bad-type.yaml',
    kind: 'invalid-value',
    path: 'servers.files.type',
    line: 4,
    column: 11,
    server: 'files',
    suggestion: 'stdio',
    servers: ['ok'],
  },
  {
    fixture: 'syntax-error.yaml',
    kind: 'syntax-error',
    path: '',
    line: 5,
    column: 3,
    message: /^YAML: /,
    servers: [],
  },
  {
    fixture: 'syntax-error.json',
    kind: 'syntax-error',
    path: '',
    line: 3,
    column: 35,
    message: /^JSON: /,
    servers: [],
  },
  {
    fixture: 'duplicate-key.yaml',
    kind: 'duplicate-key',
    path: '',
    line: 4,
    column: 3,
    servers: [],
  },
  {
    fixture: 'server-name.yaml',
    kind: 'invalid-server-name',
    path: 'servers.my__server',
    line: 3,
    column: 5,
    server: 'my__server',
    message: /separator/,
    servers: ['ok'],
  },
  {
    fixture: 'bad-defaults.yaml',
    kind: 'invalid-value',
    path: 'defaults.pins',
    line: 5,
    column: 9,
    suggestion: 'strict',
    servers: ['ok'],
  },
  {
    fixture: 'not-a-mapping.yaml',
    kind: 'invalid-type',
    path: '',
    line: 1,
    column: 1,
    message: /expected a mapping with a `servers:` key/,
    servers: [],
  },
  {
    fixture: 'env-name.yaml',
    kind: 'invalid-key',
    path: 'servers.files.env["A=B"]',
    line: 5,
    column: 7,
    server: 'files',
    servers: ['ok'],
  },
  {
    fixture: 'zero-in-flight.yaml',
    kind: 'out-of-range',
    path: 'servers.files.maxInFlight',
    line: 4,
    column: 18,
    server: 'files',
    message: /≥ 1, found 0/,
    servers: ['ok'],
  },
  {
    fixture: 'nested-transport.yaml',
    kind: 'conflicting-keys',
    path: 'servers.files.transport.command',
    line: 5,
    column: 16,
    server: 'files',
    message: /`command` is set both on the server and under `transport:`/,
    servers: [],
  },
  {
    fixture: 'retry-true.yaml',
    kind: 'invalid-type',
    path: 'servers.files.retry',
    line: 4,
    column: 12,
    server: 'files',
    message: /expected false or a mapping \(key: value\), found true/,
    servers: ['ok'],
  },
  {
    fixture: 'url-credentials.yaml',
    kind: 'credentials-in-url',
    severity: 'warning',
    path: 'servers.remote.url',
    line: 3,
    column: 10,
    server: 'remote',
    servers: ['remote'],
  },
  {
    fixture: 'secret-unknown.yaml',
    kind: 'unknown-secret-key',
    severity: 'warning',
    path: 'servers.files.secret[0]',
    line: 4,
    column: 14,
    server: 'files',
    suggestion: 'API_TOKEN',
    servers: ['files'],
  },
  {
    fixture: 'ignored-key.yaml',
    kind: 'ignored-key',
    severity: 'warning',
    path: 'servers.files.headers',
    line: 5,
    column: 7,
    server: 'files',
    servers: ['files'],
  },
];

describe('native format: mistakes', () => {
  it('every invalid fixture has a case', () => {
    expect(readdirSync(`${fixtures}invalid`).sort()).toEqual(mistakes.map((m) => m.fixture).sort());
  });

  it.each(mistakes)('$fixture: $kind at $path', (mistake) => {
    const { config, diagnostics } = read(`invalid/${mistake.fixture}`);
    const diagnostic = diagnostics.find((d) => d.kind === mistake.kind);
    expect(diagnostic, diagnostics.map(formatDiagnostic).join('\n')).toBeDefined();
    const d = diagnostic!;
    expect(d.severity).toBe(mistake.severity ?? 'error');
    expect(d.server).toBe(mistake.server);
    expect(d.suggestion).toBe(mistake.suggestion);
    if (mistake.message) expect(d.message).toMatch(mistake.message);
    const file = `${fixtures}invalid/${mistake.fixture}`;
    expect(d.location).toMatchObject({
      file,
      dialect: 'mcp-host',
      line: mistake.line,
      column: mistake.column,
    });
    // The one-line form names file:line:column and the key path.
    const line = formatDiagnostic(d);
    const prefix = `${file}:${mistake.line}:${mistake.column}: ${d.severity}: `;
    expect(line.startsWith(prefix + (mistake.path === '' ? '' : `${mistake.path}: `))).toBe(true);
    if (mistake.suggestion) expect(line).toContain(`did you mean '${mistake.suggestion}'?`);
    expect(config.servers.map((s) => s.name)).toEqual(mistake.servers);
    // A per-server error never fails the file; an error without a server does.
    if (mistake.server !== undefined && d.severity === 'error')
      expect(diagnostics.filter((x) => x.severity === 'error' && x.server === undefined)).toEqual(
        [],
      );
  });

  it('keeps unknown keys in extra, in the shape of the file', () => {
    const { config, diagnostics } = readNativeConfig(
      {
        value: {
          servers: {
            a: { command: 'x', timeouts: { conectMs: 5, requestMs: 9 }, custom: { k: 1 } },
          },
          telemetry: true,
        },
      },
      '<inline>',
    );
    expect(diagnostics.map((d) => [d.kind, d.suggestion])).toEqual([
      ['unknown-key', 'connectMs'],
      ['unknown-key', undefined],
      ['unknown-key', undefined],
    ]);
    expect(config.servers[0]).toMatchObject({
      timeouts: { requestMs: 9 },
      extra: { timeouts: { conectMs: 5 }, custom: { k: 1 } },
    });
    expect(config.extra).toEqual({ telemetry: true });
  });

  it('never quotes a string that may be a secret', () => {
    const canary = 'canary-secret-4711';
    const { diagnostics } = readNativeConfig(
      {
        value: {
          servers: {
            a: { command: 'x', env: canary, args: canary },
            b: { url: canary, headers: { Authorization: [canary] } },
            c: { url: `https://u:${canary}@example.com/mcp` },
            d: { command: 'x', oauth: { clientSecret: 7, scopes: canary } },
          },
        },
      },
      '<inline>',
    );
    expect(diagnostics.length).toBeGreaterThanOrEqual(6);
    for (const d of diagnostics) expect(JSON.stringify(d)).not.toContain(canary);
  });
});

describe('native format: writing', () => {
  const roundTrip = (config: McpConfig, format: 'yaml' | 'json') => {
    const file = format === 'yaml' ? 'out.yaml' : 'out.json';
    const { text } = writeNativeConfig(config, { format });
    const back = readNativeText(text, file);
    return { text, back };
  };

  it.each(['valid/full.yaml', 'valid/minimal.json', 'valid/remote.json'])(
    '%s round-trips through YAML and JSON',
    (fixture) => {
      const { config } = read(fixture);
      for (const format of ['yaml', 'json'] as const) {
        const { back } = roundTrip(config, format);
        expect(back.diagnostics).toEqual([]);
        expect(withoutPositions({ ...back.config, files: [] })).toEqual(
          withoutPositions({ ...config, files: [] }),
        );
      }
    },
  );

  it('keeps unknown keys through a round trip (with the same warnings)', () => {
    const { config, diagnostics } = read('invalid/unknown-key.yaml');
    const { back } = roundTrip(config, 'yaml');
    expect(withoutPositions({ ...back.config, files: [] })).toEqual(
      withoutPositions({ ...config, files: [] }),
    );
    expect(back.diagnostics.map((d) => d.kind)).toEqual(diagnostics.map((d) => d.kind));
  });

  it('prints a stable, minimal YAML', () => {
    const { config } = read('valid/full.yaml');
    const { text } = writeNativeConfig(config);
    expect(text).toBe(writeNativeConfig(read('valid/full.yaml').config).text);
    expect(text.startsWith('servers:\n  github:\n    command: npx\n    args:\n')).toBe(true);
    expect(text).not.toMatch(/^ {4}enabled: true$/m); // the default is left out
    expect(text).toContain('  linear:\n    type: sse\n    url: https://mcp.linear.app/sse\n');
    expect(text).toContain(
      '  live:\n    url: wss://realtime.example.com/mcp\n    enabled: false\n',
    );
    expect(text.indexOf('servers:')).toBeLessThan(text.indexOf('inputs:'));
    expect(text.indexOf('inputs:')).toBeLessThan(text.indexOf('defaults:'));
  });

  it('writes type only when it cannot be inferred', () => {
    const config: McpConfig = {
      files: [],
      servers: [
        {
          name: 'sock',
          transport: { type: 'websocket', url: '${SOCKET_URL}', headers: {} },
          enabled: true,
          source: { file: 'x', dialect: 'vscode', path: [] },
        },
      ],
    };
    const { text, back } = roundTrip(config, 'yaml');
    expect(text).toBe('servers:\n  sock:\n    type: websocket\n    url: ${SOCKET_URL}\n');
    expect(back.config.servers[0]!.transport.type).toBe('websocket');
  });

  it('is a dialect module', () => {
    expect(nativeDialect.dialect).toBe('mcp-host');
    const { config } = nativeDialect.read(
      { value: { servers: { a: { command: 'x' } } } },
      'm.yaml',
    );
    expect(nativeDialect.write(config).text).toBe('servers:\n  a:\n    command: x\n');
  });
});

describe('docs/config.md', () => {
  const docs = readFileSync(new URL('../../docs/config.md', import.meta.url), 'utf8');
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
