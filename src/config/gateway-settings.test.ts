import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, formatDiagnostic } from './diagnostics.js';
import { DEFAULT_GATEWAY_HOST, resolveGatewaySettings } from './gateway-settings.js';
import { loadConfig, tryLoadConfig } from './load.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { readNativeText } from './native/native.js';
import { writeNativeConfig } from './native/native-write.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gateway-settings-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

const SERVERS = 'servers:\n  files:\n    command: mcp-files\n';
const env = { MCP_HOST_STATE_DIR: '/state' };

describe('the gateway: section', () => {
  it('resolves to frozen settings with the defaults when there is none', async () => {
    const { config } = await loadConfig({ files: [await file('mcp.yaml', SERVERS)] });
    const settings = resolveGatewaySettings(config, { env });
    expect(settings).toEqual({
      transport: 'stdio',
      host: DEFAULT_GATEWAY_HOST,
      port: undefined,
      auth: true,
      tokenFile: join('/state', 'gateway-token'),
      views: undefined,
      clients: [],
      perClient: [],
      allowedOrigins: [],
      allowedHosts: [],
      maxSessions: undefined,
      maxBodyBytes: undefined,
      sessionIdleMs: undefined,
    });
    expect(Object.isFrozen(settings)).toBe(true);
    expect(Object.isFrozen(settings.allowedOrigins)).toBe(true);
  });

  it('takes every key as written; a port means HTTP and the token file is relative to the file', async () => {
    const path = await file(
      'mcp.yaml',
      `${SERVERS}views:\n  notes: { servers: [files] }\n  all: {}\n` +
        'gateway:\n  host: ::1\n  port: 8808\n  tokenFile: secrets/token\n  auth: false\n' +
        "  views: [notes]\n  allowedOrigins: ['http://localhost:3000']\n  allowedHosts: [gw.localhost]\n" +
        '  maxSessions: 4\n  maxBodyBytes: 1024\n  sessionIdleMs: 5000\n',
    );
    const { config, diagnostics } = await loadConfig({ files: [path] });
    expect(diagnostics).toEqual([]);
    expect(resolveGatewaySettings(config, { env })).toEqual({
      transport: 'http',
      host: '::1',
      port: 8808,
      auth: false,
      tokenFile: join(dir, 'secrets', 'token'),
      views: ['notes'],
      allowedOrigins: ['http://localhost:3000'],
      allowedHosts: ['gw.localhost'],
      maxSessions: 4,
      maxBodyBytes: 1024,
      sessionIdleMs: 5000,
      clients: [],
      perClient: [],
    });
  });

  it('lets flags win over the config, `~` being the home directory', async () => {
    const path = await file('mcp.yaml', `${SERVERS}gateway:\n  port: 8808\n  host: localhost\n`);
    const { config } = await loadConfig({ files: [path] });
    const settings = resolveGatewaySettings(config, {
      env,
      homeDir: '/home/u',
      overrides: { transport: 'stdio', auth: false, tokenFile: '~/t' },
    });
    expect(settings).toMatchObject({
      transport: 'stdio',
      port: undefined,
      host: 'localhost',
      auth: false,
      tokenFile: '/home/u/t',
    });
    expect(
      resolveGatewaySettings(config, { env, overrides: { port: 0, host: '127.0.0.2' } }),
    ).toMatchObject({ transport: 'http', port: 0, host: '127.0.0.2' });
  });

  it('names the file and key of a view it offers that no file defines', async () => {
    const views = await file('views.yaml', 'servers: {}\nviews:\n  notes: {}\n');
    const path = await file('mcp.yaml', `${SERVERS}gateway:\n  views: [notse]\n`);
    const { config, diagnostics } = await tryLoadConfig({ files: [views, path] });
    expect(config).toBeUndefined();
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      `${path}:4:1: error: gateway.views[0]: the gateway offers the view 'notse', which no config file defines under \`views:\` (did you mean 'notes'?)`,
    ]);
    const error = await loadConfig({ files: [views, path] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe('CONFIG_INVALID');
    // The same check when the config was not read through the loader.
    const read = readNativeText(`${SERVERS}gateway:\n  views: [notes]\n`, path).config;
    const direct = (() => {
      try {
        return resolveGatewaySettings(read);
      } catch (e) {
        return e;
      }
    })();
    expect(direct).toBeInstanceOf(ConfigError);
    expect((direct as ConfigError).message).toContain('gateway.views[0]');
    expect((direct as ConfigError).message).toContain(path);
  });

  it('refuses authentication off on a host beyond loopback, from the config or from flags', async () => {
    const path = await file('mcp.yaml', `${SERVERS}gateway:\n  host: 0.0.0.0\n  auth: false\n`);
    const { diagnostics } = await tryLoadConfig({ files: [path] });
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${path}:6:9: error: gateway.auth: authentication can be off only on a loopback host`,
        ),
      ),
    ]);
    const open = await file('open.yaml', `${SERVERS}gateway:\n  host: 0.0.0.0\n`);
    const loaded = await loadConfig({ files: [open] });
    expect(loaded.diagnostics.map((d) => d.kind)).toEqual(['exposed-listener']);
    const flagged = (() => {
      try {
        return resolveGatewaySettings(loaded.config, { overrides: { auth: false } });
      } catch (e) {
        return e;
      }
    })();
    expect(flagged).toBeInstanceOf(McpHostError);
    expect((flagged as McpHostError).code).toBe('INVALID_ARGUMENT');
    expect((flagged as McpHostError).message).toContain("not '0.0.0.0'");
  });

  it('refuses a bind address that is a URL', () => {
    const { diagnostics } = readNativeText(
      `${SERVERS}gateway:\n  host: http://127.0.0.1:80\n`,
      '/x/mcp.yaml',
    );
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      expect.stringContaining('gateway.host: expected an address or host name to listen on'),
    ]);
  });

  it('is written back by `config show` and read again the same', () => {
    const text = `${SERVERS}gateway:\n  sessionIdleMs: 5000\n  port: 1\n  host: 127.0.0.1\n`;
    const first = readNativeText(text, '/x/mcp.yaml');
    const written = writeNativeConfig(first.config).text;
    expect(written).toContain('gateway:\n  host: 127.0.0.1\n  port: 1\n  sessionIdleMs: 5000\n');
    const { source: _a, ...again } = readNativeText(written, '/x/mcp.yaml').config.gateway!;
    const { source: _b, ...before } = first.config.gateway!;
    expect(again).toEqual(before);
  });

  it('resolves named clients (token files, never tokens) and per-client servers', async () => {
    const path = await file(
      'mcp.yaml',
      'servers:\n  files:\n    command: mcp-files\n  crm:\n    url: https://crm.example/mcp\n    oauth: {}\n' +
        'views:\n  notes: {}\n' +
        'gateway:\n  clients:\n    alice:\n      tokenFile: secrets/alice\n      view: notes\n    bob:\n      tokenFile: ~/bob.token\n  perClient: [crm]\n',
    );
    const { config } = await loadConfig({ files: [path] });
    const settings = resolveGatewaySettings(config, { env, homeDir: '/home/u' });
    expect(settings.clients).toEqual([
      { name: 'alice', tokenFile: join(dir, 'secrets', 'alice'), view: 'notes' },
      { name: 'bob', tokenFile: '/home/u/bob.token', view: undefined },
    ]);
    expect(settings.perClient).toEqual(['crm']);
    expect(Object.isFrozen(settings.clients[0])).toBe(true);
  });

  it('names the file and key of a bad client or per-client server', async () => {
    const path = await file(
      'mcp.yaml',
      `${SERVERS}views:\n  notes: {}\ngateway:\n  clients:\n    alice:\n      tokenFile: a\n      view: notse\n  perClient: [files, fles]\n`,
    );
    const { config, diagnostics } = await tryLoadConfig({ files: [path] });
    expect(config).toBeUndefined();
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      expect.stringMatching(
        /gateway\.clients\.alice\.view: the gateway client 'alice' is served the view 'notse', which no config file defines under `views:` \(did you mean 'notes'\?\)$/,
      ),
    ]);
    // The servers are checked where the settings are resolved (the servers' own errors first).
    const read = readNativeText(`${SERVERS}gateway:\n  perClient: [files, fles]\n`, path).config;
    const error = (() => {
      try {
        return resolveGatewaySettings(read);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain(
      "gateway.perClient[0]: the gateway's per-client server 'files' must be a remote server with `oauth`",
    );
    expect(message).toContain(
      "gateway.perClient[1]: the gateway's per-client server 'fles' is not a server of the config (did you mean 'files'?)",
    );
    expect(message).toContain(path);
  });

  it('refuses a client without a token file, or with a name unfit for a path', () => {
    const missing = readNativeText(
      `${SERVERS}gateway:\n  clients:\n    alice: {}\n`,
      '/x/mcp.yaml',
    );
    expect(missing.diagnostics.map(formatDiagnostic).join('\n')).toMatch(
      /error: gateway\.clients\.alice.*tokenFile/,
    );
    const odd = readNativeText(
      `${SERVERS}gateway:\n  clients:\n    ../eve:\n      tokenFile: t\n`,
      '/x/mcp.yaml',
    );
    expect(odd.diagnostics.some((d) => d.severity === 'error')).toBe(true);
  });
});
