/**
 * What a command runs on: its global options, the output layer, the config (explicit `--config`
 * files, else the discovered ones, else the embedded default) and an `McpHost` over it, closed
 * gracefully at the end or on SIGINT/SIGTERM. The host's modules are imported by `openHost`, so a
 * command that only reads the config does not load them; the state store the config's `state:`
 * names (`openStateStore`) is the host's, closed after it.
 */
import { formatDiagnostic } from '../config/diagnostics.js';
import { discoverConfigFiles } from '../config/discover.js';
import {
  chainInputProviders,
  envInputProvider,
  ttyInputProvider,
  type InputProvider,
} from '../config/expand/input-providers.js';
import { loadConfigText, tryLoadConfig } from '../config/load.js';
import type { ConfigDiagnostic, McpConfig, ServerConfig, ViewConfig } from '../config/model.js';
import { resolveConfig } from '../config/resolve-config.js';
import type { ResolvedConfig } from '../config/resolved-config.js';
import { isErrorCode } from '../errors/codes.js';
import { MAX_ERROR_MESSAGE_CHARS } from '../errors/mcp-host-error.js';
import type { ServerInputHandlers } from '../client/client-options.js';
import type { McpHost } from '../host/mcp-host.js';
import type { Logger } from '../internal/logger.js';
import type { Telemetry } from '../internal/telemetry.js';
import type { FileTokenStore } from '../auth/file-token-store.js';
import type { HostServerDefinition } from '../host/server-definition.js';
import type { ServerStatus } from '../host/slot/server-status.js';
import { defaultStateDir, defaultStatePath } from '../state/default-state-dir.js';
import { createEmbeddedConfig, EMBEDDED_CONFIG_LABEL } from './default-config.js';
import { resolveStateSettings } from '../config/state-settings.js';
import type { StateStore } from '../state/state-store.js';
import { startEarly } from './early-start.js';
import { CliError, ExitCode, exitCodeOf, worstExitCode } from './exit-codes.js';
import type { GlobalOptions } from './global-options.js';
import { Output } from './output.js';

export interface LoadedCliConfig {
  config: McpConfig;
  diagnostics: ConfigDiagnostic[];
  /** True when no config file was found and the demo config is used. */
  embedded: boolean;
}

export interface OpenHostOptions {
  /** Start only these servers (default all); an unknown name is a usage error. */
  servers?: readonly string[];
  /**
   * A server of `servers` its config kept from starting (an unset variable, an input nobody gave):
   * fails the command (default), or is left out to be reported (`reportUnresolved`), as when
   * every server is opened.
   */
  unresolved?: 'fail' | 'report';
  /** Connect them (default true); false gives a host whose servers are idle. */
  start?: boolean;
  /** The host's result budget, over the config's `defaults.maxResultBytes` (0: no limit). */
  maxResultBytes?: number;
  /** Servers the config reader left out fail the command (default), or are left out quietly. */
  serverErrors?: 'fail' | 'report';
  /**
   * Restart crashed servers with the config's restart policy and backoff, as a host does (for
   * `watch`, which runs until stopped). Default false: a one-shot command reports a server that is
   * down and does not wait for restarts.
   */
  supervise?: boolean;
  /**
   * The state file of the token store (default `defaultStatePath()`): a gateway client's own
   * with `auth login --as` (`gatewayClientStatePath`).
   */
  tokenStatePath?: string;
  /** The redirect URI of one server's OAuth login (the loopback listener of `auth login`). */
  redirectUri?: { server: string; uri: string };
  /** Answers to what servers ask (sampling, elicitation), under each server's own. */
  handlers?: ServerInputHandlers;
  /** The host's logger (default none: a command reports what it needs itself). */
  logger?: Logger;
  /** Spans and metrics of the host's clients (`gateway serve --otel`). */
  telemetry?: Telemetry;
}

export interface OpenedHost {
  host: McpHost;
  resolved: ResolvedConfig;
  loaded: LoadedCliConfig;
  /** The status of each started server once connected (or the timeout passed). */
  statuses: ServerStatus[];
  /**
   * The host's token store when a server has `oauth`: a `FileTokenStore` on the configured state
   * store (`state:`), else on the default state file (so a login persists for later commands),
   * closed with the run.
   */
  tokenStore: FileTokenStore | undefined;
  /** The configured state store (`state:`), the host's `stateStore`; undefined without one. */
  stateStore: OpenedStateStore | undefined;
}

