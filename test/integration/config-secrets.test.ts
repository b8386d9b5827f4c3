/**
 * A secret canary in every kind of secret field of a config (a literal env value, an env value
 * from a variable, an argument from a variable, an input, a literal header, a header from an
 * input, a URL query token from a variable, an OAuth client secret, a field named in secretKeys)
 * never appears in `util.inspect`, `JSON.stringify`, printed configs, error messages, stderr tails
 * or logs, even when the server echoes its whole environment and argv to stderr and dies. A server
 * with an unset variable fails alone, before anything is spawned, naming file, key path and
 * variable; the other servers still run.
 */
import { randomBytes } from 'node:crypto';
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { McpClient, McpHost, ProcessExitedError, redact } from '../../src/index.js';
import { MASK } from '../../src/errors/redact.js';
import type { McpConfig, ServerConfig } from '../../src/config/model.js';
import { resolveConfig } from '../../src/config/resolve-config.js';
import { capturingLogger } from '../helpers/fixture-server.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { tempDir } from '../helpers/scratch.js';
import { rejectionOf } from '../helpers/timing.js';

const envDump = fileURLToPath(new URL('../fixtures/servers/env-dump.mjs', import.meta.url));
const legacySdk = fileURLToPath(new URL('../fixtures/mcp/legacy-sdk-server.mjs', import.meta.url));
const canary = (kind: string): string => `canary-${kind}-${randomBytes(8).toString('hex')}`;

