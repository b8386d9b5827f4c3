/**
 * The normalised configuration model every dialect reads into and writes from. It is the
 * *unexpanded* form: strings keep their variable references in the canonical grammar below, so a
 * config can be printed back into any dialect; `resolve-config.ts` expands them (per server) into
 * what the host runs. Plain JSON data only (no functions, no class instances), so it round-trips
 * through `JSON.stringify`.
 *
 * Canonical template grammar (inside any string field that allows expansion):
 * - `${VAR}`          the environment variable VAR (error if unset)
 * - `${VAR:-default}` VAR, or `default` when VAR is unset **or empty**
 * - `${VAR-default}`  VAR, or `default` only when VAR is unset (an empty VAR counts as set)
 * - `${input:id}`     the value of input `id` (VS Code `inputs`), from an input provider
 * - `$${`             a literal `${` (escape)
 * Dialect readers translate their own grammar into this one (e.g. VS Code `${env:VAR}` → `${VAR}`)
 * and writers translate back, refusing what the target cannot express.
 */

/** The config dialects mcp-host reads and writes. */
export type ConfigDialect =
  | 'mcp-host' // mcp.yaml / mcp.json (native)
  | 'claude-desktop' // claude_desktop_config.json: { mcpServers }, stdio only
  | 'claude-code' // .mcp.json: { mcpServers }, type stdio|http|sse
  | 'vscode' // .vscode/mcp.json: { servers, inputs }, JSONC
  | 'cursor' // .cursor/mcp.json: { mcpServers }, JSONC
  | 'crewai'; // the seeds' crewAI-style config objects

/** Where a value came from, for error messages and `inspect` output. */
export interface SourceLocation {
  /** The file (absolute path), or a label such as `<inline>`. */
  file: string;
  dialect: ConfigDialect;
  /** The key path inside the file, e.g. `["mcpServers", "github", "env", "TOKEN"]`. */
  path: (string | number)[];
  /** 1-based line and column of the value, when the parser knows them. */
  line?: number;
  column?: number;
}

export type TransportConfig =
  | {
      type: 'stdio';
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd?: string;
      /** A dotenv file whose variables are added to `env` (VS Code, Cursor). */
      envFile?: string;
    }
  | {
      /** Streamable HTTP (falls back to the legacy HTTP+SSE transport by itself). */
      type: 'http';
      url: string;
      headers: Record<string, string>;
    }
  | {
      /** The legacy HTTP+SSE transport (2024-11-05), asked for explicitly. */
      type: 'sse';
      url: string;
      headers: Record<string, string>;
    }
  | {
      type: 'websocket';
      url: string;
      headers: Record<string, string>;
    };

/** OAuth 2.1 settings of a remote server (used by the auth layer). */
export interface OAuthConfig {
  clientId?: string;
  /** A secret: masked everywhere. */
  clientSecret?: string;
  scopes?: string[];
  redirectUri?: string;
  /**
   * The authorization server's issuer URL: used when the server's resource metadata lists several
   * or none (or there is none); a server whose metadata lists others but not this one is refused.
   */
  authorizationServer?: string;
  /** `authorization_code` (default: a person logs in) or `client_credentials` (machine to machine). */
  grant?: 'authorization_code' | 'client_credentials';
  /** A Client ID Metadata Document URL (https), used as the client id where supported. */
  clientMetadataUrl?: string;
  /** A PEM private key file of the configured client (`private_key_jwt`), by reference. */
  privateKeyFile?: string;
  /** The JWS algorithm of `privateKeyFile` (default from the key). */
  privateKeyAlg?: string;
}

/**
 * The single-text `oauth` fields, each a template (`${VAR}`): expanded, and masked when shown,
 * alike (`scopes` is a list, handled beside them).
 */
export const OAUTH_TEXT_FIELDS = [
  'clientId',
  'clientSecret',
  'redirectUri',
  'authorizationServer',
  'clientMetadataUrl',
  'privateKeyFile',
] as const satisfies readonly (keyof OAuthConfig)[];

export interface ToolFilterConfig {
  allow?: string[];
  block?: string[];
}

export interface TimeoutsConfig {
  connectMs?: number;
  requestMs?: number;
  discoverMs?: number;
}

