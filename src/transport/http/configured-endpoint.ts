import { McpHostError } from '../../errors/mcp-host-error.js';
import { addSecret } from '../../errors/redact.js';
import { headerSecretValues } from '../../errors/secret-values.js';
import type { Disposable } from '../../internal/disposable.js';

/**
 * The server an HTTP transport was configured to reach: its URL, checked once, and the
 * credentials that came with it (in `headers` and the URL's query), registered as secrets.
 */
export interface ConfiguredEndpoint {
  readonly url: URL;
  /** The `Accept-Encoding` undici's fetch used to send for this URL's scheme. */
  readonly acceptEncoding: string;
  /** The registered credentials: the transport disposes of them when it closes. */
  readonly secrets: Disposable[];
}

/** What an HTTP transport was given that `configureEndpoint` looks at. */
export interface EndpointOptions {
  url: string | URL;
  headers?: Readonly<Record<string, string>> | undefined;
  publicHeaders?: readonly string[] | undefined;
  serverName?: string | undefined;
}

/**
 * Checks the URL of an HTTP transport (parseable, `http:` or `https:`, no user info: fetching
 * refuses such URLs on every request, and credentials belong in the `auth` option), then
 * registers the configured credentials as secrets (see `registerCredentialValues`). Throws
 * `INVALID_ARGUMENT` naming the server.
 */
export function configureEndpoint(options: EndpointOptions): ConfiguredEndpoint {
  const checked = checkedUrl(options.url, options.serverName);
  return {
    url: checked,
    acceptEncoding: checked.protocol === 'https:' ? 'br, gzip, deflate' : 'gzip, deflate',
    secrets: registerCredentialValues(checked, options.headers, options.publicHeaders),
  };
}

function checkedUrl(url: string | URL, serverName: string | undefined): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new McpHostError('INVALID_ARGUMENT', 'invalid URL', { serverName, cause: error });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `the URL must be http: or https:, not ${parsed.protocol}`,
      { serverName },
    );
  if (parsed.username !== '' || parsed.password !== '')
    throw new McpHostError(
      'INVALID_ARGUMENT',
      'the URL must not carry credentials (user:password@); give them with the auth option',
      { serverName },
    );
  return parsed;
}

/** Names of query parameters whose values are credentials. */
const CREDENTIAL_NAME =
  /auth|token|key|secret|cookie|session|signature|credential|passw(?:or)?d|pwd|^sig$|^code$/i;

/**
 * Registers as secrets the credentials a transport was configured with outside `auth`: the values
 * of its extra headers, as the shared rule says (all but those that describe the request, such as
 * `Accept`, and those named in `publicHeaders`; for `Bearer x`/`Basic x` values, `x` alone too:
 * see errors/secret-values.ts), and of the URL query parameters whose names say they are
 * credentials. A server that echoes one back, in an error body for example, then has it masked
 * like any other secret.
 */
function registerCredentialValues(
  url: URL,
  headers: Readonly<Record<string, string>> | undefined,
  publicHeaders: readonly string[] | undefined,
): Disposable[] {
  const values = new Set(headerSecretValues(headers, publicHeaders));
  for (const [name, value] of url.searchParams) if (CREDENTIAL_NAME.test(name)) values.add(value);
  return [...values].map((value) => addSecret(value));
}
