/**
 * Hot reload of real config files (a scratch directory) into an McpHost running real stdio
 * servers (test/fixtures/servers/reloadable.mjs), so processes can be compared by pid: an added
 * server starts, a removed one stops, a changed one restarts while the others keep their process,
 * a broken edit keeps the running config and says where the error is, calls in flight to a
 * changed server finish on the old process or fail with a typed error after the drain bound, and
 * an editor's rename-over-the-file save is seen. Files are read by the default loader
 * (`tryLoadConfig`) and servers resolved by `resolveServer`, wrapped to hear each process's
 * stderr. Every wait is on an event (a reload, a server status, a line the fixture prints); the
 * leak guard proves nothing is left behind.
 */
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigReloader } from '../../src/config/reload/reload.js';
import {
  type ConfigReloaderOptions,
  type ReloadErrorEvent,
  type ReloadEvent,
} from '../../src/config/reload/reload-types.js';
import { resolveServer } from '../../src/config/resolve-config.js';
import { McpHost, McpHostError, type CallToolResult, type ServerStatus } from '../../src/index.js';
import { StdioTransport } from '../../src/stdio.js';
import type { Transport } from '../../src/jsonrpc/transport.js';
import { createTransport } from '../../src/transport/create-transport.js';
import { isTransportDefinition } from '../../src/transport/transport-definition.js';
import { leakGuard } from '../helpers/leak-guard.js';
import { isOrphanWatchdog, isRunning, runningDescendants } from '../helpers/processes.js';
import { patchEnv, tempDir } from '../helpers/scratch.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/servers/reloadable.mjs', import.meta.url));

/** Generous: proves a call fails after the drain bound instead of hanging, not a budget. */
const DRAIN_SLACK_MS = 5_000;

interface ServerEntry {
  label: string;
  enabled?: boolean;
}

/** The config file text: `servers` by name, each the fixture with its label, in this order. */
function configText(servers: Record<string, ServerEntry>, indent = 2): string {
  const entries = Object.fromEntries(
    Object.entries(servers).map(([name, entry]) => [
      name,
      {
        command: process.execPath,
        args: [FIXTURE, `--label=${entry.label}`],
        ...(entry.enabled === undefined ? {} : { enabled: entry.enabled }),
      },
    ]),
  );
  return `${JSON.stringify({ servers: entries }, null, indent)}\n`;
}

/** What the servers printed on stderr, by pid, with a wait for a line. */
class StderrLines {
  readonly #lines: { pid: number | undefined; line: string }[] = [];
  readonly #waiters = new Set<() => void>();

  add(pid: number | undefined, line: string): void {
    this.#lines.push({ pid, line });
    for (const wake of [...this.#waiters]) wake();
  }

  /** Resolves once `count` lines of `pid` start with `prefix`. */
  waitFor(pid: number, prefix: string, count = 1): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => {
        const seen = this.#lines.filter((l) => l.pid === pid && l.line.startsWith(prefix));
        if (seen.length < count) return;
        this.#waiters.delete(check);
        resolve();
      };
      this.#waiters.add(check);
      check();
    });
  }
}

/** A host, its config file and a reloader over them; disposing closes both. */
class Rig implements AsyncDisposable {
  readonly host = new McpHost({ health: { intervalMs: 0 }, callTimeoutMs: 60_000 });
  readonly stderr = new StderrLines();
  readonly reloader: ConfigReloader;
  readonly file: string;

