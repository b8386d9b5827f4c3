/**
 * The gateway's settings with their defaults: what the config's `gateway:` section (model.ts,
 * `GatewayConfig`) says, over the defaults, with command-line flags over both, checked again
 * (a config built in code never went through the reader) and frozen. `mcp-host gateway serve`
 * hands them to the gateway; `mcp-host config print --gateway` reads where the gateway listens.
 */
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve as resolvePath } from 'node:path';
import { isLoopbackHost } from '../auth/egress-policy.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { defaultStateDir } from '../state/default-state-dir.js';
import { closestKey, ConfigError } from './diagnostics.js';
import type { ConfigDiagnostic, McpConfig } from './model.js';

/** The address the gateway listens on when neither the config nor a flag names one. */
export const DEFAULT_GATEWAY_HOST = '127.0.0.1';

/** The name of the gateway's token file in the state directory (`defaultStateDir()`). */
const TOKEN_FILE_NAME = 'gateway-token';

/**
 * The gateway's settings, resolved (`resolveGatewaySettings`). A bound left `undefined` takes the
 * gateway's own default.
 */
export interface GatewaySettings {
  /** `http` when a port is named (config or flag), else `stdio`. */
  readonly transport: 'stdio' | 'http';
  /** The address to listen on (default 127.0.0.1). */
  readonly host: string;
  /** The TCP port (0: a free one); undefined over stdio. */
  readonly port: number | undefined;
  /** Bearer-token authentication: on unless turned off, which only a loopback host allows. */
  readonly auth: boolean;
  /** The token's file, absolute (default `<state dir>/gateway-token`). */
  readonly tokenFile: string;
  /** The views offered over HTTP (at `/mcp/<view>`); undefined: every view of the config. */
  readonly views: readonly string[] | undefined;
  /** `Origin`s accepted besides the listener's own. */
  readonly allowedOrigins: readonly string[];
  /** `Host` header values accepted besides loopback names with the port. */
  readonly allowedHosts: readonly string[];
  readonly maxSessions: number | undefined;
  readonly maxBodyBytes: number | undefined;
  readonly sessionIdleMs: number | undefined;
  /** Named clients (`gateway.clients`): names, token files (absolute) and views; never tokens. */
  readonly clients: readonly GatewayClientSettings[];
  /** The servers each named client reaches with its own login (`gateway.perClient`). */
  readonly perClient: readonly string[];
}

/** One named client of the gateway, resolved: where its token is read from at start. */
export interface GatewayClientSettings {
  readonly name: string;
  /** Its token's file, absolute (resolved as `tokenFile`). */
  readonly tokenFile: string;
  readonly view: string | undefined;
}

/** Command-line flags, over the config's values. */
export interface GatewayOverrides {
  transport?: 'stdio' | 'http';
  host?: string;
  port?: number;
  auth?: boolean;
  tokenFile?: string;
}

export interface GatewaySettingsOptions {
  /** Flags given on the command line: they win over the config. */
  overrides?: GatewayOverrides;
  /** For the default token file's folder (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** What `~` becomes (default `os.homedir()`). */
  homeDir?: string;
}

/** The default token file: `<defaultStateDir()>/gateway-token`. */
export function defaultGatewayTokenFile(
  env: Readonly<Record<string, string | undefined>> = process.env,
  homeDir: string = homedir(),
): string {
  return join(defaultStateDir(env, process.platform, homeDir), TOKEN_FILE_NAME);
}

/**
 * The gateway's settings from `config.gateway` (optional), `options.overrides` and the defaults,
 * frozen. Throws `ConfigError` (CONFIG_INVALID, naming the file and key) when the config turns
 * authentication off on a host that is not loopback or offers a view it does not define, and
 * `INVALID_ARGUMENT` when the flags do (a non-loopback `--host` with `--no-auth`).
 */
