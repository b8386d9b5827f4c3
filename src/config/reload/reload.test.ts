/**
 * ConfigReloader over an in-memory host, with injected load and resolve functions (no files, no
 * watching: `reload()`): the diff per server, what a failing loader or resolver leaves running,
 * secrets released with the config that held them, reloads one at a time.
 */
import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../../test/helpers/leak-guard.js';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { McpHost } from '../../host/mcp-host.js';
import type { HostServerDefinition } from '../../host/server-definition.js';
import { toDisposable, type Disposable } from '../../internal/disposable.js';
import type { Transport } from '../../jsonrpc/transport.js';
import { FakeMcpServer } from '../../testing/index.js';
import { createLinkedTransports } from '../../transport/in-memory.js';
import type { ConfigDiagnostic, HostDefaultsConfig, McpConfig, ServerConfig } from '../model.js';
import { ConfigReloader, watchConfig } from './reload.js';
import { type ReloadOutcome, type ServerResolution } from './reload-types.js';

/** A server config whose `args[0]` is its label; `line` only moves its source. */
function server(name: string, label: string, line = 1): ServerConfig {
  return {
    name,
    enabled: true,
    transport: { type: 'stdio', command: 'fake', args: [label], env: {} },
    source: { file: '/config/mcp.json', dialect: 'mcp-host', path: ['servers', name], line },
  };
}

/** A world of config files in memory: what the loader returns, what the resolver does. */
class World {
  servers: ServerConfig[] = [];
  defaults: HostDefaultsConfig | undefined;
  views: McpConfig['views'];
  roots: McpConfig['roots'];
  diagnostics: ConfigDiagnostic[] = [];
  loadError: Error | undefined;
  /** Names whose resolution fails. */
  readonly unresolvable = new Set<string>();
  /** Fake servers started, per name, with their label. */
  readonly started: { name: string; label: string }[] = [];
  /** Secret registrations handed out, and which are released. */
  readonly secrets: { name: string; label: string; released: boolean }[] = [];

  load = (): { config: McpConfig; diagnostics: ConfigDiagnostic[] } => {
    if (this.loadError !== undefined) throw this.loadError;
    return {
      config: {
        servers: this.servers,
        files: [{ file: '/config/mcp.json', dialect: 'mcp-host' }],
        ...(this.defaults === undefined ? {} : { defaults: this.defaults }),
        ...(this.views === undefined ? {} : { views: this.views }),
        ...(this.roots === undefined ? {} : { roots: this.roots }),
      },
      diagnostics: this.diagnostics,
    };
  };

  resolve = (config: ServerConfig): ServerResolution => {
    if (this.unresolvable.has(config.name))
      return {
        error: new McpHostError(
          'CONFIG_VARIABLE_UNSET',
          `${config.source.file}: servers.${config.name}.args[0]: variable X is not set`,
        ),
      };
    const label = config.transport.type === 'stdio' ? (config.transport.args[0] ?? '') : '';
    const record = { name: config.name, label, released: false };
    this.secrets.push(record);
    const secret: Disposable = toDisposable(() => {
      record.released = true;
    });
    const definition: HostServerDefinition = {
      name: config.name,
      enabled: config.enabled,
      transport: (): Transport => {
        if (label === 'broken') throw new Error('cannot start');
        const [client, peer] = createLinkedTransports();
        void new FakeMcpServer(peer, {
          era: 'legacy',
          tools: [
            {
              name: 'who',
              inputSchema: { type: 'object' },
              handler: () => ({ content: [{ type: 'text', text: label }] }),
            },
            {
              name: 'roots',
              inputSchema: { type: 'object' },
              handler: async (_args, context) => ({
                content: [
                  { type: 'text', text: JSON.stringify(await context.request('roots/list')) },
                ],
              }),
            },
          ],
        }).start();
        this.started.push({ name: config.name, label });
        return client;
      },
    };
    return { definition, secrets: [secret] };
  };

  startsOf(name: string): string[] {
    return this.started.filter((s) => s.name === name).map((s) => s.label);
  }

  held(name: string): string[] {
    return this.secrets.filter((s) => s.name === name && !s.released).map((s) => s.label);
  }
}

