import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { MASK, redact } from '../errors/redact.js';
import type { McpConfig, ServerConfig, TransportConfig } from './model.js';
import {
  clientOptions,
  createServerResolver,
  resolveConfig,
  resolveServer,
} from './resolve-config.js';
import { callbackInputProvider } from './expand/input-providers.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-host-resolve-'));
const file = join(dir, 'mcp.json');
writeFileSync(file, '{}', { mode: 0o600 });
writeFileSync(join(dir, '.env'), 'FROM_FILE=file-value-1234\nBOTH=file\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function server(name: string, transport: TransportConfig, extra: Partial<ServerConfig> = {}) {
  return {
    name,
    enabled: true,
    transport,
    source: { file, dialect: 'mcp-host', path: ['servers', name] },
    ...extra,
  } satisfies ServerConfig;
}

const stdio = (
  extra: Partial<Extract<TransportConfig, { type: 'stdio' }>> = {},
): TransportConfig => ({
  type: 'stdio',
  command: 'node',
  args: [],
  env: {},
  ...extra,
});

describe('resolveServer', () => {
  it('builds a definition with client options, filters and identity', async () => {
    const result = await resolveServer(
      server('a', stdio({ args: ['${ARG}'] }), {
        lazy: true,
        trusted: true,
        maxInFlight: 2,
        maxQueue: 3,
        tools: { allow: ['read_*'], block: ['read_secret'] },
        timeouts: { requestMs: 1000 },
        retry: { maxAttempts: 5 },
      }),
      {
        env: { ARG: 'x' },
        defaults: {
          timeouts: { connectMs: 5000, requestMs: 9000 },
          retry: { baseDelayMs: 10 },
          toolsTtlMs: 60_000,
        },
      },
    );
    if ('error' in result) throw result.error;
    const { definition } = result;
    expect(definition).toMatchObject({
      name: 'a',
      enabled: true,
      lazy: true,
      trusted: true,
      maxInFlight: 2,
      maxQueue: 3,
      tools: { allow: ['read_*'], block: ['read_secret'] },
      toolsTtlMs: 60_000,
      client: {
        connectTimeoutMs: 5000,
        requestTimeoutMs: 1000,
        retry: { baseDelayMs: 10, maxAttempts: 5 },
      },
    });
    expect(definition.identity).toMatch(/^a:[0-9a-f]{16}$/);
    // A plain description: the host builds the transport when it connects.
    expect(definition.transport).toEqual({ type: 'stdio', command: 'node', args: ['x'], env: {} });
    for (const secret of result.secrets) secret.dispose();
  });

  it('turns retries off with retry: false', () => {
    const s = server('a', stdio(), { retry: false });
    expect(clientOptions(s, { retry: { maxAttempts: 4 } })).toEqual({ retry: false });
    expect(clientOptions(server('b', stdio()), { retry: false })).toEqual({ retry: false });
  });

  it('describes a remote transport as plain data: type, URL and headers', async () => {
    const cases: TransportConfig[] = [
      { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: { 'x-a': '1' } },
      { type: 'sse', url: 'http://127.0.0.1:1/sse', headers: {} },
      { type: 'websocket', url: 'ws://127.0.0.1:1/', headers: {} },
    ];
    for (const transport of cases) {
      const result = await resolveServer(server('r', transport), { env: {} });
      if ('error' in result) throw result.error;
      expect(result.definition.transport).toEqual(transport);
    }
  });

  it('refuses a URL that does not fit the transport, without printing it', async () => {
    for (const url of ['not a url ${T}', 'ftp://h/${T}']) {
      const result = await resolveServer(server('r', { type: 'http', url, headers: {} }), {
        env: { T: 'url-secret-value' },
      });
      expect('error' in result && result.error.code).toBe('CONFIG_INVALID');
      const message = 'error' in result ? result.error.message : '';
      expect(message).toMatch(/servers\.r\.url: /);
      expect(message).not.toContain('url-secret-value');
    }
  });

  it('reads envFile relative to the config file, env winning; a missing one fails', async () => {
    const ok = await resolveServer(
      server('e', stdio({ envFile: '.env', env: { BOTH: 'env' }, cwd: 'sub' })),
      { env: {} },
    );
    if ('error' in ok) throw ok.error;
    expect(redact('file-value-1234')).toBe(MASK); // env file values are secrets
    for (const secret of ok.secrets) secret.dispose();
    expect(redact('file-value-1234')).toBe('file-value-1234');

    const missing = await resolveServer(server('m', stdio({ envFile: 'nope.env' })), { env: {} });
    expect('error' in missing && missing.error.message).toBe(
      `server 'm': not started: ${file}: servers.m.envFile: cannot read the env file ${join(dir, 'nope.env')} (ENOENT)`,
    );
  });

  it('fingerprints what takes effect: same config same print, enabled aside', async () => {
    const print = async (s: ServerConfig, env: Record<string, string>): Promise<string> => {
      const result = await resolveServer(s, { env });
      if ('error' in result) throw result.error;
      for (const secret of result.secrets) secret.dispose();
      return result.fingerprint;
    };
    const base = server('f', stdio({ env: { K: '${V}' } }));
    const first = await print(base, { V: 'one' });
    expect(await print(base, { V: 'one' })).toBe(first);
    expect(await print({ ...base, enabled: false }, { V: 'one' })).toBe(first);
    expect(await print(base, { V: 'two' })).not.toBe(first);
    expect(await print({ ...base, trusted: true }, { V: 'one' })).not.toBe(first);
  });
});