export function resolveGatewaySettings(
  config: Pick<McpConfig, 'gateway' | 'views'> & Partial<Pick<McpConfig, 'servers'>>,
  options: GatewaySettingsOptions = {},
): GatewaySettings {
  const section = config.gateway;
  const flags = options.overrides ?? {};
  const home = options.homeDir ?? homedir();
  const at = (...path: (string | number)[]) =>
    section === undefined
      ? undefined
      : { ...section.source, path: [...section.source.path, ...path] };
  const problems: ConfigDiagnostic[] = [];

  const host = flags.host ?? section?.host ?? DEFAULT_GATEWAY_HOST;
  const auth = flags.auth ?? section?.auth ?? true;
  const loopback = isLoopbackHost(
    host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host,
  );
  if (!auth && !loopback) {
    if (flags.auth === false || flags.host !== undefined)
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `authentication can be off only on a loopback host (127.0.0.1, ::1, localhost), not '${host}'`,
        { details: { host } },
      );
    problems.push({
      severity: 'error',
      kind: 'insecure-value',
      message:
        'authentication can be off only on a loopback host (127.0.0.1, ::1, localhost): anyone who reaches the port could run every server',
      ...located(at('auth')),
    });
  }
  const defined = Object.keys(config.views ?? {});
  (section?.views ?? []).forEach((view, index) => {
    if (defined.includes(view)) return;
    const suggestion = closestKey(view, defined);
    problems.push({
      severity: 'error',
      kind: 'unknown-view',
      message: `the gateway offers the view '${view}', which no config file defines under \`views:\``,
      ...located(at('views', index)),
      ...(suggestion === undefined ? {} : { suggestion }),
    });
  });
  for (const [name, client] of Object.entries(section?.clients ?? {})) {
    if (client.view === undefined || defined.includes(client.view)) continue;
    const suggestion = closestKey(client.view, defined);
    problems.push({
      severity: 'error',
      kind: 'unknown-view',
      message: `the gateway client '${name}' is served the view '${client.view}', which no config file defines under \`views:\``,
      ...located(at('clients', name, 'view')),
      ...(suggestion === undefined ? {} : { suggestion }),
    });
  }
  const servers = config.servers;
  (section?.perClient ?? []).forEach((name, index) => {
    if (servers === undefined) return;
    const server = servers.find((candidate) => candidate.name === name);
    const problem =
      server === undefined
        ? `the gateway's per-client server '${name}' is not a server of the config`
        : server.transport.type === 'stdio' || server.oauth === undefined
          ? `the gateway's per-client server '${name}' must be a remote server with \`oauth\` (each client logs in to it)`
          : undefined;
    if (problem === undefined) return;
    const suggestion =
      server === undefined
        ? closestKey(
            name,
            servers.map((candidate) => candidate.name),
          )
        : undefined;
    problems.push({
      severity: 'error',
      kind: server === undefined ? 'unknown-server' : 'invalid-value',
      message: problem,
      ...located(at('perClient', index)),
      ...(suggestion === undefined ? {} : { suggestion }),
    });
  });
  if (problems.length > 0) throw new ConfigError(problems);

  const port = flags.port ?? section?.port;
  const transport = flags.transport ?? (port === undefined ? 'stdio' : 'http');
  const settings: GatewaySettings = {
    transport,
    host,
    port: transport === 'http' ? (port ?? 0) : undefined,
    auth,
    tokenFile: tokenFile(flags.tokenFile, section?.tokenFile, section?.source.file, options, home),
    views: section?.views === undefined ? undefined : Object.freeze([...new Set(section.views)]),
    allowedOrigins: Object.freeze([...(section?.allowedOrigins ?? [])]),
    allowedHosts: Object.freeze([...(section?.allowedHosts ?? [])]),
    maxSessions: section?.maxSessions,
    maxBodyBytes: section?.maxBodyBytes,
    sessionIdleMs: section?.sessionIdleMs,
    clients: Object.freeze(
      Object.entries(section?.clients ?? {}).map(([name, client]) =>
        Object.freeze({
          name,
          tokenFile: tokenFile(undefined, client.tokenFile, section?.source.file, options, home),
          view: client.view,
        }),
      ),
    ),
    perClient: Object.freeze([...new Set(section?.perClient ?? [])]),
  };
  return Object.freeze(settings);
}

function located(
  location: ConfigDiagnostic['location'],
): Pick<ConfigDiagnostic, 'location'> | Record<string, never> {
  return location === undefined ? {} : { location };
}

/**
 * The token file, absolute: a flag's path against the working directory, the config's against
 * the folder of its file; `~` is the home directory in both.
 */
function tokenFile(
  flag: string | undefined,
  configured: string | undefined,
  configFile: string | undefined,
  options: GatewaySettingsOptions,
  home: string,
): string {
  const expand = (path: string) => (/^~(?:[/\\]|$)/.test(path) ? home + path.slice(1) : path);
  if (flag !== undefined) return resolvePath(expand(flag));
  if (configured !== undefined) {
    const base =
      configFile !== undefined && isAbsolute(configFile) ? dirname(configFile) : process.cwd();
    return resolvePath(base, expand(configured));
  }
  return defaultGatewayTokenFile(options.env ?? process.env, home);
}
