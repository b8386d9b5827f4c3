import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../diagnostics.js';
import { fixtures, read } from './native-test-helpers.js';
import { readNativeConfig } from './native-read.js';

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
    fixture: 'gateway-no-auth.yaml',
    kind: 'insecure-value',
    path: 'gateway.auth',
    line: 6,
    column: 9,
    message: /only on a loopback host/,
    servers: ['files'],
  },
  {
    fixture: 'gateway-port.yaml',
    kind: 'out-of-range',
    path: 'gateway.port',
    line: 5,
    column: 9,
    message: /expected a whole number from 0 to 65535, found 70000/,
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
