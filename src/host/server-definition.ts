import type { McpClientOptions } from '../client/client-options.js';
import type { Transport } from '../jsonrpc/transport.js';
import type { TransportDefinition } from '../transport/transport-definition.js';
import type { ToolFilterSpec } from './catalogue/tool-filters.js';
import type { ServerOAuthOptions } from './server-oauth.js';
import type { RestartOptions } from './slot/restart-policy.js';

/** One server the host manages. */
export interface HostServerDefinition {
  /**
   * The server's key: its namespace in tool names (`mcp__{name}__{tool}`), in errors, events and
   * metrics. It comes from the host's configuration, never from the server's own `serverInfo`.
   */
  name: string;
  /**
   * How to reach the server: a plain definition (`{ type: 'stdio', command, args }`, or a URL for
   * `http`, `sse`, `websocket`), from which each connect (and restart) builds a fresh transport,
   * or a function that makes one.
   */
  transport: TransportDefinition | (() => Transport | Promise<Transport>);
  /** Start disabled: registered, listed in the status, never connected until enabled. */
  enabled?: boolean;
  /** Connect on first use instead of at `start()`. */
  lazy?: boolean;
  /**
   * A stable identity of the server's definition (see `serverIdentity`): keys the era cache and
   * tool pins in the state store. Default: `name`.
   */
  identity?: string;
  /** Client settings: timeouts, input handlers, era, retries of side-effect-free requests. */
  client?: Omit<McpClientOptions, 'transport' | 'serverName' | 'identity' | 'stateStore'>;
  /**
   * Calls in flight at once to this server (default 128): enough that a busy agent keeps a fast
   * server fed in large batches (at 256 callers, 128 at a time cost the host under 2 µs of CPU a
   * call over a bare client's, where 64 cost 3 and 16 cost 6: each write and read carries that
   * many calls), few enough that one host never has more than that outstanding on a server, and
   * `maxQueue` more waiting in the host, not in the server.
   */
  maxInFlight?: number;
  /** Calls waiting behind those; one more fails at once with `QUEUE_FULL` (default 256). */
  maxQueue?: number;
  /** Static tool filter by original tool name, with `*` and `?` globs; block wins. */
  tools?: ToolFilterSpec;
  /**
   * Trust this server's tool annotations: a `tools/call` of a tool it marks `readOnlyHint` or
   * `idempotentHint` may then be retried after a connection failure. Default false: annotations
   * are hints from the server, not guarantees.
   */
  trusted?: boolean;
  /** This server's restart policy, over the host-wide `restart` (field by field). */
  restart?: RestartOptions;
  /**
   * OAuth 2.1 for an `http` or `sse` server given as a definition: an `OAuthProvider` (from
   * `mcp-host/auth`) built from these settings answers its 401s, with tokens kept in the host's
   * `tokenStore`. A server that needs a login goes to `needs_auth` with an `auth_required`
   * event; `startAuthorization` / `completeAuthorization` log it in. Without `oauth`, a 401 or 403
   * is final (`needs_auth`) and no discovery request is ever made.
   */
  oauth?: ServerOAuthOptions;
  /** How long a tool listing is reused when the server gives no hint and no list_changed (ms). */
  toolsTtlMs?: number;
}

/** The defaults of a server's own settings. */
export const DEFAULT_SERVER_OPTIONS = Object.freeze({
  maxInFlight: 128,
  maxQueue: 256,
  toolsTtlMs: 5 * 60_000,
} satisfies Partial<HostServerDefinition>);

/** The key a server's state (era cache, tool pins) is kept under. */
export function identityOf(definition: HostServerDefinition): string {
  return definition.identity ?? definition.name;
}
