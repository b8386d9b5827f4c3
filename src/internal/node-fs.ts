import type * as Fs from 'node:fs';

/**
 * Node's `fs` as CommonJS hands it out, for code that makes a few synchronous calls on a hot
 * start (reading /proc when a stdio server is spawned). Importing `node:fs` as an ES module builds
 * a namespace of every export, which reads the lazy ones and loads fs's streams: about half a
 * millisecond, paid before a program on `mcp-host/stdio` can spawn its server.
 * `process.getBuiltinModule` (Node 20.16, 22.3) hands out the module itself. On an older Node the
 * module is imported once, in the background, and this answers undefined until it is there: its
 * callers do without (a tree read at the spawn finds nothing, and is read again later).
 */
let fs: typeof Fs | undefined;
let importing = false;

export function nodeFs(): typeof Fs | undefined {
  if (fs !== undefined) return fs;
  if (typeof process.getBuiltinModule === 'function')
    return (fs = process.getBuiltinModule('node:fs'));
  if (!importing) {
    importing = true;
    import('node:fs').then(
      (module) => (fs = module),
      () => (importing = false),
    );
  }
  return undefined;
}
