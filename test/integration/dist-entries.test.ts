/**
 * What the built entries load (their files' static imports, followed through dist/, each file's
 * sources read from its source map): the root entry, the transports and the config load nothing
 * of the agent layer. (Rollup keeps entry signatures strict in scripts/build.mjs: otherwise it may
 * put the host's code into the agent entry's file, and the root entry would load the agent.)
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuiltCli, repoRoot } from '../helpers/run-built-cli.js';

const dist = join(repoRoot, 'dist');
const packageJson = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { default: string }>;
};
/** Each library entry's file in dist/ (the package's `exports` that are JavaScript). */
const entries = Object.values(packageJson.exports)
  .map((target) => (typeof target === 'string' ? target : target.default))
  .filter((target) => target.endsWith('.js'))
  .map((target) => resolve(repoRoot, target));

/** The dist/ files `entry` loads, itself included. */
function loads(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    for (const match of code.matchAll(
      /(?:^|[;\s])(?:import|export)[^'"]*?from\s*'(\.[^']+)'|^import\s*'(\.[^']+)'/gm,
    ))
      visit(resolve(dirname(file), match[1] ?? match[2]!));
  };
  visit(entry);
  return [...seen];
}

/** The src/ modules bundled into `files`, from their source maps. */
function sources(files: readonly string[]): string[] {
  return files.flatMap((file) => {
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
    return map.sources.map((source) => relative(repoRoot, resolve(dirname(file), source)));
  });
}

describe('the built entries', () => {
  beforeAll(() => ensureBuiltCli());

  it('knows every library entry', () => {
    expect(entries.map((file) => relative(dist, file))).toContain('agent.js');
    expect(entries.length).toBeGreaterThan(15);
  });

  it.each(['index.js', 'stdio.js', 'http.js', 'config.js'])(
    '%s loads nothing of the agent layer',
    (name) => {
      const loaded = sources(loads(join(dist, name)));
      expect(loaded.length).toBeGreaterThan(0);
      expect(loaded.filter((source) => source.startsWith('src/agents'))).toEqual([]);
    },
  );

  it('client.js loads the client but not its session code, which connect() loads once the server is spawning', () => {
    const loaded = sources(loads(join(dist, 'client.js')));
    expect(loaded).toContain('src/client/mcp-client.ts');
    expect(loaded).not.toContain('src/client/open-session.ts');
    expect(loaded.filter((source) => /^src\/(agents?|config|cli)\//.test(source))).toEqual([]);
  });
});
