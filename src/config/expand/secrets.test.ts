import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MASK, redact } from '../../errors/redact.js';
import { expandServer } from './expand.js';
import type { McpConfig, ServerConfig } from '../model.js';
import {
  argvDiagnostics,
  fileModeDiagnostics,
  hasLiteralSecret,
  maskConfig,
  maskTemplate,
  maskUrl,
  secretValues,
  urlCredentials,
} from './secrets.js';
import { registerSecrets } from '../../errors/secret-values.js';

function stdio(
  args: string[],
  env: Record<string, string> = {},
  extra: Partial<ServerConfig> = {},
): ServerConfig {
  return {
    name: 'local',
    enabled: true,
    transport: { type: 'stdio', command: 'node', args, env },
    source: { file: '/cfg/mcp.json', dialect: 'mcp-host', path: ['servers', 'local'] },
    ...extra,
  };
}

function http(headers: Record<string, string>, url = 'https://example.test/mcp'): ServerConfig {
  return {
    name: 'remote',
    enabled: true,
    transport: { type: 'http', url, headers },
    source: { file: '/cfg/mcp.json', dialect: 'mcp-host', path: ['servers', 'remote'] },
  };
}

describe('maskTemplate', () => {
  const cases: [template: string, secret: boolean, argument: boolean, want: string][] = [
    ['literal-secret-value', true, false, MASK],
    ['Bearer ${GITHUB_TOKEN}', true, false, 'Bearer ${GITHUB_TOKEN}'],
    ['Bearer literal-token-1234', true, false, MASK],
    ['${TOKEN:-fallback-secret}', true, false, `\${TOKEN:-${MASK}}`],
    ['${TOKEN:-}', true, false, '${TOKEN:-}'],
    ['prefix-${TOKEN}', true, false, `${MASK}\${TOKEN}`],
    ['--verbose', false, true, '--verbose'],
    ['--api-key=literal-key-1234', false, true, `--api-key=${MASK}`],
    ['--token=${TOKEN}', false, true, '--token=${TOKEN}'],
    ['https://user:pw@host/x?token=abc123', false, false, `https://${MASK}@host/x?token=${MASK}`],
    ['unterminated ${', true, false, MASK],
  ];
  for (const [template, secret, argument, want] of cases) {
    it(`${template} (${secret ? 'secret' : argument ? 'argument' : 'plain'})`, () => {
      expect(maskTemplate(template, secret, argument)).toBe(want);
    });
  }
});

describe('maskUrl', () => {
  const cases: [url: string, want: string][] = [
    ['https://u:pw@h/x', `https://${MASK}@h/x`],
    [
      'https://h/x?api_key=k1&access_key=k2&mode=fast',
      `https://h/x?api_key=${MASK}&access_key=${MASK}&mode=fast`,
    ],
    [
      'https://h/x?private_token=t&sig=s&key=',
      `https://h/x?private_token=${MASK}&sig=${MASK}&key=`,
    ],
    ['https://h/x?page=2', 'https://h/x?page=2'],
    ['not a url %zz?api%5Fkey=v', `not a url %zz?api%5Fkey=${MASK}`],
  ];
  for (const [url, want] of cases)
    it(url, () => {
      expect(maskUrl(url)).toBe(want);
    });
});

describe('maskConfig', () => {
  const config: McpConfig = {
    servers: [
      stdio(
        ['--token=literal-arg-secret', '${HOME}/data'],
        { API_KEY: 'literal-env-secret' },
        {
          oauth: { clientId: 'public-client', clientSecret: 'literal-oauth-secret' },
          secretKeys: ['clientId'],
          extra: { auth: { password: 'extra-secret' }, note: 'kept' },
        },
      ),
      http({ Authorization: 'Bearer ${TOKEN}', 'X-Literal': 'literal-header-secret' }),
    ],
    inputs: [{ id: 'pw', type: 'promptString', password: true, default: 'default-secret' }],
    files: [{ file: '/cfg/mcp.json', dialect: 'mcp-host' }],
  };

  it('masks every secret field, keeps references, and never touches the original', () => {
    const before = JSON.stringify(config);
    const masked = maskConfig(config);
    const text = JSON.stringify(masked);
    for (const secret of [
      'literal-arg-secret',
      'literal-env-secret',
      'literal-oauth-secret',
      'public-client',
      'extra-secret',
      'literal-header-secret',
      'default-secret',
    ])
      expect(text).not.toContain(secret);
    expect(text).toContain('Bearer ${TOKEN}');
    expect(text).toContain('${HOME}/data');
    expect(text).toContain('"note":"kept"');
    expect(JSON.stringify(config)).toBe(before);
    expect(JSON.stringify(maskConfig(config, { reveal: true }))).toBe(before);
  });
});

