import { addSecret } from '../../errors/redact.js';
import type { Disposable } from '../../internal/disposable.js';

/** Names of headers and query parameters whose values are credentials. */
const CREDENTIAL_NAME =
  /auth|token|key|secret|cookie|session|signature|credential|passw(?:or)?d|pwd|^sig$|^code$/i;

/**
 * Registers as secrets the credentials a transport was configured with outside `auth`: the values
 * of extra headers and URL query parameters whose names say they are credentials (and, for
 * `Bearer x`/`Basic x` values, `x` alone). A server that echoes one back, in an error body for
 * example, then has it masked like any other secret.
 */
export function registerCredentialValues(
  url: URL,
  headers: Readonly<Record<string, string>> | undefined,
): Disposable[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!CREDENTIAL_NAME.test(name)) continue;
    values.add(value);
    values.add(value.replace(/^\s*(?:bearer|basic|token)\s+/i, ''));
  }
  for (const [name, value] of url.searchParams) if (CREDENTIAL_NAME.test(name)) values.add(value);
  return [...values].map((value) => addSecret(value));
}
