/**
 * Hot reload: watches the config files and applies each edit to a running `McpHost`, touching
 * only the servers whose effective configuration changed.
 *
 * - **Watching.** `node:fs` `watch` on each file's directory (not the file: editors save by
 *   writing a temporary file and renaming it over the old one, which a watch on the file itself
 *   loses), filtered by file name, debounced (`debounceMs`); no polling. A reload whose files read
 *   the same bytes as the last attempt is skipped (one save often fires several events).
 * - **Diff.** Per server, by name, over the *effective* configuration (see reload-fingerprint.ts):
 *   `resolveServer`'s fingerprint (after expansion, env file included) and `enabled`; never where
 *   it was written (file, line, column) nor unknown keys. Only digests are kept, never the values.
 *   New names are added, missing ones removed, changed ones replaced (`McpHost.replaceServer`),
 *   the others keep running untouched (same process).
 * - **Invalid edits.** An error that concerns a whole file (syntax, unreadable file, no config,
 *   a file that reads as empty after the start: a save caught half-way) refuses the whole reload:
 *   the running config stays, `onReloadError` reports the diagnostics (file, line, column). An
 *   error that concerns one server (an unset variable, an invalid entry) fails only that server:
 *   a running one keeps its old config, a new one is not added, and `onReload` lists it under
 *   `failed` with its diagnostics.
 * - **Calls in flight** to a changed or removed server: drained. New calls go to the new server
 *   at once (a removed server's tools leave the list at once); the old connection keeps serving
 *   the calls it has for up to `drainTimeoutMs`, then it is closed, and a call still pending then
 *   fails with a typed error (`CONNECTION_CLOSED`, or `SERVER_UNAVAILABLE` for one that was
 *   waiting to be resent). No call is dropped without an answer or an error.
 *
 * Reloads run one at a time, in order; edits during a reload are applied by the next one. Only the
 * servers this reloader added are its own: it never removes a server the application added.
 */
import { resolve as resolvePath } from 'node:path';
import { McpHostError } from '../../errors/mcp-host-error.js';
import type { McpHost } from '../../host/mcp-host.js';
import { Emitter } from '../../internal/emitter.js';
import { silentLogger, type Logger } from '../../internal/logger.js';
import { ConfigWatcher, type WatchError } from './config-watcher.js';
import type { ConfigDiagnostic, HostDefaultsConfig, McpConfig, ServerConfig } from '../model.js';
import { InputResolver } from '../expand/input-providers.js';
import { tryLoadConfig } from '../load.js';
import { resolveServer } from '../resolve-config.js';
import { resolveRoots } from '../resolve-roots.js';
import { filesDigest, hostWideDigest } from './reload-fingerprint.js';
import {
  describeError,
  diagnosticOf,
  notConnected,
  RESTART_REQUIRED,
  locatedMessage,
} from './reload-diagnostics.js';
import { planServer, release, type Applied, type Planned } from './reload-plan.js';
import {
  DEFAULT_DRAIN_TIMEOUT_MS,
  type ConfigReloaderOptions,
  type LoadedConfig,
  type ReloadErrorEvent,
  type ReloadEvent,
  type ReloadOutcome,
  type ReloadTrigger,
  type ServerResolution,
} from './reload-types.js';

/**
 * Keeps a host's servers in step with its config files. `start()` applies the files as they are
 * and starts watching; every edit then reloads (see the module comment for the rules); `close()`
 * stops watching (the servers keep running: the host owns them).
 */
export class ConfigReloader implements AsyncDisposable {
  readonly #host: McpHost;
  readonly #options: ConfigReloaderOptions;
  readonly #files: readonly string[];
  readonly #logger: Logger;
  readonly #applied = new Map<string, Applied>();
  readonly #reloadEmitter = new Emitter<ReloadEvent>();
  readonly #errorEmitter = new Emitter<ReloadErrorEvent>();
  #watcher: ConfigWatcher | undefined;
  /** Reloads run one after another on this chain. */
  #tail: Promise<unknown> = Promise.resolve();
  /** A watch-triggered reload is queued and not yet started (later events join it). */
  #watchQueued = false;
  /** Digest of the files' bytes at the last attempt. */
  #lastContent: string | undefined;
  #started = false;
  #closing: Promise<void> | undefined;

