/**
 * Which configured values are secrets: the one rule that the config layer and the transports
 * share. A value is registered with the process-wide redactor (and so masked wherever it turns up)
 * when it is worth registering (`isRegistrableSecret`) and its name does not say it is harmless:
 *
 * - **Headers**: every value, except those of headers that describe the request
 *   (`NON_SECRET_HEADERS`: Accept, Content-Type, User-Agent, …) and of headers the caller named
 *   public (`publicHeaders`); for `Bearer x` / `Basic x` / `Token x`, `x` alone too. A header
 *   whose name says credential (`X-Api-Key`, `Authorization`, `Cookie`, …) has its value
 *   registered even when it looks trivial (a numeric key).
 * - **Environment variables** given to a server: every value, except those of the well-known
 *   variables every process sees (`NON_SECRET_VARIABLES`: HOME, PATH, USER, …) and of variables
 *   the caller named public (`publicEnv`, say `['LOG_LEVEL']`).
 */
import type { Disposable } from '../internal/disposable.js';
import { addSecret, MIN_SECRET_LENGTH } from './redact.js';

/** Variables whose values are names and paths every process sees, not secrets. */
export const NON_SECRET_VARIABLES: ReadonlySet<string> = new Set([
  'HOME',
  'USERPROFILE',
  'HOMEDRIVE',
  'HOMEPATH',
  'USER',
  'USERNAME',
  'LOGNAME',
  'PATH',
  'PWD',
  'SHELL',
  'TERM',
  'TMPDIR',
  'TMP',
  'TEMP',
  'LANG',
  'LC_ALL',
  'HOSTNAME',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
  'XDG_RUNTIME_DIR',
  'APPDATA',
  'LOCALAPPDATA',
  'PROGRAMFILES',
  'SYSTEMROOT',
]);

/** Headers whose values describe the request, not who sends it: not registered (still masked). */
export const NON_SECRET_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'content-type',
  'mcp-protocol-version',
  'user-agent',
]);

const TRIVIAL =
  /^(?:true|false|yes|no|on|off|null|none|trace|debug|info|warn|warning|error|fatal|silent|production|development|test|localhost|[-+]?\d+(?:\.\d+)?)$/i;

/** Values worth registering: long enough, and not a word that appears in every message. */
export function isRegistrableSecret(value: string): boolean {
  return value.length >= MIN_SECRET_LENGTH && !TRIVIAL.test(value.trim());
}

/** Header names that say their value is a credential. */
const CREDENTIAL_HEADER =
  /auth|token|key|secret|cookie|session|signature|credential|passw(?:or)?d|pwd/i;

/** A credential header's value without its scheme word (`Bearer x` gives `x`). */
export function withoutAuthScheme(value: string): string {
  return value.replace(/^\s*(?:bearer|basic|token)\s+/i, '');
}

/**
 * The secret values among `headers` (see the module comment): every header but those that
 * describe the request and those named in `publicHeaders` (names compared case-insensitively).
 */
export function headerSecretValues(
  headers: Readonly<Record<string, string>> | undefined,
  publicHeaders: readonly string[] = [],
): string[] {
  const open = new Set(publicHeaders.map((name) => name.toLowerCase()));
  const values = new Set<string>();
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (typeof value !== 'string' || NON_SECRET_HEADERS.has(lower) || open.has(lower)) continue;
    const worthIt = CREDENTIAL_HEADER.test(name)
      ? (text: string) => text.trim().length >= MIN_SECRET_LENGTH
      : isRegistrableSecret;
    for (const text of [value, withoutAuthScheme(value)]) if (worthIt(text)) values.add(text);
  }
  return [...values];
}

/**
 * The secret values among the variables given to a server (see the module comment): every one
 * but the well-known variables and those named in `publicEnv` (names compared case-insensitively,
 * as Windows does). `undefined` entries (variables removed) have no value.
 */
export function envSecretValues(
  env: Readonly<Record<string, string | undefined>> | undefined,
  publicEnv: readonly string[] = [],
): string[] {
  const open = new Set(publicEnv.map((name) => name.toUpperCase()));
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env ?? {})) {
    const upper = name.toUpperCase();
    if (typeof value !== 'string' || NON_SECRET_VARIABLES.has(upper) || open.has(upper)) continue;
    values.add(value);
  }
  return [...values].filter(isRegistrableSecret);
}

/** Registers each value with the process-wide redactor; dispose the results to release them. */
export function registerSecrets(values: Iterable<string>): Disposable[] {
  return [...values].map((value) => addSecret(value));
}
