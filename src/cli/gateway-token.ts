/**
 * The gateway's bearer token on disk, for `mcp-host gateway serve --transport http`: made once
 * (32 random bytes, base64url; see `loadTokenFile`) in a file of mode 0600, by default under
 * the state directory beside the OAuth tokens' state file (`resolveGatewaySettings` says where:
 * the config's `gateway.tokenFile`, else `<state dir>/gateway-token`), and read again on every
 * later start, so a client's configured token keeps working.
 */
import { join } from 'node:path';
import { McpHostError } from '../errors/mcp-host-error.js';
import { defaultStateDir } from '../state/default-state-dir.js';
import { loadTokenFile, readTokenFile, type TokenFile } from '../state/token-file.js';

/** The token, the file it is kept in, and whether this call made it. */
export type GatewayToken = TokenFile;

/** Reads the gateway's token from the file `path` (absolute), or makes it there (mode 0600). */
export function loadGatewayToken(path: string): Promise<GatewayToken> {
  return loadTokenFile(path, 'gateway');
}

function readToken(path: string): Promise<{ token: string; exposed: boolean } | undefined> {
  return readTokenFile(path, 'gateway');
}

/**
 * The token of the named gateway client at `key` (`gateway.clients.<name>.tokenFile`), read from
 * `path` (absolute) at start; never made. A missing or unreadable file, or one without a token,
 * is `CONFIG_INVALID` naming the file and the key (never the token).
 */
export async function readGatewayClientToken(
  path: string,
  key: string,
): Promise<{ token: string; exposed: boolean }> {
  let read: { token: string; exposed: boolean } | undefined;
  try {
    read = await readToken(path);
  } catch (error) {
    const unfit = error instanceof McpHostError && error.code === 'CONFIG_INVALID';
    throw new McpHostError(
      'CONFIG_INVALID',
      unfit
        ? `${key}: the token file ${path} does not hold a token (16 or more visible ASCII characters)`
        : `${key}: cannot read the token file ${path}`,
      unfit ? {} : { cause: error },
    );
  }
  if (read === undefined)
    throw new McpHostError(
      'CONFIG_INVALID',
      `${key}: the token file ${path} does not exist (write the client's token there, mode 0600)`,
    );
  return read;
}

/**
 * The state file of a named gateway client's token store: `<state dir>/clients/<client>/state.json`.
 * `gateway serve` keeps that client's upstream logins there (`perClient`); `auth login --as
 * <client>` writes them. Client names are path-safe (`[A-Za-z0-9_-]`, checked by the config).
 */
export function gatewayClientStatePath(
  client: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  return join(defaultStateDir(env), 'clients', client, 'state.json');
}
