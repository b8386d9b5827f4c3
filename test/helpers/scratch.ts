/** Disposable scratch resources: a temporary directory, temporary process.env changes. */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir extends Disposable {
  readonly path: string;
}

/** `using dir = tempDir()`: a fresh directory, removed with everything in it at scope end. */
export function tempDir(): TempDir {
  const path = mkdtempSync(join(tmpdir(), 'mcp-host-test-'));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * `using dir = tempFiles({ 'a.txt': 'a' })`: a fresh directory holding those files, its `path`
 * resolved through symlinks (as servers that check paths see it), removed at scope end.
 */
export function tempFiles(files: Readonly<Record<string, string>>): TempDir {
  const dir = tempDir();
  const path = realpathSync(dir.path);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(path, name), text);
  return { path, [Symbol.dispose]: () => dir[Symbol.dispose]() };
}

/** `using _ = patchEnv({...})`: sets (or, with undefined, removes) process.env entries until scope end. */
export function patchEnv(vars: Record<string, string | undefined>): Disposable {
  const saved = new Map(Object.keys(vars).map((key) => [key, process.env[key]]));
  const apply = (values: Iterable<[string, string | undefined]>): void => {
    for (const [key, value] of values) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
  apply(Object.entries(vars));
  return { [Symbol.dispose]: () => apply(saved) };
}
