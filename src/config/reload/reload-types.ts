/** The options and events of hot reload (see reload.ts). */
import type { Logger } from '../../internal/logger.js';
import type { InputProvider, InputResolver } from '../expand/input-providers.js';
import type { ConfigDiagnostic, McpConfig, ServerConfig } from '../model.js';
import type { ResolvedServer } from '../resolved-config.js';

export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

/** What a loader gives: the merged config (undefined when nothing usable was read) and problems. */
export interface LoadedConfig {
  config: McpConfig | undefined;
  diagnostics: readonly ConfigDiagnostic[];
}

/**
 * What a resolver gives for one server: a `ResolvedServer` (what `resolveServer` gives), or as
 * much of one as a custom resolver has (the definition at least), or why it cannot be resolved.
 * The reloader keeps a running server's `secrets` until it is removed or replaced (and releases
 * them at once when this resolution is not used). Without a `fingerprint` it digests the config
 * itself and `effective`: the expanded values the definition was built from (plain JSON: command,
 * args, env, url, headers after expansion, ...), so that a changed variable or env file restarts
 * the server; only a digest of them is kept.
 */
export type ServerResolution =
  | (Pick<ResolvedServer, 'definition'> &
      Partial<Pick<ResolvedServer, 'fingerprint' | 'diagnostics' | 'secrets'>> & {
        effective?: unknown;
      })
  | { error: unknown };

export interface ConfigReloaderOptions {
  /** The config files, in merge order (they need not exist yet: creating one triggers a reload). */
  files: readonly string[];
  /**
   * Reads and merges the files. Default: `tryLoadConfig({ files, cwd, env })` (every dialect,
   * detected by name and shape).
   */
  load?(files: readonly string[]): Promise<LoadedConfig> | LoadedConfig;
  /**
   * Turns one server's config into a host definition (expansion, inputs, defaults). Default:
   * `resolveServer(server, { env, inputs, defaults: config.defaults, logger })`.
   */
  resolve?(server: ServerConfig, config: McpConfig): Promise<ServerResolution> | ServerResolution;
  /** For the default loader: where relative paths are (default `process.cwd()`). */
  cwd?: string;
  /** For the default loader and resolver: the environment (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * For the default resolver: gives `${input:id}` values. A provider is wrapped in one
   * `InputResolver` for the reloader's life, so an input is asked once, not at every reload.
   */
  inputs?: InputResolver | InputProvider;
  /** Quiet time after the last file event before reloading (default 100 ms). */
  debounceMs?: number;
  /**
   * How long a changed or removed server may take to finish its calls in flight before it is
   * closed and what is still pending fails (default 10 s).
   */
  drainTimeoutMs?: number;
  /** Watch the files (default true); with false, only `reload()` reloads. */
  watch?: boolean;
  logger?: Logger;
}

/** One applied reload: server names by what happened to them. */
export interface ReloadEvent {
  trigger: ReloadTrigger;
  added: string[];
  removed: string[];
  /** Restarted with their new config (the old connection drained, then closed). */
  changed: string[];
  /** Left running as they were (same connection, same process). */
  unchanged: string[];
  /** Whose new config could not be applied: a running one keeps its old config. */
  failed: string[];
  /** Everything the loader and resolver reported (warnings too), and why each failure failed. */
  diagnostics: ConfigDiagnostic[];
}

/** A refused reload: the running config is kept. */
export interface ReloadErrorEvent {
  trigger: ReloadTrigger;
  /** One line: the first error. */
  message: string;
  /** Every diagnostic of the attempt (errors with file, line and column when known). */
  diagnostics: ConfigDiagnostic[];
}

export type ReloadTrigger = 'start' | 'watch' | 'manual';

export type ReloadOutcome = ({ ok: true } & ReloadEvent) | ({ ok: false } & ReloadErrorEvent);
