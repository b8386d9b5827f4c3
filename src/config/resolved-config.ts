/**
 * What resolving gives (see resolve-config.ts): one server ready for the host (`ResolvedServer`),
 * and a whole config (`ResolvedConfig`: the servers that resolved, the errors of those that did
 * not, the host-wide options), holding the secrets its servers registered until it is disposed.
 */
import type { McpHostError } from '../errors/mcp-host-error.js';
import type { HostServerDefinition } from '../host/server-definition.js';
import type { McpHostOptions } from '../host/host-options.js';
import type { Disposable } from '../internal/disposable.js';
import type { Root } from '../protocol/types.js';
import type { RestartOptions } from '../host/slot/restart-policy.js';
import type { ViewOptions } from '../host/views/view-access.js';
import type { ConfigDiagnostic, McpConfig, OAuthConfig, ViewConfig } from './model.js';
import { maskConfig, type MaskOptions } from './expand/secrets.js';
import { resolveRoots } from './resolve-roots.js';

/** A server ready for the host: what `resolveServer` gives (see resolve-config.ts). */
export interface ResolvedServer {
  definition: HostServerDefinition;
  /** The registered secrets of this server: dispose them when the server is gone. */
  secrets: readonly Disposable[];
  /** Warnings found while resolving (secrets in argv, settings the host does not apply). */
  diagnostics: readonly ConfigDiagnostic[];
  /** The expanded OAuth settings, for the auth layer (not enumerable: never inspected). */
  oauth: OAuthConfig | undefined;
  /** Its own restart policy (also in `definition.restart`, over the host-wide one). */
  restart: RestartOptions | undefined;
  /**
   * SHA-256 (hex) of everything that takes effect when the server (re)connects, after expansion
   * and env file included, `enabled` excluded: equal fingerprints mean a reload need not restart
   * it. Secrets go into the hash but cannot be read from it.
   */
  fingerprint: string;
}

/** The config's views as the host takes them (`McpHostOptions.views`), without their sources. */
function hostViews(views: Readonly<Record<string, ViewConfig>>): Record<string, ViewOptions> {
  return Object.fromEntries(
    Object.entries(views).map(([name, { source: _source, ...view }]) => [name, view]),
  );
}

/** The host-wide part of a resolved config: pass it (spread) to `new McpHost(...)`. */
export type ResolvedHostOptions = Pick<
  McpHostOptions,
  'restart' | 'health' | 'maxResultBytes' | 'pins' | 'naming' | 'views' | 'roots'
> & { servers: HostServerDefinition[] };

/**
 * A config resolved for the host: the servers that resolved (in config order) and the error of
 * each server that did not, plus warnings. It holds the registered secrets of its servers:
 * dispose it once the host that runs them is closed (before, their values would no longer be
 * masked). `util.inspect`, `JSON.stringify` and `print()` show the unexpanded config masked, never
 * a value; `print({ reveal: true })` is the explicit opt-in to see it as written.
 */
export class ResolvedConfig implements Disposable {
  /** `new McpHost({ ...resolved.host, logger, stateStore })`. */
  readonly host: ResolvedHostOptions;
  /** The servers that resolved, by name. */
  readonly servers: ReadonlyMap<string, ResolvedServer>;
  /** The servers that did not, by name: CONFIG_VARIABLE_UNSET, CONFIG_INPUT_REQUIRED, … */
  readonly errors: ReadonlyMap<string, McpHostError>;
  readonly diagnostics: readonly ConfigDiagnostic[];
  readonly #config: McpConfig;
  #disposed = false;

  constructor(init: {
    config: McpConfig;
    servers: ReadonlyMap<string, ResolvedServer>;
    errors: ReadonlyMap<string, McpHostError>;
    diagnostics: readonly ConfigDiagnostic[];
    /** The config's roots resolved (default: `resolveRoots` of the config's, with its defaults). */
    roots?: readonly Root[] | undefined;
  }) {
    this.#config = init.config;
    this.servers = init.servers;
    this.errors = init.errors;
    this.diagnostics = init.diagnostics;
    const defaults = init.config.defaults ?? {};
    const roots =
      init.roots ?? (init.config.roots === undefined ? undefined : resolveRoots(init.config.roots));
    this.host = {
      servers: [...init.servers.values()].map((server) => server.definition),
      ...(defaults.restart === undefined ? {} : { restart: defaults.restart }),
      ...(defaults.health === undefined ? {} : { health: defaults.health }),
      ...(defaults.maxResultBytes === undefined ? {} : { maxResultBytes: defaults.maxResultBytes }),
      ...(defaults.pins === undefined ? {} : { pins: defaults.pins }),
      ...(defaults.naming === undefined ? {} : { naming: { ...defaults.naming } }),
      ...(init.config.views === undefined ? {} : { views: hostViews(init.config.views) }),
      ...(roots === undefined ? {} : { roots }),
    };
  }

  /** The unexpanded config, masked (or as written, with `{ reveal: true }`). */
  print(options: MaskOptions = {}): McpConfig {
    return maskConfig(this.#config, options);
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  /** Releases every registered secret (idempotent). */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const server of this.servers.values())
      for (const secret of server.secrets) secret.dispose();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  toJSON(): Record<string, unknown> {
    return {
      config: this.print(),
      servers: [...this.servers.values()].map(({ definition, fingerprint }) => ({
        name: definition.name,
        enabled: definition.enabled ?? true,
        identity: definition.identity,
        fingerprint,
      })),
      errors: [...this.errors].map(([server, error]) => ({ server, ...error.toJSON() })),
      diagnostics: this.diagnostics,
    };
  }

  // `util.inspect.custom`, reached without importing node:util (an ES import of it loads all of its
  // lazy parts); Node passes `inspect` itself to the method.
  [Symbol.for('nodejs.util.inspect.custom')](
    _depth: number,
    options: object,
    inspect: (value: unknown, options: object) => string,
  ): string {
    return `ResolvedConfig ${inspect(this.toJSON(), { ...options, customInspect: true })}`;
  }
}
