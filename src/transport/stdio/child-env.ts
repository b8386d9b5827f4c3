import { addSecret, Redactor } from '../../errors/redact.js';
import { envSecretValues } from '../../errors/secret-values.js';
import type { Disposable } from '../../internal/disposable.js';
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

/**
 * The secrets among the variables a server was given in `env` (every value but those of
 * well-known variables such as PATH and HOME and of the names in `publicEnv`: see
 * errors/secret-values.ts). `register()` adds them to the process-wide redactor, so a server
 * that prints one (on stderr, in an error it answers with) has it masked in every error, log
 * line and stderr tail; `release()` takes them out again when the transport is done. `mask()`
 * masks them in text for good, so a stderr tail read after the release is masked too.
 */
export class EnvSecrets {
  readonly #values: readonly string[];
  readonly #own = new Redactor();
  #registered: Disposable[] = [];

  constructor(
    env: Readonly<Record<string, string | undefined>> | undefined,
    publicEnv: readonly string[] | undefined,
  ) {
    this.#values = envSecretValues(env, publicEnv);
    for (const value of this.#values) this.#own.addSecret(value);
  }

  /** Registers the values with the process-wide redactor (once, until `release()`). */
  register(): void {
    if (this.#registered.length > 0) return;
    this.#registered = this.#values.map((value) => addSecret(value));
  }

  release(): void {
    for (const secret of this.#registered.splice(0)) secret.dispose();
  }

  /** `text` with these values masked, whether or not they are registered now. */
  mask(text: string): string {
    return this.#values.length === 0 ? text : this.#own.redact(text);
  }
}
