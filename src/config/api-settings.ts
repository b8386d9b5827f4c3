/**
 * The gRPC management API's settings with their defaults: what the config's `api:` section
 * (model.ts, `ApiConfig`) says, with command-line flags over it, frozen. `mcp-host api serve`
 * listens where they say: on a Unix socket (by default `<state dir>/api.sock`), on a loopback
 * port with the bearer token of `tokenFile` (by default `<state dir>/api-token`), or on both.
 * The state directory is given (`stateDir`), so that this module loads nothing to find it.
 */
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve as resolvePath } from 'node:path';
import { McpHostError } from '../errors/mcp-host-error.js';
import type { McpConfig } from './model.js';

/** The API's settings, resolved (`resolveApiSettings`). */
export interface ApiSettings {
  /** The Unix socket to listen on, absolute; undefined when only a port is named. */
  readonly socket: string | undefined;
  /** The loopback TCP port (0: a free one); undefined for none. */
  readonly port: number | undefined;
  /** The port's loopback address. */
  readonly host: '127.0.0.1' | '::1' | 'localhost';
  /** The bearer token's file, absolute (used with a port). */
  readonly tokenFile: string;
  readonly allowStdioRegistration: boolean;
  /** Serve gRPC server reflection. */
  readonly reflection: boolean;
}

/** Command-line flags, over the config's values (`--socket` or `--port` replaces both). */
export interface ApiOverrides {
  socket?: string;
  port?: number;
  allowStdioRegistration?: boolean;
  reflection?: boolean;
}

export interface ApiSettingsOptions {
  /** The state directory, for the default socket and token file (`defaultStateDir()`). */
  stateDir: string;
  overrides?: ApiOverrides;
  /** What `~` becomes (default `os.homedir()`). */
  homeDir?: string;
}

const LOOPBACK = ['127.0.0.1', '::1', 'localhost'] as const;

/**
 * The API's settings from `config.api` (optional), `options.overrides` and the defaults. A flag
 * naming where to listen (`--socket`, `--port`) replaces the config's places; with neither
 * anywhere, the socket `<state dir>/api.sock`. A config built in code is checked again: a host
 * that is not loopback is `INVALID_ARGUMENT`.
 */
export function resolveApiSettings(
  config: Pick<McpConfig, 'api'>,
  options: ApiSettingsOptions,
): ApiSettings {
  const section = config.api;
  const flags = options.overrides ?? {};
  const home = options.homeDir ?? homedir();
  const { stateDir } = options;
  const expand = (path: string) => (/^~(?:[/\\]|$)/.test(path) ? home + path.slice(1) : path);
  const fromConfig = (path: string) => {
    const file = section?.source.file;
    const base = file !== undefined && isAbsolute(file) ? dirname(file) : process.cwd();
    return resolvePath(base, expand(path));
  };
  const host = section?.host ?? '127.0.0.1';
  if (!(LOOPBACK as readonly string[]).includes(host))
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `api.host: the API listens on loopback only (127.0.0.1, ::1, localhost), not '${host}'`,
    );
  const flagged = flags.socket !== undefined || flags.port !== undefined;
  let socket: string | undefined;
  let port: number | undefined;
  if (flagged) {
    socket = flags.socket === undefined ? undefined : resolvePath(expand(flags.socket));
    port = flags.port;
  } else {
    socket = section?.socket === undefined ? undefined : fromConfig(section.socket);
    port = section?.port;
    if (socket === undefined && port === undefined) socket = join(stateDir, 'api.sock');
  }
  return Object.freeze({
    socket,
    port,
    host: host as ApiSettings['host'],
    tokenFile:
      section?.tokenFile === undefined
        ? join(stateDir, 'api-token')
        : fromConfig(section.tokenFile),
    allowStdioRegistration:
      flags.allowStdioRegistration ?? section?.allowStdioRegistration ?? false,
    reflection: flags.reflection ?? section?.reflection ?? false,
  });
}
