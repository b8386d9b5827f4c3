/**
 * The native `roots:` list, read and written. An entry is a path or a `file://` URI (a string that
 * starts with `scheme://` is a URI), or a mapping `{ uri | path, name }`; the model keeps it as
 * written (a path is resolved later, against the folder of the file that wrote it: see
 * resolve-roots.ts), so a config prints back as it was.
 */
import type { RootConfig, SourceLocation } from '../model.js';
import type { KeyPath } from '../parse.js';
import type { Report } from './native-rules.js';

/** A written root that is a URI (`scheme://…`), not a path (`C:\\x` is a path). */
const URI_LIKE = /^[A-Za-z][A-Za-z0-9+.-]+:\/\//;

type RootEntry = string | { uri?: string; path?: string; name?: string };

/**
 * The `roots:` entries (already of the schema's shapes) as the model keeps them: a string is a
 * `file://` URI or a path; a mapping gives `uri` or `path`, and `name`. A URI of another scheme,
 * or a mapping with both or neither, is an error naming `roots[i]` (it fails the file).
 */
export function readNativeRoots(
  entries: readonly unknown[],
  location: (path: KeyPath) => SourceLocation,
  report: Report,
): RootConfig[] {
  const roots: RootConfig[] = [];
  (entries as readonly RootEntry[]).forEach((entry, index) => {
    const at: KeyPath = ['roots', index];
    const given =
      typeof entry !== 'string' ? entry : URI_LIKE.test(entry) ? { uri: entry } : { path: entry };
    const { uri, path, name } = given;
    if ((uri === undefined) === (path === undefined)) {
      report('error', 'invalid-value', 'a root gives exactly one of `uri` and `path`', at);
      return;
    }
    if (uri !== undefined && (!/^file:\/\//i.test(uri) || !URL.canParse(uri))) {
      if (typeof entry === 'string')
        report('error', 'invalid-value', 'expected a path or a file:// URI', at);
      else report('error', 'invalid-value', 'expected a file:// URI', [...at, 'uri']);
      return;
    }
    roots.push({
      ...(uri === undefined ? { path: path! } : { uri }),
      ...(name === undefined ? {} : { name }),
      source: location(at),
    });
  });
  return roots;
}

/**
 * A root as written: the bare path or URI, or `{ uri | path, name }` when it has a name (or is a
 * path that would read back as a URI).
 */
export function toNativeRoot({ uri, path, name }: RootConfig): string | Record<string, string> {
  if (name === undefined && (uri !== undefined || !URI_LIKE.test(path!))) return uri ?? path!;
  return {
    ...(uri === undefined ? { path: path! } : { uri }),
    ...(name === undefined ? {} : { name }),
  };
}
