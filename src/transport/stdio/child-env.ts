import { DEFAULT_STDIO_OPTIONS } from './stdio-options.js';

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
    const { inheritedEnv } = DEFAULT_STDIO_OPTIONS;
    const allowed = platform === 'win32' ? inheritedEnv.windows : inheritedEnv.posix;
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