describe('secrets in a config', () => {
  it('never show: not in inspect, JSON, printed configs, errors, stderr tails or logs', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const file = join(realpathSync(dir.path), 'mcp.json');
    writeFileSync(file, '{"servers": {}}\n', { mode: 0o644 });
    const source = (name: string): ServerConfig['source'] => ({
      file,
      dialect: 'mcp-host',
      path: ['servers', name],
    });

    const secrets = {
      envLiteral: canary('env-literal'),
      envVariable: canary('env-variable'),
      argVariable: canary('arg-variable'),
      input: canary('input'),
      secretKey: canary('secret-key'),
      headerLiteral: canary('header-literal'),
      headerInput: canary('header-input'),
      urlVariable: canary('url-variable'),
      oauthSecret: canary('oauth-secret'),
      oauthVariable: canary('oauth-variable'),
    };
    const all = Object.values(secrets);

    const config: McpConfig = {
      servers: [
        {
          name: 'leaky',
          enabled: true,
          transport: {
            type: 'stdio',
            command: process.execPath,
            args: [envDump, '--token=${ARG_SECRET}', secrets.secretKey],
            env: {
              LITERAL_SECRET: secrets.envLiteral,
              FROM_VARIABLE: '${ENV_SECRET}',
              FROM_INPUT: '${input:password}',
              LOG_LEVEL: 'debug',
            },
          },
          secretKeys: ['args[2]'],
          source: source('leaky'),
        },
        {
          name: 'remote',
          enabled: true,
          transport: {
            type: 'http',
            // Port 1 on loopback: nothing listens, the connect fails at once.
            url: 'http://127.0.0.1:1/mcp?api_key=${URL_SECRET}',
            headers: {
              'X-Api-Key': secrets.headerLiteral,
              Authorization: 'Bearer ${input:password2}',
            },
          },
          oauth: { clientId: 'public-client-id', clientSecret: secrets.oauthSecret },
          source: source('remote'),
        },
        {
          name: 'oauth-variable',
          enabled: true,
          transport: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: {} },
          oauth: { clientSecret: '${OAUTH_SECRET}' },
          source: source('oauth-variable'),
        },
        {
          // A healthy neighbour: it still starts and answers.
          name: 'healthy',
          enabled: true,
          transport: {
            type: 'stdio',
            command: process.execPath,
            args: [legacySdk],
            env: { HEALTHY_SECRET: '${ENV_SECRET}' },
          },
          source: source('healthy'),
        },
        {
          name: 'unset',
          enabled: true,
          transport: {
            type: 'stdio',
            command: process.execPath,
            args: [envDump],
            env: { TOKEN: '${NOT_SET_ANYWHERE}', ALSO: '${ENV_SECRET}' },
          },
          source: source('unset'),
        },
      ],
      inputs: [
        { id: 'password', type: 'promptString', password: true },
        { id: 'password2', type: 'promptString', password: true },
      ],
      defaults: { restart: { enabled: false } },
      files: [{ file, dialect: 'mcp-host' }],
    };

    const logger = capturingLogger();
    const env = {
      ...process.env,
      ENV_SECRET: secrets.envVariable,
      ARG_SECRET: secrets.argVariable,
      URL_SECRET: secrets.urlVariable,
      OAUTH_SECRET: secrets.oauthVariable,
      MCP_HOST_INPUTS: JSON.stringify({ password: secrets.input, password2: secrets.headerInput }),
      NOT_SET_ANYWHERE: undefined,
    };
    using resolved = await resolveConfig(config, { env });
    const shown: string[] = [];
    const show = (label: string, text: string): void => void shown.push(`${label}: ${text}`);

    // The unset variable fails only its server, before anything is spawned.
    expect([...resolved.servers.keys()]).toEqual(['leaky', 'remote', 'oauth-variable', 'healthy']);
    const unset = resolved.errors.get('unset');
    expect(unset?.code).toBe('CONFIG_VARIABLE_UNSET');
    expect(unset?.message).toBe(
      `server 'unset': not started: ${file}: servers.unset.env.TOKEN: variable NOT_SET_ANYWHERE is not set (and has no default)`,
    );
    show('unset error', JSON.stringify(unset));
    show('unset inspect', inspect(unset));

    // Warnings: the secret in argv, the world-readable file with literal secrets.
    expect(resolved.diagnostics.map((d) => [d.kind, d.server])).toEqual([
      ['secret-in-argv', 'leaky'],
      ['secret-in-argv', 'leaky'],
      ['unset-variable', 'unset'],
      ['world-readable-secrets', undefined],
    ]);
    show('diagnostics', JSON.stringify(resolved.diagnostics));

    show('resolved inspect', inspect(resolved, { depth: Infinity }));
    show('resolved JSON', JSON.stringify(resolved));
    show('printed config', JSON.stringify(resolved.print()));
    show('masked config inspect', inspect(resolved.print(), { depth: Infinity }));
    for (const server of resolved.servers.values()) {
      show(`server ${server.definition.name} inspect`, inspect(server, { depth: Infinity }));
      show(`server ${server.definition.name} JSON`, JSON.stringify(server));
    }
    // Only an explicit opt-in shows literal secrets (never an expanded value).
    expect(JSON.stringify(resolved.print({ reveal: true }))).toContain(secrets.envLiteral);
    expect(JSON.stringify(resolved.print({ reveal: true }))).not.toContain(secrets.envVariable);

    // A stdio server that echoes its environment and argv to stderr, then dies.
    const leaky = resolved.servers.get('leaky')!.definition;
    const client = new McpClient({
      serverName: 'leaky',
      transport: leaky.transport,
      logger,
      ...leaky.client,
    });
    const { error } = await rejectionOf(client.connect());
    await client.close();
    expect(error).toBeInstanceOf(ProcessExitedError);
    const exited = error as ProcessExitedError;
    expect(exited.stderrTail).toContain('env LITERAL_SECRET is <masked>');
    expect(exited.stderrTail).toContain('env FROM_VARIABLE is <masked>');
    expect(exited.stderrTail).toContain('env FROM_INPUT is <masked>');
    expect(exited.stderrTail).toContain('env LOG_LEVEL is debug');
    expect(exited.stderrTail).toMatch(/argv .*--token=<masked> <masked>/);
    show('stderr tail', exited.stderrTail);
    show('exit message', exited.message);
    show('exit JSON', JSON.stringify(exited));
    show('exit inspect', inspect(exited));

    // The same servers in a host: statuses, events and logs.
    const host = new McpHost({ ...resolved.host, logger, pins: false });
    const { servers: statuses } = await host.start();
    show('statuses', JSON.stringify(statuses));
    show('host inspect', inspect(host, { depth: 4 }));
    expect(statuses.map((s) => [s.name, s.state])).toEqual([
      ['leaky', 'failed'],
      ['remote', 'failed'],
      ['oauth-variable', 'failed'],
      ['healthy', 'ready'],
    ]);
    expect(host.tools().some((tool) => tool.name.startsWith('mcp__healthy__'))).toBe(true);
    const remoteError = await rejectionOf(host.callTool('mcp__remote__anything', {}));
    show('call error', inspect(remoteError.error));
    show('call error JSON', JSON.stringify(remoteError.error));
    await host.close();
    show('logs', logger.text());
    expect(logger.text()).toContain('env LITERAL_SECRET is <masked>'); // the stderr log, masked

    const text = shown.join('\n');
    for (const secret of all) expect(text).not.toContain(secret);
    expect(text).toContain(MASK);

    // While the config is in use every value is registered; disposing releases them.
    expect(redact(all.join(' '))).not.toMatch(/canary/);
    resolved.dispose();
    expect(redact(secrets.envLiteral)).toBe(secrets.envLiteral);
  });
});