export interface RetryConfig {
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export interface RestartConfig {
  enabled?: boolean;
  baseDelayMs?: number;
  maxDelayMs?: number;
  crashLimit?: number;
  crashWindowMs?: number;
}

/**
 * A server's settings besides its transport, `enabled` and `secretKeys`: every format that has
 * them reads and writes them as they are (the native reader and writer, the dialects' writers).
 */
export const SERVER_SETTINGS = [
  'lazy',
  'timeouts',
  'retry',
  'toolsTtlMs',
  'tools',
  'oauth',
  'restart',
  'trusted',
  'maxInFlight',
  'maxQueue',
] as const satisfies readonly (keyof ServerConfig)[];

/** One server, normalised. Optional fields left out mean "the host-wide default". */
export interface ServerConfig {
  /** The key (the namespace of its tools). */
  name: string;
  transport: TransportConfig;
  enabled: boolean;
  lazy?: boolean;
  timeouts?: TimeoutsConfig;
  /** Client retries of side-effect-free requests over HTTP; `false` turns them off. */
  retry?: RetryConfig | false;
  toolsTtlMs?: number;
  tools?: ToolFilterConfig;
  oauth?: OAuthConfig;
  restart?: RestartConfig;
  trusted?: boolean;
  maxInFlight?: number;
  maxQueue?: number;
  /** Keys of `env` / `headers` whose values are secrets beyond the automatic ones. */
  secretKeys?: string[];
  /** Keys this dialect had that the model does not know: kept for writing back, with a warning. */
  extra?: Record<string, unknown>;
  source: SourceLocation;
}

/** Host-wide settings (native format only; other dialects have none). */
export interface HostDefaultsConfig {
  timeouts?: TimeoutsConfig;
  retry?: RetryConfig | false;
  toolsTtlMs?: number;
  restart?: RestartConfig;
  health?: { intervalMs?: number; timeoutMs?: number; failuresBeforeRestart?: number };
  naming?: { prefix?: string; separator?: string; providerSafe?: boolean; passThrough?: boolean };
  maxResultBytes?: number;
  pins?: 'trust-on-first-use' | 'strict' | false;
}

/**
 * A named view (`views:` in mcp.yaml, native format only): a narrower toolset over the same
 * servers, for one agent (see `McpHost.view`). Globs as in the host's permissions: with `/` over
 * `server/tool`, else over the exposed name.
 */
export interface ViewConfig {
  /** Only these servers (each must be defined by some config file). Default: every server. */
  servers?: string[];
  allow?: string[];
  block?: string[];
  /** Per-agent permissions inside the view, after the host's. */
  permissions?: Record<string, ToolFilterConfig>;
  /** The view's result budget, in bytes, when smaller than the host's. */
  maxResultBytes?: number;
  /** Where the view was written (its key under `views:`). */
  source: SourceLocation;
}

/**
 * A root (`roots:` in mcp.yaml, native format only): a folder the host tells servers they may
 * work in (`McpHostOptions.roots`), as written. Exactly one of `uri` and `path`.
 */
export interface RootConfig {
  /** A `file://` URI. */
  uri?: string;
  /** A path: relative to the folder of the file that wrote it; a leading `~` is the home directory. */
  path?: string;
  /** A name servers may show. */
  name?: string;
  /** Where it was written (`roots[i]`). */
  source: SourceLocation;
}

/**
 * The gateway's settings (`gateway:` in mcp.yaml, native format only): how `mcp-host gateway
 * serve` listens over HTTP and what it offers there, as written (see `resolveGatewaySettings`
 * for the settings with their defaults). Strings are taken as written (no `${VAR}` expansion).
 */
export interface GatewayConfig {
  /** The address to listen on (default 127.0.0.1). */
  host?: string;
  /** The TCP port; naming one makes HTTP the gateway's transport (0: a free port). */
  port?: number;
  /** The bearer token's file: relative to the folder of the file that wrote it; `~` is home. */
  tokenFile?: string;
  /** Bearer-token authentication (default on); `false` only on a loopback `host`. */
  auth?: boolean;
  /** The views (names under `views:`) offered over HTTP at `/mcp/<view>` (default: every one). */
  views?: string[];
  /** `Origin`s accepted besides the listener's own (`http://localhost:3000`). */
  allowedOrigins?: string[];
  /** `Host` header values accepted besides loopback names with the port (`gateway.internal:8080`). */
  allowedHosts?: string[];
  /** Concurrent MCP sessions at most. */
  maxSessions?: number;
  /** The largest request body, in bytes. */
  maxBodyBytes?: number;
  /** An idle session ends after this many milliseconds. */
  sessionIdleMs?: number;
  /** Named clients (principals) by name: each one's token file and, optionally, its view. */
  clients?: Record<string, GatewayClientConfig>;
  /** The servers (remote, with `oauth`) each named client reaches with its own login. */
  perClient?: string[];
  /** Where it was written (the `gateway` key). */
  source: SourceLocation;
}

/** One named client of the gateway (`gateway.clients.<name>`). */
export interface GatewayClientConfig {
  /** The file holding its bearer token: relative to the folder of the file that wrote it; `~` is home. */
  tokenFile: string;
  /** The view (a name under `views:`) it is served wherever it asks. */
  view?: string;
}

/**
 * The gRPC management API's settings (`api:` in mcp.yaml, native format only): where
 * `mcp-host api serve` listens and what it allows, as written (see `resolveApiSettings` for the
 * settings with their defaults; docs/grpc.md). Strings are taken as written.
 */
export interface ApiConfig {
  /** A Unix socket to listen on (made mode 0600): relative to the file's folder; `~` is home. */
  socket?: string;
  /** A loopback TCP port to listen on, with the bearer token (0: a free port). */
  port?: number;
  /** The port's loopback address: 127.0.0.1 (default), ::1 or localhost. */
  host?: string;
  /** The bearer token's file (made 0600 when missing): relative to the file's folder; `~` is home. */
  tokenFile?: string;
  /** Let RegisterMcpServer add stdio servers: that runs commands on this machine (default false). */
  allowStdioRegistration?: boolean;
  /** Serve gRPC server reflection (grpcurl can list and describe the API), behind the token (default false). */
  reflection?: boolean;
  /** Where it was written (the `api` key). */
  source: SourceLocation;
}

/**
 * Where mcp-host keeps its state (`state:` in mcp.yaml, native format only): tool pins and
 * approvals, the protocol era of each server, OAuth tokens and registrations; at most one store.
 * Without one: OAuth tokens in the default state file, pins and eras in memory (each command
 * trusts its first listing). See `resolveStateSettings`.
 */
export interface StateConfig {
  /** A state file for all of it: relative to the folder of the file that wrote it; `~` is home. */
  file?: string;
  /** A shared PostgreSQL store, for many hosts or gateway replicas (docs/state.md). */
  postgres?: PostgresStateConfig;
  /** Where it was written (the `state` key). */
  source: SourceLocation;
}

/** `state.postgres`: the PostgreSQL store's connection. */
export interface PostgresStateConfig {
  /**
   * The connection string (`postgres://user:password@host:5432/db`), a template: `${VAR}`
   * expanded from the environment. A secret: masked everywhere, never in an error.
   */
  url: string;
  /** The schema mcp-host keeps its tables in (default `mcp_host`). */
  schema?: string;
}

/** A VS Code style input (`${input:id}`): what to ask for. */
export interface InputConfig {
  id: string;
  type: 'promptString' | 'pickString';
  description?: string;
  password?: boolean;
  default?: string;
  options?: string[];
}

/** A whole configuration: one file, or several merged. */
export interface McpConfig {
  servers: ServerConfig[];
  defaults?: HostDefaultsConfig;
  inputs?: InputConfig[];
  /** Named views, by name (a later file's view replaces an earlier one of the same name). */
  views?: Record<string, ViewConfig>;
  /** The host's roots (several files: concatenated in order, duplicates dropped). */
  roots?: RootConfig[];
  /** The gateway's settings (several files: the last file's `gateway:` wins whole). */
  gateway?: GatewayConfig;
  /** The gRPC API's settings (several files: the last file's `api:` wins whole). */
  api?: ApiConfig;
  /** Where state is kept (several files: the last file's `state:` wins whole). */
  state?: StateConfig;
  /** The files it was read from, in merge order. */
  files: { file: string; dialect: ConfigDialect }[];
  /** Top-level keys the model does not know, per file (kept, with a warning). */
  extra?: Record<string, unknown>;
}

/** A problem found while reading a config: an error stops that server (or file); a warning does not. */
export interface ConfigDiagnostic {
  severity: 'error' | 'warning';
  /** e.g. `unknown-key`, `invalid-type`, `missing-key`, `unset-variable`, `input-required`. */
  kind: string;
  message: string;
  /** The server it concerns, when it concerns one. */
  server?: string;
  location?: SourceLocation;
  /** For misspelt keys: the closest known key. */
  suggestion?: string;
}
