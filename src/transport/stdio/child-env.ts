/** Variables a server inherits by default on POSIX: enough to run, nothing secret. */
export const DEFAULT_INHERITED_ENV_POSIX = [
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'TERM',
  'USER',
] as const;

/** Variables a server inherits by default on Windows. */
export const DEFAULT_INHERITED_ENV_WINDOWS = [
  'APPDATA',
  'COMSPEC',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PATH',
  'PATHEXT',
  'PROCESSOR_ARCHITECTURE',
  'PROGRAMDATA',
  'PROGRAMFILES',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'USERNAME',
  'USERPROFILE',
] as const;

export interface ChildEnvOptions {
  /** Variables set for the server, on top of what it inherits. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Inherit the whole environment of this process instead of the allow-list (opt-in). */
  inheritEnv?: boolean;
  /** The environment to inherit from (default `process.env`). */
  parentEnv?: Readonly<Record<string, string | undefined>>;
  platform?: NodeJS.Platform;
}

/**
 * The environment a server process gets: by default only the allow-listed variables of this
 * process (values that start with `()`, exported shell functions, are skipped), then the explicit
 * `env`. With `inheritEnv`, everything is inherited. An explicit `undefined` removes a variable.
 */
export function buildChildEnv(options: ChildEnvOptions = {}): Record<string, string> {
  const parent = options.parentEnv ?? process.env;
  const platform = options.platform ?? process.platform;
  const result: Record<string, string> = {};
  if (options.inheritEnv === true) {
    for (const [key, value] of Object.entries(parent)) if (value !== undefined) result[key] = value;
  } else {
    const allowed =
      platform === 'win32' ? DEFAULT_INHERITED_ENV_WINDOWS : DEFAULT_INHERITED_ENV_POSIX;
    for (const key of allowed) {
      const value = platform === 'win32' ? findCaseInsensitive(parent, key) : parent[key];
      if (value === undefined || value.startsWith('()')) continue;
      result[key] = value;
    }
  }
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete result[key];
    else result[key] = value;
  }
  return result;
}

function findCaseInsensitive(
  env: Readonly<Record<string, string | undefined>>,
  key: string,
): string | undefined {
  if (env[key] !== undefined) return env[key];
  const upper = key.toUpperCase();
  for (const [name, value] of Object.entries(env)) if (name.toUpperCase() === upper) return value;
  return undefined;
}