  /**
   * With `hearStderr`, servers are resolved by `resolveServer` wrapped to hear each process's
   * stderr; without, the reloader's own defaults load and resolve everything.
   */
  constructor(directory: string, options: Partial<ConfigReloaderOptions> = {}, hearStderr = true) {
    this.file = join(directory, 'mcp.json');
    const resolve: ConfigReloaderOptions['resolve'] = async (server, config) => {
      const resolved = await resolveServer(server, { env: process.env, defaults: config.defaults });
      if ('error' in resolved) return resolved;
      const definition = resolved.definition.transport;
      if (!isTransportDefinition(definition)) throw new Error('config describes its transports');
      const transport = async (): Promise<Transport> => {
        const made = await createTransport(definition, { serverName: server.name });
        if (made instanceof StdioTransport)
          made.onStderrLine((line) => this.stderr.add(made.pid, line));
        return made;
      };
      return { ...resolved, definition: { ...resolved.definition, transport } };
    };
    this.reloader = new ConfigReloader(this.host, {
      files: [this.file],
      ...(hearStderr ? { resolve } : {}),
      debounceMs: 20,
      ...options,
    });
  }

  write(servers: Record<string, ServerEntry>, indent?: number): Promise<void> {
    return writeFile(this.file, configText(servers, indent));
  }

  pid(name: string): number {
    const pid = this.host.serverStatus(name).pid;
    if (pid === undefined) throw new Error(`server '${name}' has no process`);
    return pid;
  }

  pids(): Record<string, number | undefined> {
    return Object.fromEntries(this.host.status().map((s) => [s.name, s.pid]));
  }

  /** The next reload, applied or refused (subscribe before the edit). */
  nextReload(): Promise<ReloadEvent | ReloadErrorEvent> {
    return new Promise((resolve) => {
      const subscriptions = [
        this.reloader.onReload((event) => done(event)),
        this.reloader.onReloadError((event) => done(event)),
      ];
      const done = (event: ReloadEvent | ReloadErrorEvent): void => {
        for (const subscription of subscriptions) subscription.dispose();
        resolve(event);
      };
    });
  }

  /** Resolves when `name` is ready on a process other than `oldPid`. */
  readyAgain(name: string, oldPid: number): Promise<ServerStatus> {
    return new Promise((resolve) => {
      const check = (status: ServerStatus): boolean => {
        if (status.name !== name || status.state !== 'ready') return false;
        if (status.pid === undefined || status.pid === oldPid) return false;
        subscription.dispose();
        resolve(status);
        return true;
      };
      const subscription = this.host.onServerStatus(check);
      check(this.host.serverStatus(name));
    });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.reloader.close();
    await this.host.close();
  }
}

