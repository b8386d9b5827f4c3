import type { TokenStore } from '../auth/token-store.js';
import type { Logger } from '../internal/logger.js';
import type { Telemetry } from '../internal/telemetry.js';
import type { Root, Tool } from '../protocol/types.js';
import type { StateStore } from '../state/state-store.js';
import type { CallPolicyOptions } from './calls/call-pipeline.js';
import { DEFAULT_MAX_RESULT_BYTES } from './calls/result-budget.js';
import type { CallerViewOptions } from './catalogue/caller-view.js';
import { DEFAULT_TOOL_NAMING, type ToolNamingOptions } from './naming/namer.js';
import type { PinPolicy } from './pins/pin-types.js';
import { DEFAULT_SERVER_OPTIONS, type HostServerDefinition } from './server-definition.js';
import { DEFAULT_HEALTH_OPTIONS, type HealthCheckOptions } from './slot/health.js';
import { DEFAULT_RESTART_OPTIONS, type RestartOptions } from './slot/restart-policy.js';
import type { ServerState, ServerStatus } from './slot/server-status.js';
import type { ViewOptions } from './views/view-access.js';

/** Everything `new McpHost(options)` takes; every field is optional (see `DEFAULT_HOST_OPTIONS`). */
export interface McpHostOptions extends CallPolicyOptions, CallerViewOptions {
  /** The servers to manage (more can be added with `addServer`). */
  servers?: readonly HostServerDefinition[];
  logger?: Logger;
  /** Where era caches and tool pins are kept between runs. */
  stateStore?: StateStore;
  /**
   * Where the OAuth tokens and client registrations of servers with `oauth` are kept. Default: a
   * `FileTokenStore` on `stateStore` (in memory without one).
   */
  tokenStore?: TokenStore;
  /**
   * Settings of every `oauth` server's login and tokens: `now`, the clock token expiry is judged
   * by (default `Date.now`), and `requestTimeoutMs`, the deadline of each OAuth request
   * (discovery, registration, token and refresh requests; default 30 s, a refresh's 10 s at most).
   */
  oauth?: { now?: () => number; requestTimeoutMs?: number };
  /** How dead or wedged servers are restarted (each server's own `restart` goes over it). */
  restart?: RestartOptions;
  /** How connected servers are checked (`ping`, which bypasses every cache). */
  health?: HealthCheckOptions;
  /**
   * How MCP tools are named: `prefix` (default `mcp`), `separator` (default `__`), a `format`
   * function, or `providerSafe: false` to keep names as the format makes them.
   */
  naming?: ToolNamingOptions;
  /**
   * Tool pinning (rug-pull defence): `trust-on-first-use` (default) pins each server's first
   * listing and quarantines a tool whose definition changes later; `strict` also holds new tools;
   * or a policy object; `false` turns it off. Pins live in `stateStore` (in memory without one).
   */
  pins?: PinPolicy | false;
  /**
   * A catalogue saved by `snapshot()`: each server's tools are offered (and callable: the call
   * waits for the connect) before the server has connected; its first listing replaces them.
   */
  snapshot?: CatalogueSnapshot;
  /**
   * Named views (`host.view('name')`): narrower toolsets for agents over the same connections,
   * each with its own servers, allow/block globs, permissions and result budget (see `ViewOptions`).
   * A view may name a server not (yet) registered: it shows nothing of it until it is.
   */
  views?: Readonly<Record<string, ViewOptions>>;
  /**
   * Host-wide roots: the folders (`file://` URIs) every server is told about when it asks for the
   * client's roots (`roots/list`, or a modern `input_required` round), unless its definition has
   * its own `client.handlers.roots`. The roots capability is advertised only when this is set.
   * `setRoots` changes them later.
   */
  roots?: readonly Root[];
  /** Bound on `close()` (default 5 s): servers still closing then are killed by their transports. */
  closeTimeoutMs?: number;
  /**
   * Given to every server's client (unless its definition's `client` has its own): each request
   * to a server is a CLIENT span, its trace context sent in the request's `_meta` (see
   * `McpClientOptions.telemetry`; `openTelemetry()` from `mcp-host/otel`). Default none.
   */
  telemetry?: Telemetry;
}

/** Every default of `McpHostOptions` (and of a server's own settings, under `server`). */
export const DEFAULT_HOST_OPTIONS = Object.freeze({
  closeTimeoutMs: 5_000,
  maxResultBytes: DEFAULT_MAX_RESULT_BYTES,
  validateArguments: true,
  pins: 'trust-on-first-use',
  naming: DEFAULT_TOOL_NAMING,
  restart: DEFAULT_RESTART_OPTIONS,
  health: DEFAULT_HEALTH_OPTIONS,
  server: DEFAULT_SERVER_OPTIONS,
} as const);

/** How a server leaves (`removeServer`) or gives way to a new definition (`replaceServer`). */
export interface DrainOptions {
  /**
   * How long its calls in flight (and queued) may take to finish before its connection is closed
   * (default 0: at once); calls still pending then fail with a typed error (`CONNECTION_CLOSED`
   * or `SERVER_UNAVAILABLE`). New calls never reach it meanwhile.
   */
  drainTimeoutMs?: number;
}

/** The tool lists of a host's servers, as plain JSON (see `McpHost.snapshot()`). */
export interface CatalogueSnapshot {
  version: 1;
  servers: Record<string, { tools: Tool[] }>;
}

/** What `McpHost.start()` found: every server's status, and which ones came up and which did not. */
export interface StartSummary {
  /** Every server's status, in registration order. */
  servers: ServerStatus[];
  /** The servers connected and answering. */
  ready: string[];
  /**
   * The servers whose connect failed, each with its state now (`restarting`: it will be tried
   * again, at `nextRetryAt`; `failed`, `needs_auth`, `crash_loop`: not until someone acts) and why.
   */
  failed: {
    server: string;
    state: ServerState;
    error: { code: string; message: string } | undefined;
    nextRetryAt?: string;
  }[];
}

/** States after which a server is not coming up by itself soon (see `StartSummary.failed`). */
const FAILED_STATES = new Set(['restarting', 'needs_auth', 'failed', 'crash_loop']);

/** The summary of a start from every server's status after it (in registration order). */
export function toStartSummary(servers: ServerStatus[]): StartSummary {
  return {
    servers,
    ready: servers.filter((s) => s.state === 'ready' || s.state === 'degraded').map((s) => s.name),
    failed: servers
      .filter((s) => FAILED_STATES.has(s.state))
      .map((s) => ({
        server: s.name,
        state: s.state,
        error: s.lastError,
        ...(s.nextRetryAt === undefined ? {} : { nextRetryAt: s.nextRetryAt }),
      })),
  };
}