function rig(world: World, host: McpHost): ConfigReloader {
  return new ConfigReloader(host, {
    files: ['/config/mcp.json'],
    load: world.load,
    resolve: world.resolve,
    watch: false,
  });
}

function ok(outcome: ReloadOutcome): Extract<ReloadOutcome, { ok: true }> {
  if (!outcome.ok) throw new Error(`refused: ${outcome.message}`);
  return outcome;
}

describe('ConfigReloader', () => {
  it('adds, removes and replaces by name, and leaves unchanged servers alone', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost({ health: { intervalMs: 0 } });
    const world = new World();
    await using reloader = rig(world, host);
    world.servers = [server('a', 'a1'), server('b', 'b1')];
    expect(ok(await reloader.start())).toMatchObject({
      trigger: 'start',
      added: ['a', 'b'],
      removed: [],
      changed: [],
      unchanged: [],
      failed: [],
    });

    // `a` moves down (other source line), `b` changes, `c` is new.
    world.servers = [server('c', 'c1'), server('a', 'a1', 9), server('b', 'b2')];
    expect(ok(await reloader.reload())).toMatchObject({
      trigger: 'manual',
      added: ['c'],
      changed: ['b'],
      unchanged: ['a'],
      removed: [],
    });
    expect(world.startsOf('a')).toEqual(['a1']);
    expect(world.startsOf('b')).toEqual(['b1', 'b2']);
    const who = await host.callTool('mcp__b__who');
    expect(who.content).toEqual([{ type: 'text', text: 'b2' }]);

    world.servers = [server('a', 'a1')];
    expect(ok(await reloader.reload())).toMatchObject({ removed: ['b', 'c'], unchanged: ['a'] });
    expect(host.status().map((s) => s.name)).toEqual(['a']);
    expect(reloader.servers).toEqual(['a']);
  });

  it('releases the secrets of a config once nothing runs it', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost({ health: { intervalMs: 0 } });
    const world = new World();
    await using reloader = rig(world, host);
    world.servers = [server('a', 'a1'), server('b', 'b1')];
    ok(await reloader.start());
    ok(await reloader.reload()); // unchanged: the second registrations are released at once
    expect(world.held('a')).toEqual(['a1']);
    world.servers = [server('a', 'a2')];
    ok(await reloader.reload());
    expect(world.held('a')).toEqual(['a2']);
    expect(world.held('b')).toEqual([]);
  });

  it('refuses the whole reload when the loader fails or reports a file-level error', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost({ health: { intervalMs: 0 } });
    const world = new World();
    await using reloader = rig(world, host);
    const errors: string[] = [];
    reloader.onReloadError((event) => errors.push(event.message));
    world.servers = [server('a', 'a1')];
    ok(await reloader.start());

    world.servers = [];
    world.loadError = new Error('disk on fire');
    const thrown = await reloader.reload();
    expect(thrown).toMatchObject({ ok: false, trigger: 'manual' });

    world.loadError = undefined;
    world.diagnostics = [
      {
        severity: 'error',
        kind: 'syntax-error',
        message: 'expected a comma',
        location: { file: '/config/mcp.json', dialect: 'mcp-host', path: [], line: 3, column: 7 },
      },
    ];
    const refused = await reloader.reload();
    expect(refused.ok).toBe(false);
    expect(errors).toEqual(['disk on fire', '/config/mcp.json:3:7: expected a comma']);
    expect(host.status().map((s) => [s.name, s.state])).toEqual([['a', 'ready']]);
    expect(world.startsOf('a')).toEqual(['a1']);
  });

  it('refuses a file that reads as empty after the start (a save caught half-way)', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost({ health: { intervalMs: 0 } });
    const world = new World();
    await using reloader = rig(world, host);
    const errors: string[] = [];
    reloader.onReloadError((event) => errors.push(event.message));
    world.servers = [server('a', 'a1')];
    ok(await reloader.start());

    world.servers = [];
    world.diagnostics = [
      {
        severity: 'warning',
        kind: 'empty-file',
        message: 'the file is empty: no servers',
        location: { file: '/config/mcp.json', dialect: 'mcp-host', path: [] },
      },
    ];
    expect(await reloader.reload()).toMatchObject({ ok: false, trigger: 'manual' });
    expect(errors).toEqual([
      '/config/mcp.json: the file is empty: no servers (a save in progress?)',
    ]);
    expect(host.status().map((s) => [s.name, s.state])).toEqual([['a', 'ready']]);
    expect(world.startsOf('a')).toEqual(['a1']);

    // The write that follows is applied; an empty `servers:` mapping still removes every server.
    world.diagnostics = [];
    ok(await reloader.reload());
    expect(host.status()).toEqual([]);
  });

  it('fails only the server that cannot resolve or that the loader reports; it keeps running', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost({ health: { intervalMs: 0 } });
    const world = new World();
    await using reloader = rig(world, host);
    world.servers = [server('a', 'a1'), server('b', 'b1'), server('c', 'c1')];
    ok(await reloader.start());

    // `a` changes but cannot resolve; `b`'s entry is invalid (the loader leaves it out); `n` is
    // new and cannot resolve; `c` changes fine.
    world.servers = [server('a', 'a2'), server('c', 'c2'), server('n', 'n1')];
    world.unresolvable.add('a').add('n');
    world.diagnostics = [
      { severity: 'error', kind: 'invalid-type', message: 'args: expected a list', server: 'b' },
    ];
    const event = ok(await reloader.reload());
    expect(event).toMatchObject({
      changed: ['c'],
      removed: [],
      added: [],
      failed: ['a', 'n', 'b'],
    });
    const errors = event.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => [d.server, d.kind])).toEqual([
      ['b', 'invalid-type'],
      ['a', 'unset-variable'],
      ['n', 'unset-variable'],
    ]);
    expect(errors[1]?.location?.file).toBe('/config/mcp.json');
    expect(host.status().map((s) => s.name)).toEqual(['a', 'b', 'c']);
    expect(world.startsOf('a')).toEqual(['a1']);

    // Fixed: `a` now changes from what ran (a1), `b` is compared with what ran too.
    world.unresolvable.clear();
    world.diagnostics = [];
    world.servers = [server('a', 'a2'), server('b', 'b1'), server('c', 'c2'), server('n', 'n1')];
    expect(ok(await reloader.reload())).toMatchObject({
      changed: ['a'],
      unchanged: ['b', 'c'],
      added: ['n'],
      failed: [],
    });
  });

  it('copes with servers the application removed or added under the same names', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost({ health: { intervalMs: 0 } });
    const world = new World();
    await using reloader = rig(world, host);
    world.servers = [server('a', 'a1'), server('b', 'b1')];
    ok(await reloader.start());
    await host.removeServer('a');
    await host.removeServer('b');

    world.servers = [server('b', 'b2')]; // `a` gone from the file too; `b` changed
    const first = ok(await reloader.reload());
    expect(first).toMatchObject({ removed: ['a'], failed: ['b'] });
    expect(ok(await reloader.reload())).toMatchObject({ added: ['b'] });

    // A name the application registered itself is not taken over.
    const own = world.resolve(server('x', 'mine'));
    if ('error' in own) throw own.error;
    await host.addServer(own.definition);
    world.servers = [server('b', 'b2'), server('x', 'theirs')];
    const taken = ok(await reloader.reload());
    expect(taken).toMatchObject({ failed: ['x'], unchanged: ['b'] });
    expect(taken.diagnostics.find((d) => d.server === 'x')?.kind).toBe('invalid-argument');
  });

  it('warns that host-wide settings wait for a restart, and restarts for per-server defaults', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost({ health: { intervalMs: 0 } });
    const world = new World();
    await using reloader = rig(world, host);
    world.servers = [server('a', 'a1')];
    world.defaults = { maxResultBytes: 1000 };
    ok(await reloader.start());

    world.defaults = { maxResultBytes: 2000 };
    const hostWide = ok(await reloader.reload());
    expect(hostWide.unchanged).toEqual(['a']);
    expect(hostWide.diagnostics.map((d) => d.kind)).toEqual(['restart-required']);

    world.defaults = { maxResultBytes: 2000, timeouts: { requestMs: 5_000 } };
    const perServer = ok(await reloader.reload());
    expect(perServer.changed).toEqual(['a']);
    expect(perServer.diagnostics).toEqual([]);

    // Views are host-wide too; where a view is written does not count.
    const at = (line: number) => ({
      file: '/config/mcp.json',
      dialect: 'mcp-host' as const,
      path: ['views', 'v'],
      line,
    });
    world.views = { v: { allow: ['a'], source: at(3) } };
    expect(ok(await reloader.reload()).diagnostics.map((d) => d.kind)).toEqual([
      'restart-required',
    ]);
    world.views = { v: { allow: ['a'], source: at(9) } };
    expect(ok(await reloader.reload()).diagnostics).toEqual([]);
  });

  it('gives the config’s roots to the host before adding servers, and a changed list at once', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost({ health: { intervalMs: 0 } });
    const world = new World();
    await using reloader = rig(world, host);
    const root = (path: string, line: number) => ({
      path,
      source: { file: '/config/mcp.json', dialect: 'mcp-host' as const, path: ['roots', 0], line },
    });
    const rootsOf = async () => {
      const result = await host.callTool('mcp__a__roots');
      return JSON.parse((result.content[0] as { text: string }).text) as unknown;
    };
    world.servers = [server('a', 'a1')];
    world.roots = [root('./sandbox', 3)];
    ok(await reloader.start());
    expect(await rootsOf()).toEqual({ roots: [{ uri: 'file:///config/sandbox' }] });

    // Moved in the file, same folder: nothing to tell.
    world.roots = [root('../config/sandbox', 7)];
    expect(ok(await reloader.reload()).unchanged).toEqual(['a']);
    world.roots = [root('./other', 7)];
    const changed = ok(await reloader.reload());
    expect(changed.unchanged).toEqual(['a']);
    expect(changed.diagnostics).toEqual([]);
    expect(await rootsOf()).toEqual({ roots: [{ uri: 'file:///config/other' }] });
    world.roots = undefined;
    ok(await reloader.reload());
    expect(await rootsOf()).toEqual({ roots: [] });
  });

  it('warns about a server whose applied config does not connect', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost({ health: { intervalMs: 0 }, restart: { enabled: false } });
    const world = new World();
    await using reloader = rig(world, host);
    world.servers = [server('a', 'a1'), server('b', 'broken')];
    const first = ok(await reloader.start());
    expect(first.added).toEqual(['a', 'b']);
    expect(first.diagnostics.map((d) => [d.server, d.kind, d.severity])).toEqual([
      ['b', 'not-connected', 'warning'],
    ]);
    // Named once: the server's last error without its own `server 'b': `.
    expect(first.diagnostics[0]?.message).toMatch(/^server 'b': not connected \(failed\): /);
    expect(first.diagnostics[0]?.message.match(/server 'b'/g)).toHaveLength(1);
    world.servers = [server('a', 'broken'), server('b', 'b1')];
    const second = ok(await reloader.reload());
    expect(second.changed).toEqual(['a', 'b']);
    expect(second.diagnostics.map((d) => d.server)).toEqual(['a']);
    expect(host.status().map((s) => s.state)).toEqual(['failed', 'ready']);
  });

  it('watchConfig creates and starts a reloader', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost({ health: { intervalMs: 0 } });
    const world = new World();
    world.servers = [server('a', 'a1')];
    const { reloader, outcome } = await watchConfig(host, {
      files: ['/config/mcp.json'],
      load: world.load,
      resolve: world.resolve,
      watch: false,
    });
    await using _reloader = reloader;
    expect(ok(outcome).added).toEqual(['a']);
    expect(reloader.servers).toEqual(['a']);
  });

  it('runs reloads one at a time, in order, and refuses work once closed', async () => {
    await using _guard = leakGuard();
    await using host = new McpHost({ health: { intervalMs: 0 } });
    const world = new World();
    const reloader = rig(world, host);
    world.servers = [server('a', 'a1')];
    // The second reload starts only after the first one's event: the edit it makes is seen.
    const subscription = reloader.onReload(() => {
      world.servers = [server('a', 'a2')];
      subscription.dispose();
    });
    const started = reloader.start();
    await expect(reloader.start()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const second = reloader.reload();
    expect(ok(await started).added).toEqual(['a']);
    expect(ok(await second).changed).toEqual(['a']);

    await reloader.close();
    await reloader.close();
    await expect(reloader.reload()).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(host.status().map((s) => s.state)).toEqual(['ready']); // the servers keep running
  });
});
