import type { Tool } from '../protocol/types.js';
import type { SchemaValidator } from '../schema/schema-validator.js';
import type { AuditSink } from './audit.js';
import type { HostOptions } from './host-options.js';
import type { PinPolicy } from './pin-types.js';
import type { RestartOptions } from './restart-policy.js';
import type { HealthCheckOptions } from './slot-supervision.js';
import type { ToolNamingOptions } from './namer.js';

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

/** The host's whole tool list changed: what was added and removed, by exposed name. */
export interface ToolsChangedEvent {
  server: string | undefined;
  added: string[];
  removed: string[];
  changed: string[];
}

export interface McpHostOptions extends HostOptions {
  restart?: RestartOptions;
  health?: HealthCheckOptions;
  /** Check arguments against the tool's `inputSchema` before sending (default true). */
  validateArguments?: boolean;
  schemaValidator?: SchemaValidator;
  /**
   * How MCP tools are named: `prefix` (default `mcp`), `separator` (default `__`), a `format`
   * function, or `providerSafe: false` to keep names as the format makes them (see ToolNames).
   */
  naming?: ToolNamingOptions;
  /**
   * Tool pinning (rug-pull defence): `trust-on-first-use` (default) pins each server's first
   * listing and quarantines a tool whose definition changes later; `strict` also holds new tools;
   * or a policy object; `false` turns it off. Pins live in `stateStore` (in memory without one).
   */
  pins?: PinPolicy | false;
  /**
   * Per-agent tool permissions (`context.agent`): allow and block globs over exposed names, or
   * over `server/tool` for a glob containing `/`; block wins; the key `*` applies to agents not
   * listed and to callers without one. Applied when listing and when calling, like `filter`.
   */
  /**
   * A catalogue saved by `snapshot()`: each server's tools are offered (and callable: the call
   * waits for the connect) before the server has connected; its first listing replaces them.
   */
  snapshot?: CatalogueSnapshot;
  permissions?: Readonly<Record<string, { allow?: readonly string[]; block?: readonly string[] }>>;
  /** Receives one record per call (time, caller, server, tool, argument digest, outcome, duration). */
  audit?: AuditSink;
  /** Put the (redacted) argument values in audit records too (default false: a digest only). */
  auditArguments?: boolean;
}
