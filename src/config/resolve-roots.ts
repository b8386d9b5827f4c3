/**
 * The config's roots as the host takes them (`McpHostOptions.roots`): each an absolute `file://`
 * URI. A path is resolved against the folder of the file that wrote it (a leading `~` is the home
 * directory, as in a server's `command` or `cwd`); a URI is normalised. Several files' roots are
 * one list in load order, and a root that points where an earlier one does is dropped.
 */
import { homedir } from 'node:os';
import { dirname, isAbsolute, resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Root } from '../protocol/types.js';
import type { RootConfig } from './model.js';

/** Where relative and `~` paths start. */
export interface RootResolveOptions {
  /** What `~` becomes (default `os.homedir()`). */
  homeDir?: string;
  /**
   * The folder a relative path is resolved against. Default: the folder of the root's config file
   * (when its source is an absolute path), else `process.cwd()`.
   */
  cwd?: string;
}

/** The absolute `file://` URI a root points at. */
export function rootUri(root: RootConfig, options: RootResolveOptions = {}): string {
  if (root.uri !== undefined) return new URL(root.uri).href;
  let path = root.path ?? '';
  if (/^~(?:[/\\]|$)/.test(path)) path = (options.homeDir ?? homedir()) + path.slice(1);
  const base =
    options.cwd ?? (isAbsolute(root.source.file) ? dirname(root.source.file) : process.cwd());
  return pathToFileURL(resolvePath(base, path)).href;
}

/** `roots` in order, less those that point where an earlier one does. */
export function uniqueRoots(
  roots: readonly RootConfig[],
  options: RootResolveOptions = {},
): RootConfig[] {
  const seen = new Set<string>();
  return roots.filter((root) => {
    const uri = rootUri(root, options);
    if (seen.has(uri)) return false;
    seen.add(uri);
    return true;
  });
}

/** The roots as the host takes them: absolute `file://` URIs with their names, duplicates dropped. */
export function resolveRoots(
  roots: readonly RootConfig[],
  options: RootResolveOptions = {},
): Root[] {
  return uniqueRoots(roots, options).map((root) => ({
    uri: rootUri(root, options),
    ...(root.name === undefined ? {} : { name: root.name }),
  }));
}
