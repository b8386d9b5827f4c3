/** Where mcp-host keeps its state on disk by default (Node only). */
import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

/** The name of the state file inside the state directory. */
export const STATE_FILE_NAME = 'state.json';

/** Overrides the state directory on every platform. */
export const STATE_DIR_ENV = 'MCP_HOST_STATE_DIR';

/**
 * The directory mcp-host keeps its state in (the state file is `<dir>/state.json`):
 *
 * - `$MCP_HOST_STATE_DIR` when set (non-empty), on every platform;
 * - Windows: `%LOCALAPPDATA%\mcp-host`, or `<home>\AppData\Local\mcp-host` without it;
 * - macOS: `~/Library/Application Support/mcp-host`;
 * - Linux and other POSIX systems: `$XDG_STATE_HOME/mcp-host`, or `~/.local/state/mcp-host` when
 *   it is unset or not absolute (the XDG Base Directory spec says to ignore relative paths).
 *
 * The arguments exist for tests; paths are joined with the separator of `platform`, not of the
 * machine running the code.
 */
export function defaultStateDir(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  const override = env[STATE_DIR_ENV];
  if (override !== undefined && override !== '') return override;
  if (platform === 'win32') {
    const local = env.LOCALAPPDATA;
    return local !== undefined && local !== ''
      ? win32.join(local, 'mcp-host')
      : win32.join(home, 'AppData', 'Local', 'mcp-host');
  }
  if (platform === 'darwin') return posix.join(home, 'Library', 'Application Support', 'mcp-host');
  const xdg = env.XDG_STATE_HOME;
  if (xdg !== undefined && posix.isAbsolute(xdg)) return posix.join(xdg, 'mcp-host');
  return posix.join(home, '.local', 'state', 'mcp-host');
}

/** The default state file: `<defaultStateDir()>/state.json`, joined for `platform`. */
export function defaultStatePath(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  const path = platform === 'win32' ? win32 : posix;
  return path.join(defaultStateDir(env, platform, home), STATE_FILE_NAME);
}
