/**
 * Where config files are looked for when none are named, lowest precedence first (a later file's
 * server replaces an earlier one of the same name, see load.ts):
 *
 * 1. the user config directory: `$XDG_CONFIG_HOME/mcp-host/` (default `~/.config/mcp-host/`;
 *    `%APPDATA%\mcp-host\` on Windows): `mcp.json`, then `mcp.yml`, then `mcp.yaml`;
 * 2. the working directory: `.mcp.json` (Claude Code's project file), then `mcp.json`, then
 *    `mcp.yml`, then `mcp.yaml` (mcp-host's own).
 *
 * So a project overrides the user's servers, and mcp-host's own file overrides a Claude Code file
 * next to it. Each discovered file has its dialect fixed by where it was found (`mcp.json` is
 * native here, whatever its shape).
 */
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ConfigDialect } from './model.js';

/** A config file to load, and its dialect when it is not to be detected. */
export interface ConfigFileSpec {
  path: string;
  dialect?: ConfigDialect;
}

export type Env = Readonly<Record<string, string | undefined>>;

/** The folder of the user's mcp-host config. */
export function userConfigDir(env: Env = process.env, platform = process.platform): string {
  if (platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'mcp-host');
  const xdg = env.XDG_CONFIG_HOME;
  // XDG: a relative XDG_CONFIG_HOME is invalid and ignored.
  if (xdg !== undefined && xdg !== '' && resolve(xdg) === xdg) return join(xdg, 'mcp-host');
  const home = env.HOME || env.USERPROFILE || homedir();
  return join(home, '.config', 'mcp-host');
}

/** Every place a config file is looked for, in merge order, whether it exists or not. */
export function configSearchPaths(
  cwd: string = process.cwd(),
  env: Env = process.env,
): ConfigFileSpec[] {
  const user = userConfigDir(env);
  const project = resolve(cwd);
  return [
    { path: join(user, 'mcp.json'), dialect: 'mcp-host' },
    { path: join(user, 'mcp.yml'), dialect: 'mcp-host' },
    { path: join(user, 'mcp.yaml'), dialect: 'mcp-host' },
    { path: join(project, '.mcp.json'), dialect: 'claude-code' },
    { path: join(project, 'mcp.json'), dialect: 'mcp-host' },
    { path: join(project, 'mcp.yml'), dialect: 'mcp-host' },
    { path: join(project, 'mcp.yaml'), dialect: 'mcp-host' },
  ];
}

/** The config files that exist, in merge order (see the module comment). */
export async function discoverConfigFiles(
  cwd: string = process.cwd(),
  env: Env = process.env,
): Promise<ConfigFileSpec[]> {
  const candidates = configSearchPaths(cwd, env);
  // The user directory and the project can be the same place (running in ~/.config/mcp-host).
  const seen = new Set<string>();
  const found: ConfigFileSpec[] = [];
  for (const candidate of candidates) {
    if (seen.has(candidate.path)) continue;
    seen.add(candidate.path);
    try {
      if ((await stat(candidate.path)).isFile()) found.push(candidate);
    } catch {
      // Not there (or not readable as a directory entry): not a config file.
    }
  }
  return found;
}