/** One run of one command. */
export class CliRuntime {
  readonly options: GlobalOptions;
  readonly output: Output;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly #cleanups: Array<() => Promise<void>> = [];
  #loaded: Promise<LoadedCliConfig> | undefined;
  #stateStore: Promise<OpenedStateStore | undefined> | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: GlobalOptions, env = process.env, cwd = process.cwd()) {
    this.options = options;
    this.env = env;
    this.cwd = cwd;
    this.output = new Output({
      format: options.format,
      color: options.color,
      verbose: options.verbose,
      quiet: options.quiet,
    });
  }

  /**
   * The merged config. Any error in it is a usage error (exit 1) listing every error diagnostic:
   * one in the file, and (unless `serverErrors: 'report'`, for a command that names each server
   * left out itself) one that left a server out, so that no command runs on part of a config
   * without a word about the rest.
   */
  async loadConfig(options: { serverErrors?: 'fail' | 'report' } = {}): Promise<LoadedCliConfig> {
    this.#loaded ??= this.#load();
    const loaded = await this.#loaded;
    if (options.serverErrors !== 'report') {
      const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
      if (errors.length > 0)
        throw new CliError('CONFIG_INVALID', linesThatFit(errors.map(formatDiagnostic)));
    }
    return loaded;
  }

  async #load(): Promise<LoadedCliConfig> {
    const explicit = this.options.config;
    const files = explicit.length > 0 ? explicit : await discoverConfigFiles(this.cwd, this.env);
    if (files.length === 0) {
      const embedded = await createEmbeddedConfig();
      this.#cleanups.push(() => embedded.cleanup());
      this.output.notice(
        'mcp-host: no config file found (mcp.yaml, mcp.json, .mcp.json or --config): using the embedded demo (everything, filesystem, memory)',
      );
      const read = await loadConfigText(embedded.text, EMBEDDED_CONFIG_LABEL, {
        dialect: 'mcp-host',
      });
      return { config: read.config, diagnostics: read.diagnostics, embedded: true };
    }
    const { config, diagnostics } = await tryLoadConfig({ files, cwd: this.cwd, env: this.env });
    for (const diagnostic of diagnostics)
      if (diagnostic.severity === 'warning') this.output.debug(formatDiagnostic(diagnostic));
    if (config === undefined) {
      const errors = diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic);
      throw new CliError('CONFIG_INVALID', linesThatFit(errors));
    }
    return { config, diagnostics, embedded: false };
  }

  /** A configured server by name, or a usage error listing the names there are. */
  async server(
    name: string,
    options: { serverErrors?: 'fail' | 'report' } = {},
  ): Promise<ServerConfig> {
    const { config } = await this.loadConfig(options);
    const server = config.servers.find((s) => s.name === name);
    if (server === undefined)
      throw new CliError(
        'INVALID_ARGUMENT',
        `not in the config (configured: ${config.servers.map((s) => s.name).join(', ') || 'none'})`,
        { serverName: name },
      );
    return server;
  }

  /** A view of the config (`views:`), or INVALID_ARGUMENT naming it and the views there are. */
  async view(name: string): Promise<ViewConfig> {
    const { config } = await this.loadConfig();
    const views = config.views ?? {};
    if (!Object.hasOwn(views, name))
      throw new CliError(
        'INVALID_ARGUMENT',
        `no view is named '${name}' (configured: ${Object.keys(views).join(', ') || 'none'})`,
        { details: { view: name } },
      );
    return views[name]!;
  }

  /**
   * The state store the config's `state:` section names (a state file, or PostgreSQL), opened once
   * per run and closed when it closes (after the host); undefined when it names none (OAuth tokens
   * then live in the default state file, pins and eras in memory).
   */
  stateStore(): Promise<OpenedStateStore | undefined> {
    this.#stateStore ??= (async () => {
      const { config } = await this.loadConfig({ serverErrors: 'report' });
      const opened = await openStateStore(config, this.env);
      if (opened !== undefined) this.#cleanups.push(() => opened.close());
      return opened;
    })();
    return this.#stateStore;
  }

  /** Where `${input:…}` values come from: `MCP_HOST_INPUTS`, then a prompt on a terminal. */
  inputs(): InputProvider {
    return chainInputProviders(envInputProvider({ env: this.env }), ttyInputProvider());
  }

  /**
   * Resolves the config and opens a host over it, connecting the servers (or the ones named)
   * with a progress line on a TTY, each within `--timeout`. A server named here that could not
   * be resolved (unset variable, input required) fails the command with its error (unless
   * `unresolved: 'report'`).
   */
  async openHost(options: OpenHostOptions = {}): Promise<OpenedHost> {
    // The stdio transport's module loads while the config is read: spawning waits on neither.
    if (options.start !== false)
      void import('../transport/stdio/stdio-transport.js').catch(() => {});
    const checks = options.serverErrors === undefined ? {} : { serverErrors: options.serverErrors };
    const loaded = await this.loadConfig(checks);
    for (const name of options.servers ?? []) await this.server(name, checks);
    const wanted = options.servers === undefined ? undefined : new Set(options.servers);
    const config: McpConfig =
      wanted === undefined
        ? loaded.config
        : { ...loaded.config, servers: loaded.config.servers.filter((s) => wanted.has(s.name)) };
    // A relative `cwd` or `envFile` is resolved against its config file's directory (the
    // resolver's default), not the shell's.
    const resolved = await resolveConfig(config, {
      env: this.env,
      inputs: this.inputs(),
    });
    this.#cleanups.push(() => Promise.resolve(resolved.dispose()));
    for (const diagnostic of resolved.diagnostics)
      if (diagnostic.severity === 'warning') this.output.debug(formatDiagnostic(diagnostic));
    if (wanted !== undefined && options.unresolved !== 'report')
      for (const [, error] of resolved.errors) throw error;
    const timeoutMs = this.options.timeoutMs;
    let servers: HostServerDefinition[] = resolved.host.servers.map((definition) => ({
      ...definition,
      // Connected by #start, a few at a time (--concurrency), not all at once by host.start().
      lazy: true,
      ...(options.supervise === true ? {} : { restart: { ...definition.restart, enabled: false } }),
      client: {
        connectTimeoutMs: timeoutMs,
        requestTimeoutMs: timeoutMs,
        ...definition.client,
        ...(options.handlers === undefined
          ? {}
          : { handlers: { ...options.handlers, ...definition.client?.handlers } }),
      },
      ...(definition.oauth !== undefined && options.redirectUri?.server === definition.name
        ? { oauth: { ...definition.oauth, redirectUri: options.redirectUri.uri } }
        : {}),
    }));
    // Pins, eras and tokens in the configured store, shared by every process that names it.
    const stateStore = await this.stateStore();
    // OAuth servers keep their tokens in the state store (the state file without one), shared by
    // every later command; a gateway client's own logins (`tokenStatePath`) in its own file.
    let tokenStore: FileTokenStore | undefined;
    if (servers.some((definition) => definition.oauth !== undefined)) {
      const { FileTokenStore } = await import('../auth/file-token-store.js');
      const store =
        stateStore !== undefined && options.tokenStatePath === undefined
          ? new FileTokenStore({ stateStore: stateStore.store })
          : new FileTokenStore({ path: options.tokenStatePath ?? defaultStatePath(this.env) });
      this.#cleanups.push(() => store.close());
      tokenStore = store;
    }
    if (options.start !== false) {
      // The first servers start while the host's modules load (see early-start.ts).
      const early = startEarly(servers, this.options.concurrency);
      this.#cleanups.push(() => early.close());
      servers = early.servers;
    }
    const { McpHost } = await import('../host/mcp-host.js');
    const host = new McpHost({
      ...resolved.host,
      // A one-shot command reports a server that is down; it does not wait for restarts.
      ...(options.supervise === true
        ? {}
        : { restart: { ...resolved.host.restart, enabled: false } }),
      servers,
      ...(stateStore === undefined ? {} : { stateStore: stateStore.store }),
      ...(tokenStore === undefined ? {} : { tokenStore }),
      callTimeoutMs: timeoutMs,
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
      ...(options.maxResultBytes === undefined ? {} : { maxResultBytes: options.maxResultBytes }),
    });
    this.#cleanups.push(() => host.close());
    const statuses = options.start === false ? host.status() : await this.#start(host);
    // Interrupted (SIGINT/SIGTERM) while connecting: the servers are closing, print nothing more.
    if (this.#closing !== undefined) throw new CliError('ABORTED', 'interrupted');
    return { host, resolved, loaded, statuses, tokenStore, stateStore };
  }

  async #start(host: McpHost): Promise<ServerStatus[]> {
    const pending = new Set(host.status().map((s) => s.name));
    const total = pending.size;
    const show = () =>
      this.output.progress(
        `connecting ${total - pending.size}/${total} servers: ${[...pending].join(', ')}`,
      );
    const listener = host.onServerStatus((status) => {
      if (status.state !== 'connecting' && status.state !== 'idle') pending.delete(status.name);
      if (pending.size > 0) show();
    });
    if (total > 0) show();
    try {
      // Each connect ends by its own deadline (`connectTimeoutMs`, the client's): a server that
      // never answers is `failed` with REQUEST_TIMEOUT here as in `watch` and `restart`, never
      // left `connecting` by a deadline of the command's own that fires first.
      await connectAll(host, this.options.concurrency);
    } finally {
      listener.dispose();
      this.output.clearProgress();
    }
    return host.status();
  }

  /**
   * Names each enabled server of `opened` that its config kept from starting (an unset variable,
   * an input nobody gave, an unreadable env file), one error line each, and returns the exit code
   * that makes (the worst one's, `worstExitCode`: 1, or 3 for an input), or 0 when there is none.
   */
  reportUnresolved(opened: OpenedHost): ExitCode {
    const codes: ExitCode[] = [];
    for (const server of opened.loaded.config.servers) {
      const error = opened.resolved.errors.get(server.name);
      if (error === undefined || !server.enabled) continue;
      this.output.error(error);
      codes.push(exitCodeOf(error));
    }
    return worstExitCode(codes);
  }

  /** Runs `cleanup` when the run closes (first in, last out), on success, failure or a signal. */
  onClose(cleanup: () => Promise<void>): void {
    this.#cleanups.push(cleanup);
  }

  /** The state directory (`MCP_HOST_STATE_DIR`, else the platform's; docs/state.md). */
  stateDir(): string {
    return defaultStateDir(this.env);
  }

  /** True once the run is closing (finished, or interrupted by SIGINT/SIGTERM). */
  get closing(): boolean {
    return this.#closing !== undefined;
  }

  /** Closes every host and removes the demo's scratch files (idempotent). */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      for (const cleanup of this.#cleanups.splice(0).reverse()) {
        try {
          await cleanup();
        } catch (error) {
          this.output.debug(`cleanup failed: ${String(error)}`);
        }
      }
    })();
    return this.#closing;
  }
}