describe('secret values and warnings', () => {
  it('collects expanded values, env and header values, URL credentials; not HOME or trivia', async () => {
    const server: ServerConfig = {
      ...http(
        { Authorization: 'Bearer ${TOKEN}', 'X-Mode': 'true', Accept: 'application/json' },
        'https://u:url-password@h/mcp?api_key=${KEY}&page=2',
      ),
      oauth: { clientSecret: '${OAUTH}' },
    };
    const expanded = await expandServer(server, {
      env: { TOKEN: 'token-value', KEY: 'key-value', OAUTH: 'oauth-value' },
    });
    if (!expanded.ok) throw expanded.error;
    expect(secretValues(server, expanded.server).sort()).toEqual(
      ['Bearer token-value', 'key-value', 'oauth-value', 'token-value', 'url-password'].sort(),
    );

    const local = stdio(['${HOME}/x'], { LEVEL: 'info', DIR: '${HOME}/y' });
    const home = await expandServer(local, { env: { HOME: '/home/someone' } });
    if (!home.ok) throw home.error;
    expect(secretValues(local, home.server)).toEqual(['/home/someone/y']); // the env value only
  });

  it('registers values so the redactor masks them until disposed', () => {
    const [secret] = registerSecrets(['registered-canary-1234']);
    expect(redact('x registered-canary-1234 y')).toBe(`x ${MASK} y`);
    secret?.dispose();
    expect(redact('x registered-canary-1234 y')).toBe('x registered-canary-1234 y');
  });

  it('warns about secrets in argv, naming the argument and not the value', async () => {
    const server = stdio([
      '--user',
      '${USER}',
      '--token',
      '${TOKEN}',
      '--api-key=plain-value',
      'ok',
    ]);
    const expanded = await expandServer(server, {
      env: { USER: 'me', TOKEN: 'argv-token-value' },
    });
    if (!expanded.ok) throw expanded.error;
    const warnings = argvDiagnostics(server, expanded.server);
    expect(warnings.map((w) => w.message)).toEqual([
      "server 'local': args[3] carries ${TOKEN}; command-line arguments are visible to every local user (ps): pass secrets in env instead",
      "server 'local': args[4] looks like a credential; command-line arguments are visible to every local user (ps): pass secrets in env instead",
    ]);
    expect(warnings[0]).toMatchObject({
      severity: 'warning',
      kind: 'secret-in-argv',
      location: { path: ['servers', 'local', 'args', 3] },
    });
    expect(JSON.stringify(warnings)).not.toContain('argv-token-value');
  });

  it('warns about world-readable files holding literal secrets', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-host-secrets-'));
    try {
      const file = join(dir, 'mcp.json');
      writeFileSync(file, '{}');
      const at = (server: ServerConfig): ServerConfig => ({
        ...server,
        source: { ...server.source, file },
      });
      const literal = at(stdio([], { API_KEY: 'literal' }));
      const referenced = at(http({ Authorization: 'Bearer ${TOKEN}' }));
      expect(hasLiteralSecret(literal)).toBe(true);
      expect(hasLiteralSecret(referenced)).toBe(false);
      expect(hasLiteralSecret(stdio([], { LOG_LEVEL: 'debug', PORT: '8080' }))).toBe(false);
      expect(hasLiteralSecret(http({ Accept: 'application/json' }))).toBe(false);
      expect(hasLiteralSecret(http({ Authorization: 'Bearer literal-token' }))).toBe(true);
      expect(hasLiteralSecret(http({ Authorization: '${T:-fallback-token}' }))).toBe(true);
      const config: McpConfig = {
        servers: [literal, referenced],
        files: [{ file, dialect: 'mcp-host' }],
      };
      chmodSync(file, 0o644);
      const warnings = await fileModeDiagnostics(config);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toBe(
        `${file} is readable by every user (mode 0644) and holds secrets of server 'local': chmod 600 it, or move the secrets into environment variables`,
      );
      chmodSync(file, 0o600);
      expect(await fileModeDiagnostics(config)).toEqual([]);
      chmodSync(file, 0o644);
      expect(await fileModeDiagnostics({ ...config, servers: [referenced] })).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('urlCredentials', () => {
  it('finds the password (written and decoded), the user name unless asked not to, and credential query values; never throws', () => {
    expect(urlCredentials('https://ann:p%40ss@h.example/x?token=t0k&page=2')).toEqual([
      'p%40ss',
      'p@ss',
      'ann',
      't0k',
    ]);
    expect(urlCredentials('postgres://postgres:50%zz@db/fleet', { userName: false })).toEqual([
      '50%zz',
      '50%zz',
    ]);
    expect(urlCredentials('not a url')).toEqual([]);
  });
});
