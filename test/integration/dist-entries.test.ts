/**
 * What the built entries load (their files' static imports, followed through dist/, each file's
 * sources read from its source map): the root entry, the transports and the config load nothing
 * of the agent layer. (Rollup keeps entry signatures strict in scripts/build.mjs: otherwise it may
 * put the host's code into the agent entry's file, and the root entry would load the agent.)
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, ensureBuiltCli, repoRoot } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

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

const recorder = fileURLToPath(new URL('../fixtures/load-recorder/register.mjs', import.meta.url));
const atSpawn = fileURLToPath(new URL('../fixtures/load-recorder/at-spawn.mjs', import.meta.url));
const server = join(repoRoot, 'test', 'fixtures', 'mcp', 'legacy-sdk-server.mjs');

interface BeforeSpawn {
  /** The dist/ files loaded before the server was spawned, relative to dist/. */
  files: string[];
  /** Node's own modules loaded by then (`internal/crypto/webcrypto`, ...). */
  builtins: Set<string>;
}

/**
 * Runs `program` (an ES module's text; `DIST` in it is dist/'s URL) under the load recorder and
 * returns what it had loaded when it spawned its first process. The program must spawn one.
 */
async function loadedBeforeSpawn(program: string): Promise<BeforeSpawn> {
  using dir = tempDir();
  const script = join(dir.path, 'program.mjs');
  const record = join(dir.path, 'loads.txt');
  const distUrl = pathToFileURL(dist).href;
  writeFileSync(script, program.replaceAll('DIST', distUrl));
  writeFileSync(record, '');
  return await new Promise((resolvePromise, reject) => {
    execFile(
      process.execPath,
      ['--import', recorder, '--import', atSpawn, script],
      { cwd: dir.path, env: cliEnv({ LOAD_RECORD_FILE: record }), timeout: 30_000 },
      (error, _stdout, stderr) => {
        if (error !== null) {
          reject(new Error(`the program failed: ${error.message}\n${stderr}`));
          return;
        }
        const lines = readFileSync(record, 'utf8').split('\n');
        const spawned = lines.indexOf('spawn');
        if (spawned === -1) {
          reject(new Error('the program spawned nothing'));
          return;
        }
        const files = new Set(
          lines
            .slice(0, spawned)
            .filter((url) => url.startsWith(`${distUrl}/`))
            .map((url) => relative(dist, fileURLToPath(url))),
        );
        const builtins = lines
          .slice(spawned + 1)
          .filter((line) => line.startsWith('builtin:'))
          .map((line) => line.slice('builtin:'.length));
        resolvePromise({ files: [...files].sort(), builtins: new Set(builtins) });
      },
    );
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

  it('config.js loads neither the client session code nor the JSON-RPC peer for the error helper they share', () => {
    const loaded = sources(loads(join(dist, 'config.js')));
    expect(loaded).toContain('src/errors/to-mcp-host-error.ts');
    expect(loaded).not.toContain('src/client/open-session.ts');
    expect(loaded).not.toContain('src/jsonrpc/peer.ts');
  });

  it('a program on mcp-host/client and mcp-host/stdio spawns its server from their 2 files, before Web Crypto or node:util loads', async () => {
    const loaded = await loadedBeforeSpawn(`
      import { McpClient } from 'DIST/client.js';
      import { StdioTransport } from 'DIST/stdio.js';
      const client = new McpClient({
        transport: () => new StdioTransport({ command: process.execPath, args: [${JSON.stringify(server)}] }),
      });
      await client.connect();
      if ((await client.listTools()).tools.length === 0) throw new Error('no tools');
      await client.close();
    `);
    // The two entries hold their code themselves (scripts/build.mjs, BASE_ENTRIES): the client's
    // with the errors and signals, the stdio transport's. The session's code loads after the spawn.
    expect(loaded.files).toEqual(['client.js', 'stdio.js']);
    const modules = sources(loaded.files.map((file) => join(dist, file)));
    expect(modules).toContain('src/transport/stdio/stdio-transport.ts');
    expect(modules).not.toContain('src/client/open-session.ts');
    // The tree's marker is made without crypto; the debug logger reads node:util on first use
    // (an ES import of node:util would load all its lazy parts, such as parseArgs).
    expect(loaded.builtins.has('internal/crypto/webcrypto')).toBe(false);
    expect(loaded.builtins.has('internal/util/parse_args/parse_args')).toBe(false);
    expect(loaded.builtins.has('child_process')).toBe(true);
  });
});