/** Connects every enabled server, `concurrency` at a time; resolves when each has settled. */
async function connectAll(host: McpHost, concurrency: number): Promise<void> {
  const queue = host
    .status()
    .filter((status) => status.state !== 'disabled')
    .map((status) => status.name);
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      try {
        await host.connectServer(name);
      } catch {
        // Its status says why (and a closed host stops the rest).
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
}

/**
 * The error of a server that did not come up (exit 4, or 3 when it needs auth), or undefined if it
 * is up: the code of its last error, its state and that error's message (`server 'x': failed
 * (SPAWN_FAILED: ...)`).
 */
export function serverDownError(status: ServerStatus): CliError | undefined {
  if (status.state === 'ready' || status.state === 'degraded') return undefined;
  const last = status.lastError;
  const state =
    last === undefined
      ? `still ${status.state}`
      : `${status.state} (${last.code}: ${last.message})`;
  return new CliError(
    last !== undefined && isErrorCode(last.code) ? last.code : 'SERVER_UNAVAILABLE',
    status.state === 'needs_auth' && (last === undefined || last.code.startsWith('AUTH_'))
      ? `${state}; run \`mcp-host auth login ${status.name}\` to log in`
      : state,
    {
      exitCode: status.state === 'needs_auth' ? ExitCode.authRequired : ExitCode.unreachable,
      serverName: status.name,
    },
  );
}

/** An opened store, with what closes it (the store, then its secrets' registration). */
export interface OpenedStateStore {
  store: StateStore;
  /** `state file '<path>'` or the PostgreSQL store's `where`, for messages (no secret). */
  where: string;
  close(): Promise<void>;
}

/**
 * Opens the store `config.state` names (a state file, or PostgreSQL: its module, and `pg`, are
 * loaded only then), or resolves to undefined when it names none (OAuth tokens then live in the
 * default state file, pins and eras in memory). Fails as
 * `resolveStateSettings` does (a config error naming file and key), and as the store's `open`
 * does (`STATE_IO_FAILED` when the database cannot be reached; never with the password).
 */
export async function openStateStore(
  config: Pick<McpConfig, 'state'>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<OpenedStateStore | undefined> {
  const settings = resolveStateSettings(config, { env });
  switch (settings.store) {
    case 'default':
      return undefined;
    case 'file': {
      const { FileStateStore } = await import('../state/file-state-store.js');
      const store = new FileStateStore({ path: settings.path });
      return { store, where: `state file '${settings.path}'`, close: () => store.close() };
    }
    case 'postgres': {
      // When opening fails, the secrets stay registered: the error is printed after this returns.
      const { PostgresStateStore } = await import('../postgres/postgres-state-store.js');
      const store = await PostgresStateStore.open({
        connectionString: settings.connectionString,
        ...(settings.schema === undefined ? {} : { schema: settings.schema }),
      });
      return {
        store,
        where: store.where,
        close: async () => {
          try {
            await store.close();
          } finally {
            settings.secrets.dispose();
          }
        },
      };
    }
  }
}

/**
 * Lines, one under the other, as many as an error message holds (it is bounded), then how many
 * are left out.
 */
function linesThatFit(lines: readonly string[]): string {
  const room = MAX_ERROR_MESSAGE_CHARS - 80;
  let text = '';
  let shown = 0;
  for (const line of lines) {
    const next = shown === 0 ? line : `${text}\n${line}`;
    if (shown > 0 && next.length > room) break;
    text = next;
    shown++;
  }
  const more = lines.length - shown;
  return more === 0
    ? text
    : `${text}\n… and ${more} more (mcp-host config validate lists them all)`;
}
