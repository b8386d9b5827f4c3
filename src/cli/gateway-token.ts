/**
 * The gateway's bearer token on disk, for `mcp-host gateway serve --transport http`: made once
 * (32 random bytes, base64url) in a file of mode 0600 (its directory made 0700), by default under
 * the state directory beside the OAuth tokens' state file (`resolveGatewaySettings` says where:
 * the config's `gateway.tokenFile`, else `<state dir>/gateway-token`), and read again on every
 * later start, so a client's configured token keeps working.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { McpHostError } from '../errors/mcp-host-error.js';
import { defaultStateDir } from '../state/default-state-dir.js';

/** The token, the file it is kept in, and whether this call made it. */
export interface GatewayToken {
  token: string;
  path: string;
  created: boolean;
  /** The file can be read by other users (its mode allows group or others). */
  exposed: boolean;
}

const TOKEN_PATTERN = /^[\x21-\x7e]{16,}$/;

/**
 * Reads the gateway's token from the file `path` (absolute), or makes it there (mode 0600). `what`
 * names whose token it is in errors (`mcp-host api serve` keeps the API's the same way).
 */
export async function loadGatewayToken(path: string, what = 'gateway'): Promise<GatewayToken> {
  const dir = dirname(path);
  const existing = await readToken(path, what);
  if (existing !== undefined) return { ...existing, path, created: false };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  try {
    await writeFile(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another start made it first: use that one.
    const made =
      (error as NodeJS.ErrnoException).code === 'EEXIST' ? await readToken(path, what) : undefined;
    if (made !== undefined) return { ...made, path, created: false };
    throw new McpHostError('STATE_IO_FAILED', `cannot write the ${what} token file ${path}`, {
      cause: error,
    });
  }
  return { token, path, created: true, exposed: false };
}

async function readToken(
  path: string,
  what = 'gateway',
): Promise<{ token: string; exposed: boolean } | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new McpHostError('STATE_IO_FAILED', `cannot read the ${what} token file ${path}`, {
      cause: error,
    });
  }
  const token = text.trim();
  if (!TOKEN_PATTERN.test(token))
    throw new McpHostError(
      'CONFIG_INVALID',
      `the ${what} token file ${path} does not hold a token (16 or more visible ASCII characters); delete it to make a new one`,
    );
  const mode = (await stat(path)).mode;
  return { token, exposed: process.platform !== 'win32' && (mode & 0o077) !== 0 };
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
