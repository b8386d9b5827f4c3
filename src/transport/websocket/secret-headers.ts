import { addSecret } from '../../errors/redact.js';
import type { Disposable } from '../../internal/disposable.js';

/** Header names whose values are credentials. */
const SECRET_HEADER = /auth|token|key|secret|cookie|session|password|credential/i;

/**
 * Registers the values of credential-looking headers as secrets, so no error or log line shows
 * them; for `Bearer abc` the credential alone too, as it may appear without its scheme.
 */
export function registerSecretHeaders(
  headers: Readonly<Record<string, string>> = {},
): Disposable[] {
  const registered: Disposable[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!SECRET_HEADER.test(name)) continue;
    registered.push(addSecret(value));
    const space = value.indexOf(' ');
    if (space > 0) registered.push(addSecret(value.slice(space + 1).trim()));
  }
  return registered;
}