  /** A reload was applied (also when nothing changed after an edit). */
  readonly onReload = this.#reloadEmitter.event;
  /** A reload was refused (an invalid file): the running config is kept. */
  readonly onReloadError = this.#errorEmitter.event;

  constructor(host: McpHost, options: ConfigReloaderOptions) {
    this.#host = host;
    this.#options = options;
    this.#files = options.files.map((file) => resolvePath(file));
    this.#logger = options.logger ?? silentLogger;
  }

  /** The names of the servers this reloader manages, as last applied. */
  get servers(): string[] {
    return [...this.#applied.keys()];
  }

  /** Starts watching, then applies the files as they are now (the first reload). */
  start(): Promise<ReloadOutcome> {
    if (this.#closing !== undefined)
      return Promise.reject(new McpHostError('CONNECTION_CLOSED', 'the config reloader is closed'));
    if (this.#started)
      return Promise.reject(
        new McpHostError('INVALID_ARGUMENT', 'the config reloader is already started'),
      );
    this.#started = true;
    if (this.#options.watch !== false) {
      const watcher = new ConfigWatcher(this.#files, { debounceMs: this.#options.debounceMs });
      watcher.onChange(() => this.#changed());
      watcher.onError((problem) => this.#watchFailed(problem));
      this.#watcher = watcher;
      watcher.start();
    }
    return this.#enqueue('start').then((outcome) => {
      if (outcome === undefined)
        throw new McpHostError('CONNECTION_CLOSED', 'the config reloader is closed');
      return outcome;
    });
  }

  /** Reloads now (e.g. on SIGHUP), after any reload under way; resolves with what happened. */
  async reload(): Promise<ReloadOutcome> {
    if (this.#closing !== undefined)
      throw new McpHostError('CONNECTION_CLOSED', 'the config reloader is closed');
    const outcome = await this.#enqueue('manual');
    if (outcome === undefined)
      throw new McpHostError('CONNECTION_CLOSED', 'the config reloader is closed');
    return outcome;
  }

  /**
   * Stops watching and waits for a reload under way (bounded by its drains); the servers keep
   * running. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #close(): Promise<void> {
    this.#watcher?.close();
    await this.#tail;
    this.#reloadEmitter.clear();
    this.#errorEmitter.clear();
  }

  // ---- watching -------------------------------------------------------------------------------

  /** The files changed (debounced): one watch reload, joined by later events until it starts. */
  #changed(): void {
    if (this.#closing !== undefined || this.#watchQueued) return;
    this.#watchQueued = true;
    void this.#enqueue('watch');
  }

  #watchFailed({ directory, error }: WatchError): void {
    const message = `cannot watch ${directory} for changes (edits there are missed until a reload()): ${describeError(error)}`;
    this.#logger.warn(`config: ${message}`);
    this.#errorEmitter.fire({
      trigger: 'watch',
      message,
      diagnostics: [{ severity: 'error', kind: 'watch-failed', message }],
    });
  }

  #enqueue(trigger: ReloadTrigger): Promise<ReloadOutcome | undefined> {
    const run = this.#tail.then(async () => {
      if (trigger === 'watch') this.#watchQueued = false;
      if (this.#closing !== undefined) return undefined;
      return this.#reloadOnce(trigger);
    });
    this.#tail = run.catch((error: unknown) =>
      this.#logger.error(`config: reload failed: ${String(error)}`),
    );
    return run;
  }

  // ---- reloading ------------------------------------------------------------------------------

  async #reloadOnce(trigger: ReloadTrigger): Promise<ReloadOutcome | undefined> {
    const content = await filesDigest(this.#files);
    if (trigger === 'watch' && content === this.#lastContent) return undefined;
    this.#lastContent = content;

    let loaded: LoadedConfig;
    try {
      loaded = await (this.#options.load ?? this.#defaultLoad)(this.#files);
    } catch (error) {
      loaded = {
        config: undefined,
        diagnostics: [{ severity: 'error', kind: 'load-failed', message: describeError(error) }],
      };
    }
    const diagnostics = [...loaded.diagnostics];
    const config = loaded.config;
    // A file that reads as empty on a running host is far more often a save caught half-way (an
    // editor or `>` truncates, then writes) than a wish to stop every server: refuse it, and the
    // write that follows brings the next reload. An empty `servers:` mapping removes them all.
    const empty = diagnostics.find((d) => d.kind === 'empty-file');
    if (trigger !== 'start' && empty !== undefined)
      return this.#refuse(trigger, `${locatedMessage(empty)} (a save in progress?)`, diagnostics);
    // An error not tied to one server fails its whole file: the running config is kept.
    const fatal = diagnostics.filter((d) => d.severity === 'error' && d.server === undefined);
    if (config === undefined || fatal.length > 0) {
      const first = fatal[0] ?? diagnostics.find((d) => d.severity === 'error');
      return this.#refuse(
        trigger,
        first === undefined ? 'no config' : locatedMessage(first),
        diagnostics,
      );
    }

    // Before any server is added, so a new one connects with them.
    this.#applyRoots(config);
    const broken = new Set(
      diagnostics
        .filter((d) => d.severity === 'error' && d.server !== undefined)
        .map((d) => d.server!),
    );
    const wanted = new Map<string, ServerConfig>();
    for (const server of config.servers) wanted.set(server.name, server);

    const added: Planned[] = [];
    const changed: Planned[] = [];
    const unchanged: string[] = [];
    const failed: string[] = [];
    await Promise.all(
      [...wanted.values()].map(async (server) => {
        if (broken.has(server.name)) return;
        const plan = planServer(server, config, await this.#resolve(server, config));
        diagnostics.push(...plan.diagnostics);
        const planned = plan.planned;
        if (planned === undefined) {
          failed.push(server.name);
          return;
        }
        const applied = this.#applied.get(server.name);
        if (applied === undefined) added.push(planned);
        else if (applied.fingerprint !== planned.fingerprint) changed.push(planned);
        else {
          unchanged.push(server.name);
          release(planned.secrets); // the running config holds its own
        }
      }),
    );
    failed.push(...[...broken].filter((name) => !failed.includes(name)));
    const removed = [...this.#applied.keys()].filter(
      (name) => !wanted.has(name) && !broken.has(name),
    );
    diagnostics.push(...this.#hostWideChanges(config.defaults, config.views));

    const drainTimeoutMs = this.#options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
    const done = { added: [] as string[], removed: [] as string[], changed: [] as string[] };
    const fail = (server: ServerConfig | string, error: unknown): void => {
      const name = typeof server === 'string' ? server : server.name;
      failed.push(name);
      diagnostics.push(diagnosticOf(error, name, typeof server === 'string' ? undefined : server));
    };
    await Promise.all([
      ...removed.map(async (name) => {
        try {
          await this.#host.removeServer(name, { drainTimeoutMs });
        } catch (error) {
          // Already gone (the application removed it) counts as removed; else it still runs.
          if (this.#hosts(name)) return fail(name, error);
        }
        done.removed.push(name);
        release(this.#applied.get(name)?.secrets);
        this.#applied.delete(name);
      }),
      ...changed.map(async (planned) => {
        try {
          const status = await this.#host.replaceServer(planned.definition, { drainTimeoutMs });
          diagnostics.push(...notConnected(status, planned.server));
          release(this.#applied.get(planned.server.name)?.secrets);
          this.#applied.set(planned.server.name, planned);
          done.changed.push(planned.server.name);
        } catch (error) {
          fail(planned.server, error);
          release(planned.secrets);
          // Removed behind our back: the next reload adds it again.
          if (!this.#hosts(planned.server.name)) {
            release(this.#applied.get(planned.server.name)?.secrets);
            this.#applied.delete(planned.server.name);
          }
        }
      }),
      ...added.map(async (planned) => {
        try {
          const status = await this.#host.addServer(planned.definition);
          diagnostics.push(...notConnected(status, planned.server));
          this.#applied.set(planned.server.name, planned);
          done.added.push(planned.server.name);
        } catch (error) {
          fail(planned.server, error);
          release(planned.secrets);
        }
      }),
    ]);

    // In the config's order, then those it no longer has, in the order they were added.
    const order = [...new Set([...wanted.keys(), ...this.#applied.keys(), ...removed, ...broken])];
    const rank = (name: string): number => order.indexOf(name);
    const sorted = (names: string[]): string[] =>
      [...new Set(names)].sort((a, b) => rank(a) - rank(b));
    const event: ReloadEvent = {
      trigger,
      added: sorted(done.added),
      removed: sorted(done.removed),
      changed: sorted(done.changed),
      unchanged: sorted(unchanged),
      failed: sorted(failed),
      diagnostics,
    };
    this.#logger.info(
      `config: reloaded (${event.added.length} added, ${event.removed.length} removed, ${event.changed.length} changed, ${event.unchanged.length} unchanged, ${event.failed.length} failed)`,
    );
    this.#reloadEmitter.fire(event);
    return { ok: true, ...event };
  }

  /** The resolver's answer for one server (what it throws, as its error). */
  async #resolve(server: ServerConfig, config: McpConfig): Promise<ServerResolution> {
    try {
      return await (this.#options.resolve ?? this.#defaultResolve)(server, config);
    } catch (error) {
      return { error };
    }
  }

  readonly #defaultLoad = (files: readonly string[]): Promise<LoadedConfig> =>
    tryLoadConfig({
      files,
      ...(this.#options.cwd === undefined ? {} : { cwd: this.#options.cwd }),
      ...(this.#options.env === undefined ? {} : { env: this.#options.env }),
    });

  #inputs: InputResolver | undefined;

  readonly #defaultResolve = (
    server: ServerConfig,
    config: McpConfig,
  ): Promise<ServerResolution> => {
    const inputs = this.#options.inputs;
    // One resolver for the reloader's life: an input is asked once, not at every reload.
    this.#inputs ??=
      inputs instanceof InputResolver
        ? inputs
        : new InputResolver({
            ...(config.inputs === undefined ? {} : { inputs: config.inputs }),
            ...(inputs === undefined ? {} : { provider: inputs }),
          });
    return resolveServer(server, {
      env: this.#options.env ?? process.env,
      inputs: this.#inputs,
      ...(config.defaults === undefined ? {} : { defaults: config.defaults }),
      ...(this.#options.logger === undefined ? {} : { logger: this.#options.logger }),
    });
  };

  /** Whether the host has a server of this name (the application may have removed it). */
  #hosts(name: string): boolean {
    return this.#host.status().some((status) => status.name === name);
  }

  #refuse(trigger: ReloadTrigger, message: string, diagnostics: ConfigDiagnostic[]): ReloadOutcome {
    this.#logger.warn(`config: reload refused, the running config is kept: ${message}`);
    const event: ReloadErrorEvent = { trigger, message, diagnostics };
    this.#errorEmitter.fire(event);
    return { ok: false, ...event };
  }

  #lastHostWide: string | undefined;
  /** The roots this reloader last gave the host (JSON), if it gave any. */
  #lastRoots: string | undefined;

  /**
   * The config's roots, given to the host (`setRoots`) when they differ from what this reloader
   * gave it last: connected legacy servers hear `roots/list_changed`. A config without roots
   * leaves the host's own alone, unless this reloader set some earlier (they become none).
   */
  #applyRoots(config: McpConfig): void {
    if (config.roots === undefined && this.#lastRoots === undefined) return;
    const roots = resolveRoots(config.roots ?? []);
    const digest = JSON.stringify(roots);
    if (digest === this.#lastRoots) return;
    try {
      this.#host.setRoots(roots);
      this.#lastRoots = digest;
    } catch (error) {
      // Only a closed host refuses roots the config layer checked: its servers are gone too.
      this.#logger.warn(`config: the roots were not applied: ${describeError(error)}`);
    }
  }

  /** Host-wide settings cannot change on a running host: a warning when they did. */
  #hostWideChanges(
    defaults: HostDefaultsConfig | undefined,
    views: McpConfig['views'],
  ): ConfigDiagnostic[] {
    const digest = hostWideDigest(defaults, views);
    const before = this.#lastHostWide;
    this.#lastHostWide = digest;
    return before === undefined || before === digest ? [] : [RESTART_REQUIRED];
  }
}

/** Creates a reloader for `host` and starts it (applies the files, then watches them). */
export async function watchConfig(
  host: McpHost,
  options: ConfigReloaderOptions,
): Promise<{ reloader: ConfigReloader; outcome: ReloadOutcome }> {
  const reloader = new ConfigReloader(host, options);
  try {
    return { reloader, outcome: await reloader.start() };
  } catch (error) {
    await reloader.close();
    throw error;
  }
}