describe('resolveConfig', () => {
  const config: McpConfig = {
    servers: [
      server('good', stdio({ env: { TOKEN: '${GOOD_TOKEN}' } })),
      server('bad', stdio({ args: ['${MISSING_VAR}'] })),
      server('remote', {
        type: 'http',
        url: 'https://example.test/mcp',
        headers: { Authorization: 'Bearer ${input:token}' },
      }),
      server('asks', stdio({ env: { K: '${input:other}' } })),
    ],
    inputs: [{ id: 'token', type: 'promptString', password: true }],
    defaults: { restart: { crashLimit: 3 }, pins: 'strict', maxResultBytes: 1000 },
    files: [{ file, dialect: 'mcp-host' }],
  };

  it('resolves the servers it can; each failure stays with its server', async () => {
    using resolved = await resolveConfig(config, {
      env: { GOOD_TOKEN: 'good-token-canary', MCP_HOST_INPUTS: '{"token":"input-canary-1"}' },
    });
    expect([...resolved.servers.keys()]).toEqual(['good', 'remote']);
    expect([...resolved.errors.keys()]).toEqual(['bad', 'asks']);
    expect(resolved.errors.get('bad')?.code).toBe('CONFIG_VARIABLE_UNSET');
    expect(resolved.errors.get('asks')?.code).toBe('CONFIG_INPUT_REQUIRED');
    expect(resolved.host).toMatchObject({
      restart: { crashLimit: 3 },
      pins: 'strict',
      maxResultBytes: 1000,
    });
    expect(resolved.host.servers.map((s) => s.name)).toEqual(['good', 'remote']);
    expect(resolved.diagnostics.map((d) => [d.severity, d.kind, d.server])).toEqual([
      ['error', 'unset-variable', 'bad'],
      ['error', 'input-required', 'asks'],
    ]);

    const shown = [inspect(resolved, { depth: 10 }), JSON.stringify(resolved)];
    expect(shown[0]).toMatch(/^ResolvedConfig \{/);
    for (const text of shown) {
      expect(text).not.toContain('good-token-canary');
      expect(text).not.toContain('input-canary-1');
      expect(text).toContain('Bearer ${input:token}');
    }
    expect(inspect(resolved.servers.get('remote'), { depth: 10 })).not.toContain('input-canary');
    expect(JSON.stringify(resolved.print({ reveal: true }))).toContain('${GOOD_TOKEN}');
    expect(redact('Bearer input-canary-1 and good-token-canary')).not.toMatch(/canary/);
  });

  it('releases its secrets when disposed', async () => {
    const resolved = await resolveConfig(config, {
      env: { GOOD_TOKEN: 'good-token-canary', MCP_HOST_INPUTS: '{"token":"input-canary-1"}' },
    });
    resolved.dispose();
    resolved.dispose();
    expect(resolved.disposed).toBe(true);
    expect(redact('good-token-canary')).toBe('good-token-canary');
  });
});

describe('createServerResolver', () => {
  it("applies each config's defaults and inputs, asking an input once across reloads", async () => {
    let asked = 0;
    const resolve = createServerResolver({
      env: {},
      inputs: callbackInputProvider(() => (++asked === 1 ? undefined : 'never')),
    });
    const s = server('r', stdio({ env: { K: '${input:region}' } }));
    const first: McpConfig = {
      servers: [s],
      inputs: [{ id: 'region', type: 'promptString', default: 'eu-west-1' }],
      defaults: { timeouts: { requestMs: 5 } },
      files: [],
    };
    const a = await resolve(s, first);
    if ('error' in a) throw a.error;
    expect(a.definition.client).toEqual({ requestTimeoutMs: 5 });
    const b = await resolve(s, { ...first, defaults: { timeouts: { requestMs: 6 } } });
    if ('error' in b) throw b.error;
    expect(b.definition.client).toEqual({ requestTimeoutMs: 6 });
    expect(b.fingerprint).not.toBe(a.fingerprint);
    expect(asked).toBe(1);
    for (const secret of [...a.secrets, ...b.secrets]) secret.dispose();
  });
});

describe('resolveServer: oauth', () => {
  const http: TransportConfig = { type: 'http', url: 'https://mcp.example/mcp', headers: {} };

  it('gives an http server with oauth its OAuth settings, expanded, the secret masked in dumps', async () => {
    const result = await resolveServer(
      server('tracker', http, {
        oauth: {
          grant: 'client_credentials',
          clientId: 'bot',
          clientSecret: '${OAUTH_SECRET}',
          privateKeyFile: 'keys/${KEY_NAME}.pem',
          clientMetadataUrl: 'https://app.example/client.json',
          scopes: ['read', 'write'],
          redirectUri: 'http://127.0.0.1:8765/callback',
          authorizationServer: 'https://auth.example/tenant',
        },
      }),
      { env: { OAUTH_SECRET: 'canary-oauth-secret-0042', KEY_NAME: 'bot' } },
    );
    if ('error' in result) throw result.error;
    const oauth = result.definition.oauth!;
    expect(oauth).toMatchObject({
      grant: 'client_credentials',
      clientId: 'bot',
      clientSecret: 'canary-oauth-secret-0042',
      privateKeyFile: join(dir, 'keys', 'bot.pem'),
      clientMetadataUrl: 'https://app.example/client.json',
      scopes: ['read', 'write'],
      redirectUri: 'http://127.0.0.1:8765/callback',
      authorizationServer: 'https://auth.example/tenant',
    });
    const dumps = [JSON.stringify(result.definition), inspect(result.definition, { depth: 9 })];
    for (const dump of dumps) {
      expect(dump).not.toContain('canary-oauth-secret-0042');
      expect(dump).toContain(MASK);
      expect(dump).toContain('client_credentials');
    }
    // A spread copy (as a host or a CLI makes) keeps the settings and their masking.
    expect(JSON.stringify({ ...result.definition })).not.toContain('canary-oauth-secret-0042');
    expect({ ...result.definition }.oauth?.clientSecret).toBe('canary-oauth-secret-0042');
  });

  it('an empty oauth section turns OAuth on; none leaves it off; stdio servers never get it', async () => {
    const on = await resolveServer(server('a', http, { oauth: {} }), { env: {} });
    const off = await resolveServer(server('b', http), { env: {} });
    const local = await resolveServer(server('c', stdio(), { oauth: {} }), { env: {} });
    if ('error' in on || 'error' in off || 'error' in local) throw new Error('unresolved');
    expect(on.definition.oauth).toEqual({});
    expect(off.definition.oauth).toBeUndefined();
    expect(local.definition.oauth).toBeUndefined();
  });
});
