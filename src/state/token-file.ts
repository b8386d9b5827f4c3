/**
 * A bearer token kept in a file: made once (32 random bytes, base64url) with mode 0600 (its
 * directory made 0700), and read again on every later start, so a client's configured token
 * keeps working. The gateway's token (`mcp-host gateway serve`) and the gRPC API's
 * (`mcp-host api serve`) are kept this way.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { McpHostError } from '../errors/mcp-host-error.js';

/** The token, the file it is kept in, and whether this call made it. */
export interface TokenFile {
  token: string;
  path: string;
  created: boolean;
  /** The file can be read by other users (its mode allows group or others). */
  exposed: boolean;
}

const TOKEN_PATTERN = /^[\x21-\x7e]{16,}$/;

/**
 * Reads the token from the file `path` (absolute), or makes it there (mode 0600). `what` names
 * whose token it is in errors (`gateway`, `API`); never the token.
 */
export async function loadTokenFile(path: string, what: string): Promise<TokenFile> {
  const dir = dirname(path);
  const existing = await readTokenFile(path, what);
  if (existing !== undefined) return { ...existing, path, created: false };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  try {
    await writeFile(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another start made it first: use that one.
    const made =
      (error as NodeJS.ErrnoException).code === 'EEXIST'
        ? await readTokenFile(path, what)
        : undefined;
    if (made !== undefined) return { ...made, path, created: false };
    throw new McpHostError('STATE_IO_FAILED', `cannot write the ${what} token file ${path}`, {
      cause: error,
    });
  }
  return { token, path, created: true, exposed: false };
}

/** The token in the file `path`, or undefined when there is no file; `CONFIG_INVALID` for junk. */
export async function readTokenFile(
  path: string,
  what: string,
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