function text(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

function applied(event: ReloadEvent | ReloadErrorEvent): ReloadEvent {
  if (!('added' in event)) throw new Error(`the reload was refused: ${event.message}`);
  return event;
}

function refused(event: ReloadEvent | ReloadErrorEvent): ReloadErrorEvent {
  if ('added' in event) throw new Error('the reload was applied, not refused');
  return event;
}

describe('config hot reload', () => {
  it('adds, removes and restarts only the servers whose config changed; the others keep their process', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    await using rig = new Rig(dir.path, {}, false);
    await rig.write({ a: { label: 'a1' }, b: { label: 'b1' } });
    const first = applied(await rig.reloader.start());
    expect(first).toMatchObject({ added: ['a', 'b'], removed: [], changed: [], failed: [] });
    const a1 = rig.pid('a');
    const b1 = rig.pid('b');
    expect(text(await rig.host.callTool('mcp__a__who'))).toBe(`a1 ${a1}`);

    // Added (first, so every other entry moves down a few lines: positions are not config).
    let next = rig.nextReload();
    await rig.write({ c: { label: 'c1' }, a: { label: 'a1' }, b: { label: 'b1' } });
    expect(applied(await next)).toMatchObject({
      trigger: 'watch',
      added: ['c'],
      removed: [],
      changed: [],
      unchanged: ['a', 'b'],
    });
    const c1 = rig.pid('c');
    expect(rig.pids()).toEqual({ a: a1, b: b1, c: c1 });

    // Removed: its process stops, the others keep theirs.
    next = rig.nextReload();
    await rig.write({ c: { label: 'c1' }, a: { label: 'a1' } });
    expect(applied(await next)).toMatchObject({ removed: ['b'], unchanged: ['c', 'a'] });
    expect(isRunning(b1)).toBe(false);
    expect(rig.pids()).toEqual({ a: a1, c: c1 });
    expect(rig.host.tools().map((tool) => tool.name)).not.toContain('mcp__b__who');

    // Changed: only that server restarts.
    next = rig.nextReload();
    await rig.write({ c: { label: 'c1' }, a: { label: 'a2' } });
    expect(applied(await next)).toMatchObject({
      added: [],
      removed: [],
      changed: ['a'],
      unchanged: ['c'],
    });
    const a2 = rig.pid('a');
    expect(a2).not.toBe(a1);
    expect(isRunning(a1)).toBe(false);
    expect(rig.pid('c')).toBe(c1);
    expect(text(await rig.host.callTool('mcp__a__who'))).toBe(`a2 ${a2}`);

    // Reformatted only (other indentation, so other lines and columns): nothing restarts.
    next = rig.nextReload();
    await rig.write({ c: { label: 'c1' }, a: { label: 'a2' } }, 6);
    expect(applied(await next)).toMatchObject({ changed: [], unchanged: ['c', 'a'] });
    expect(rig.pids()).toEqual({ a: a2, c: c1 });

    // Switched off: drained and replaced by a disabled entry (no process); on again: a new one.
    next = rig.nextReload();
    await rig.write({ c: { label: 'c1' }, a: { label: 'a2', enabled: false } });
    expect(applied(await next)).toMatchObject({ changed: ['a'], unchanged: ['c'] });
    expect(rig.host.serverStatus('a').state).toBe('disabled');
    expect(isRunning(a2)).toBe(false);
    next = rig.nextReload();
    await rig.write({ c: { label: 'c1' }, a: { label: 'a2' } });
    expect(applied(await next)).toMatchObject({ changed: ['a'], unchanged: ['c'] });
    expect(rig.host.serverStatus('a').state).toBe('ready');
    expect(rig.pid('c')).toBe(c1);
  });

  it('keeps the running config when an edit breaks the file, and says where', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    await using rig = new Rig(dir.path);
    await rig.write({ a: { label: 'a1' }, b: { label: 'b1' } });
    applied(await rig.reloader.start());
    const before = rig.pids();

    // A missing comma on line 4, where `b` would have changed and `a` been removed.
    let next = rig.nextReload();
    const broken = configText({ b: { label: 'b2' } }).replace(
      `"command": "${process.execPath}",`,
      `"command": "${process.execPath}"`,
    );
    await writeFile(rig.file, broken);
    const refusal = refused(await next);
    const error = refusal.diagnostics.find((d) => d.severity === 'error');
    expect(error?.location?.file).toBe(rig.file);
    expect(error?.location?.line).toBe(5);
    expect(refusal.message).toContain(`${rig.file}:5:`);
    expect(rig.pids()).toEqual(before);
    expect(text(await rig.host.callTool('mcp__a__who'))).toBe(`a1 ${before.a}`);

    // Fixed: applied from the running config.
    next = rig.nextReload();
    await rig.write({ b: { label: 'b2' } });
    expect(applied(await next)).toMatchObject({ removed: ['a'], changed: ['b'] });
  });

  it('fails only the server whose new entry is invalid or cannot be resolved; it keeps running as it was', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    await using rig = new Rig(dir.path);
    await rig.write({ a: { label: 'a1' }, b: { label: 'b1' }, c: { label: 'c1' } });
    applied(await rig.reloader.start());
    const before = rig.pids();

    // `a` and the new `n` use an unset variable, `c`'s args are no list, `b` changes.
    const next = rig.nextReload();
    const unset = 'MCP_HOST_RELOAD_TEST_UNSET_VARIABLE';
    const written = configText({
      a: { label: `\${${unset}}` },
      b: { label: 'b2' },
      n: { label: `\${${unset}}` },
    });
    const document = JSON.parse(written) as { servers: Record<string, unknown> };
    document.servers.c = { command: process.execPath, args: 5 };
    await writeFile(rig.file, JSON.stringify(document, null, 2));
    const event = applied(await next);
    expect(event).toMatchObject({
      added: [],
      changed: ['b'],
      unchanged: [],
      failed: ['a', 'n', 'c'],
    });
    const problems = event.diagnostics.filter((d) => d.severity === 'error');
    expect(problems.map((d) => [d.server, d.kind]).sort()).toEqual([
      ['a', 'unset-variable'],
      ['c', 'invalid-type'],
      ['n', 'unset-variable'],
    ]);
    for (const problem of problems) expect(problem.location?.file).toBe(rig.file);
    expect(problems.find((d) => d.server === 'a')?.message).toContain(unset);
    expect(problems.find((d) => d.server === 'c')?.location).toMatchObject({
      path: ['servers', 'c', 'args'],
      line: expect.any(Number) as number,
    });
    // `a` and `c` still run their old config; `n` was not added.
    expect(rig.pids()).toEqual({ ...before, b: rig.pid('b') });
    expect(rig.pid('b')).not.toBe(before.b);
  });

  it('lets calls in flight to a changed server finish on the old process while new calls go to the new one', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    await using rig = new Rig(dir.path, { drainTimeoutMs: 60_000 });
    await rig.write({ a: { label: 'a1' }, b: { label: 'b1' } });
    applied(await rig.reloader.start());
    const a1 = rig.pid('a');
    const b1 = rig.pid('b');

    const settled: string[] = [];
    rig.host.onToolCall((call) => {
      if (call.phase !== 'started') settled.push(`${call.tool}:${call.outcome}`);
    });
    const inFlight = [rig.host.callTool('mcp__a__slow'), rig.host.callTool('mcp__a__slow')];
    await rig.stderr.waitFor(a1, 'slow-started', 2);

    const next = rig.nextReload();
    await rig.write({ a: { label: 'a2' }, b: { label: 'b1' } });
    const a2 = (await rig.readyAgain('a', a1)).pid!;
    // New calls go to the new process; the old one still holds the two calls.
    expect(text(await rig.host.callTool('mcp__a__who'))).toBe(`a2 ${a2}`);
    expect(isRunning(a1)).toBe(true);

    process.kill(a1, 'SIGUSR1'); // the old process answers its calls
    expect((await Promise.all(inFlight)).map(text)).toEqual(['a1 slow', 'a1 slow']);
    expect(applied(await next)).toMatchObject({ changed: ['a'], unchanged: ['b'] });
    expect(isRunning(a1)).toBe(false);
    expect(rig.pid('b')).toBe(b1);
    expect(settled.filter((s) => s.startsWith('mcp__a__slow'))).toEqual([
      'mcp__a__slow:ok',
      'mcp__a__slow:ok',
    ]);
  });

  it('lets a call in flight to a removed server finish before its process stops', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    await using rig = new Rig(dir.path, { drainTimeoutMs: 60_000 });
    await rig.write({ a: { label: 'a1' }, b: { label: 'b1' } });
    applied(await rig.reloader.start());
    const a1 = rig.pid('a');
    const b1 = rig.pid('b');

    const inFlight = rig.host.callTool('mcp__b__slow');
    await rig.stderr.waitFor(b1, 'slow-started');
    const removed = new Promise<void>((resolve) => {
      const subscription = rig.host.onToolsChanged((change) => {
        if (!change.removed.includes('mcp__b__who')) return;
        subscription.dispose();
        resolve();
      });
    });
    const next = rig.nextReload();
    await rig.write({ a: { label: 'a1' } });
    await removed; // its tools left the list at once; its process still holds the call
    await expect(rig.host.callTool('mcp__b__who')).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
    expect(isRunning(b1)).toBe(true);

    process.kill(b1, 'SIGUSR1');
    expect(text(await inFlight)).toBe('b1 slow');
    expect(applied(await next)).toMatchObject({ removed: ['b'], unchanged: ['a'] });
    expect(isRunning(b1)).toBe(false);
    expect(rig.pids()).toEqual({ a: a1 });
  });

  it('fails a call still in flight after the drain bound with a typed error, none silently dropped', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const drainTimeoutMs = 200;
    await using rig = new Rig(dir.path, { drainTimeoutMs });
    await rig.write({ a: { label: 'a1' }, b: { label: 'b1' } });
    applied(await rig.reloader.start());
    const a1 = rig.pid('a');

    const failures: unknown[] = [];
    const inFlight = [rig.host.callTool('mcp__a__slow'), rig.host.callTool('mcp__a__slow')].map(
      (call) =>
        call.then(
          () => 'answered',
          (error: unknown) => {
            failures.push(error);
            return 'failed';
          },
        ),
    );
    await rig.stderr.waitFor(a1, 'slow-started', 2);
    const next = rig.nextReload();
    const editedAt = performance.now();
    await rig.write({ a: { label: 'a2' }, b: { label: 'b1' } });
    const outcomes = await Promise.all(inFlight); // the old process never answers them
    const elapsed = performance.now() - editedAt;

    expect(outcomes).toEqual(['failed', 'failed']);
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(McpHostError);
      expect(['CONNECTION_CLOSED', 'SERVER_UNAVAILABLE']).toContain((failure as McpHostError).code);
    }
    expect(elapsed).toBeGreaterThanOrEqual(drainTimeoutMs);
    expect(elapsed).toBeLessThan(drainTimeoutMs + DRAIN_SLACK_MS);
    expect(applied(await next)).toMatchObject({ changed: ['a'], unchanged: ['b'] });
    expect(isRunning(a1)).toBe(false);
    expect(text(await rig.host.callTool('mcp__a__who'))).toMatch(/^a2 /);
  });

  it('sees an editor saving by renaming a new file over the old one', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    await using rig = new Rig(dir.path, {}, false);
    await rig.write({ a: { label: 'a1' }, b: { label: 'b1' } });
    applied(await rig.reloader.start());
    const before = rig.pids();

    for (const label of ['b2', 'b3']) {
      const next = rig.nextReload();
      const temporary = join(dir.path, `.mcp.json.${label}.swp`);
      await writeFile(temporary, configText({ a: { label: 'a1' }, b: { label } }));
      await rename(temporary, rig.file);
      expect(applied(await next)).toMatchObject({ changed: ['b'], unchanged: ['a'] });
    }
    expect(rig.pid('a')).toBe(before.a);
    expect(rig.pid('b')).not.toBe(before.b);
    expect(text(await rig.host.callTool('mcp__b__who'))).toMatch(/^b3 /);
  });

  it('applies the last of a burst of edits, one reload at a time, leaving one process per server', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    await using rig = new Rig(dir.path, {}, false);
    await rig.write({ a: { label: 'a0' }, b: { label: 'b0' } });
    applied(await rig.reloader.start());
    const b0 = rig.pid('b');
    const seen: ReloadEvent[] = [];
    rig.reloader.onReload((event) => seen.push(event));

    for (let i = 1; i <= 5; i++) await rig.write({ a: { label: `a${i}` }, b: { label: 'b0' } });
    // Queued behind any reload the edits started: it reads the files as they are now.
    const last = await rig.reloader.reload();
    expect(last.ok).toBe(true);
    const a = rig.pid('a');
    expect(text(await rig.host.callTool('mcp__a__who'))).toBe(`a5 ${a}`);
    expect(rig.pid('b')).toBe(b0);
    // The replaced servers are closed in the background (their calls may drain): wait for them.
    await expect
      .poll(
        () =>
          runningDescendants(process.pid)
            .filter((p) => !isOrphanWatchdog(p.pid))
            .map((p) => p.pid)
            .sort(),
        { timeout: 10_000 },
      )
      .toEqual([a, b0].sort());
    for (const event of seen) expect(event.unchanged).toContain('b');
    expect(seen.flatMap((event) => event.failed)).toEqual([]);
  });

  it('asks an input once for the reloader, not at every reload', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const asked: string[] = [];
    await using rig = new Rig(
      dir.path,
      {
        inputs: (input) => {
          asked.push(input.id);
          return Promise.resolve('from-input');
        },
      },
      false,
    );
    const withInput = (b: string): string =>
      JSON.stringify({
        inputs: [{ id: 'label', type: 'promptString', description: 'Label of a' }],
        servers: {
          a: { command: process.execPath, args: [FIXTURE, '--label=${input:label}'] },
          b: { command: process.execPath, args: [FIXTURE, `--label=${b}`] },
        },
      });
    await writeFile(rig.file, withInput('b1'));
    applied(await rig.reloader.start());
    const a1 = rig.pid('a');
    expect(text(await rig.host.callTool('mcp__a__who'))).toBe(`from-input ${a1}`);

    const next = rig.nextReload();
    await writeFile(rig.file, withInput('b2'));
    expect(applied(await next)).toMatchObject({ changed: ['b'], unchanged: ['a'] });
    expect(asked).toEqual(['label']);
    expect(rig.pid('a')).toBe(a1);
  });

  it('never shows a secret in its events, diagnostics or logs', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    const canary = 'reload-canary-5f1c0e7a9b3d';
    using _env = patchEnv({ MCP_HOST_RELOAD_CANARY: canary });
    const logged: string[] = [];
    const log = (message: string, fields?: object): void =>
      void logged.push(`${message} ${inspect(fields)}`);
    await using rig = new Rig(
      dir.path,
      { logger: { debug: log, info: log, warn: log, error: log } },
      false,
    );
    const events: unknown[] = [];
    rig.reloader.onReload((event) => events.push(event));
    rig.reloader.onReloadError((event) => events.push(event));
    const withSecret = (label: string, extra = ''): string =>
      JSON.stringify({
        servers: {
          a: {
            command: process.execPath,
            args: [FIXTURE, `--label=${label}`],
            env: { API_TOKEN: '${MCP_HOST_RELOAD_CANARY}', OTHER: '${MCP_HOST_RELOAD_UNSET}' },
          },
          b: {
            command: process.execPath,
            args: [FIXTURE, '--label=b'],
            env: { API_TOKEN: `\${MCP_HOST_RELOAD_CANARY}${extra}` },
          },
        },
      });
    await writeFile(rig.file, withSecret('a1'));
    await rig.reloader.start(); // `a` fails (an unset variable beside the secret), `b` runs
    let next = rig.nextReload();
    await writeFile(rig.file, withSecret('a2', '-x')); // `b` changes
    await next;
    next = rig.nextReload();
    await writeFile(rig.file, `${withSecret('a3')} }`); // broken
    await next;

    expect(events).toHaveLength(3);
    const shown = [JSON.stringify(events), inspect(events, { depth: 10 }), ...logged].join('\n');
    expect(shown).not.toContain(canary);
    expect(shown).toContain('MCP_HOST_RELOAD_UNSET'); // the variable is named, never a value
  });

  it('stops watching on close: later edits change nothing', async () => {
    await using _guard = leakGuard();
    using dir = tempDir();
    await using rig = new Rig(dir.path);
    await rig.write({ a: { label: 'a1' } });
    applied(await rig.reloader.start());
    const before = rig.pids();
    await rig.reloader.close();
    await rig.write({ a: { label: 'a2' } });
    await expect(rig.reloader.reload()).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(rig.pids()).toEqual(before);
  });
});
