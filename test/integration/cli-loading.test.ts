/**
 * What the built `mcp-host` loads, read by the load recorder (test/fixtures/load-recorder: every
 * ES module resolved and every file `require`d; the src/ modules in each file loaded from dist/
 * are read from its source map): a command's module only when that command (or one using its
 * helpers) runs, a config's parser only for its format, no config writer, and no transport the
 * config does not use. commander is bundled into dist/ (scripts/build.mjs); no package from
 * node_modules is loaded for a well-formed JSON config.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, cliPath, ensureBuiltCli, repoRoot } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

const recorder = fileURLToPath(new URL('../fixtures/load-recorder/register.mjs', import.meta.url));
const server = join(repoRoot, 'test', 'fixtures', 'mcp', 'legacy-sdk-server.mjs');
const distUrl = pathToFileURL(join(repoRoot, 'dist')).href + '/';
const COMMAND_MODULES = [
  'servers',
  'tools',
  'call',
  'resources',
  'prompts',
  'config',
  'doctor',
  'auth',
  'watch',
  'completion',
  'agent',
];

interface Loaded {
  code: number | null;
  stdout: string;
  /** npm packages, sorted. */
  packages: string[];
  /** The command modules (src/cli/commands/<name>.ts) in the files loaded, sorted. */
  commands: string[];
  /** The named chunks loaded (quick-start, mcp-host, a command's...), each with its src/ modules. */
  chunks: Map<string, string[]>;
  /** The src/ modules in the files loaded from dist/ (from their source maps), as `config/load.ts`. */
  modules: Set<string>;
  /** How many files of dist/ were loaded. */
  files: number;
  /** The packages bundled into the files loaded from dist/ (from their source maps), sorted. */
  bundled: string[];
}

/** The src/ modules that write config files: loaded only by the commands that write. */
const CONFIG_WRITERS = [
  'config/dialects/server-writer.ts',
  'config/native/native-write.ts',
  'config/write-config-file.ts',
];

/** A source map's `sources` (relative to the map: ../../src/..., ../../node_modules/...). */
function mapSources(file: string): string[] {
  return (JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] }).sources;
}

/** The src/ modules of a source map's `sources`. */
function sourceModules(file: string): string[] {
  return mapSources(file).flatMap((source) => /(?:^|[/])src[/](.+)$/.exec(source)?.[1] ?? []);
}

/** The packages of a source map's `sources` (bundled into the file). */
function bundledPackages(file: string): string[] {
  return mapSources(file).flatMap(
    (source) => /[/]node_modules[/]((?:@[^/]+[/])?[^/]+)[/]/.exec(source)?.[1] ?? [],
  );
}

/** Runs the built CLI under the load recorder in `cwd`; what it printed and loaded. */
function loadedBy(args: string[], cwd: string): Promise<Loaded> {
  const record = join(cwd, 'loads.txt');
  writeFileSync(record, '');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', recorder, cliPath, ...args],
      { cwd, env: cliEnv({ LOAD_RECORD_FILE: record }), timeout: 30_000 },
      (error, stdout) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        if (error !== null && code === null) {
          reject(new Error(`mcp-host did not exit: ${error.message}`));
          return;
        }
        const urls = readFileSync(record, 'utf8').split('\n');
        const packages = new Set<string>();
        const chunks = new Map<string, string[]>();
        const modules = new Set<string>();
        const files = new Set<string>();
        const bundled = new Set<string>();
        for (const url of urls) {
          if (url.startsWith(distUrl) && /\.m?js$/.test(url)) {
            files.add(url);
            for (const module of sourceModules(fileURLToPath(url))) modules.add(module);
            for (const name of bundledPackages(fileURLToPath(url))) bundled.add(name);
          }
          const name = /[/]node_modules[/]((?:@[^/]+[/])?[^/]+)[/]/.exec(url)?.[1];
          if (name !== undefined) packages.add(name);
          const chunk = /[/]dist[/]chunks[/]([a-z-]+)-[0-9a-f]{8}\.mjs$/.exec(url)?.[1];
          if (chunk !== undefined) chunks.set(chunk, sourceModules(fileURLToPath(url)));
        }
        resolve({
          code,
          stdout,
          packages: [...packages].sort(),
          commands: COMMAND_MODULES.filter((name) => modules.has(`cli/commands/${name}.ts`)).sort(),
          chunks,
          modules,
          files: files.size,
          bundled: [...bundled].sort(),
        });
      },
    );
  });
}

/** A JSON config (Claude Desktop's shape) in `dir` with the one SDK server; its path. */
function oneServerConfig(dir: string): string {
  const config = join(dir, 'one.json');
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { sdk: { command: process.execPath, args: [server] } } }),
  );
  return config;
}

beforeAll(() => ensureBuiltCli());

describe('what mcp-host loads', () => {
  it('--version and --help load no package and no command', async () => {
    using dir = tempDir();
    for (const args of [['--version'], ['--help'], ['config', '--help']]) {
      const loaded = await loadedBy(args, dir.path);
      expect(loaded.code).toBe(0);
      expect(loaded.packages).toEqual([]);
      expect(loaded.commands).toEqual([]);
      expect(loaded.modules.has('cli/runtime.ts')).toBe(false);
      expect(loaded.bundled).toEqual(['commander']);
    }
  });

  it('tools on a JSON config loads its command and the stdio transport only', async () => {
    using dir = tempDir();
    const config = oneServerConfig(dir.path);
    const loaded = await loadedBy(['--config', config, 'tools'], dir.path);
    expect(loaded.code).toBe(0);
    expect(loaded.stdout).toMatch(/\bsdk\s+echo\b/);
    expect(loaded.commands).toEqual(['tools']);
    // No yaml, undici, ws, eventsource-parser; listing checks schemas without the schema engine
    // (ajv, re2js): that loads on a first call.
    expect(loaded.packages).toEqual([]);
    expect(loaded.modules.has('transport/stdio/stdio-transport.ts')).toBe(true);
    for (const transport of [
      'http/streamable-http-transport',
      'http/legacy-sse-transport',
      'websocket/websocket-transport',
    ])
      expect(loaded.modules.has(`transport/${transport}.ts`)).toBe(false);
    // The dialects' readers, no dialect module (they carry the writers) and no writer; the native
    // reader only for a native file.
    const dialectModules = [...loaded.modules].filter((module) =>
      module.startsWith('config/dialects/'),
    );
    expect(dialectModules).toContain('config/dialects/readers/claude-desktop-reader.ts');
    for (const dialectModule of [
      'registry',
      'claude-desktop',
      'claude-code',
      'vscode',
      'cursor',
      'crewai',
      'import-config',
      'read-text',
    ])
      expect(dialectModules).not.toContain(`config/dialects/${dialectModule}.ts`);
    expect(loaded.modules.has('config/native/native-read.ts')).toBe(false);
    for (const writer of CONFIG_WRITERS) expect(loaded.modules.has(writer)).toBe(false);
    // Nothing of the agent layer (the agent command's chunk carries it).
    expect([...loaded.modules].filter((module) => module.startsWith('agents/'))).toEqual([]);
    // The client's session code in the host's chunk (loaded with it, not after it), and the quick
    // path's modules claimed by a few chunks (QUICK_PATH, scripts/build.mjs): the entry, what it
    // loads at once, the command's, what runs before the spawn, the host, and three chunks the
    // host shares with other commands. 8 files, where it was 19, and 42 before any merging (each
    // costs Node's loader a resolve, a read and a link).
    expect(loaded.chunks.get('mcp-host')).toContain('client/connected-client.ts');
    expect(loaded.chunks.get('quick-start')).toContain('cli/runtime.ts');
    expect(loaded.files).toBeLessThanOrEqual(8);
    // The quick path (src/cli/quick/): no commander, no program, no other command's code.
    expect(loaded.bundled).toEqual([]);
    expect(loaded.modules.has('cli/program.ts')).toBe(false);
  });

  it('call and inspect take the quick path; an option it does not know, the full program', async () => {
    using dir = tempDir();
    const config = oneServerConfig(dir.path);
    const call = await loadedBy(
      ['--config', config, '--json', 'call', 'sdk/echo', '--arg', 'message=hi'],
      dir.path,
    );
    expect(call.code).toBe(0);
    expect(call.stdout).toContain('hi');
    // call finds its tool with the tools command's helpers (call.ts imports them).
    expect(call.commands).toEqual(['call', 'tools']);
    expect(call.bundled).not.toContain('commander');
    const inspect = await loadedBy(['--config', config, 'inspect', 'sdk/echo'], dir.path);
    expect(inspect.code).toBe(0);
    expect(inspect.commands).toEqual(['tools']);
    expect(inspect.bundled).not.toContain('commander');
    // Grouped switches are commander's to read: the same command, through the full program.
    const grouped = await loadedBy(['--config', config, '-vq', 'tools'], dir.path);
    expect(grouped.code).toBe(0);
    expect(grouped.stdout).toMatch(/\bsdk\s+echo\b/);
    expect(grouped.bundled).toContain('commander');
    expect(grouped.modules.has('cli/program.ts')).toBe(true);
  });

  it('resources loads no other command, though it shares their helpers', async () => {
    using dir = tempDir();
    const config = oneServerConfig(dir.path);
    const loaded = await loadedBy(['--config', config, 'resources'], dir.path);
    expect(loaded.code).toBe(0);
    // The chunks the quick path claims (call's, tools') hold no helper another command uses.
    expect(loaded.commands).toEqual(['resources']);
    expect(loaded.chunks.has('call')).toBe(false);
    expect(loaded.chunks.has('tools')).toBe(false);
  });

  it('servers list on a YAML config loads yaml and no host', async () => {
    using dir = tempDir();
    writeFileSync(
      join(dir.path, 'mcp.yaml'),
      `servers:\n  sdk:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(server)}]\n`,
    );
    const loaded = await loadedBy(['servers', 'list'], dir.path);
    expect(loaded.code).toBe(0);
    expect(loaded.stdout).toContain('sdk');
    expect(loaded.commands).toEqual(['servers']);
    expect(loaded.packages).toEqual(['yaml']);
    expect(loaded.bundled).toContain('commander');
    expect(loaded.chunks.has('mcp-host')).toBe(false);
    // The native reader, no foreign dialect and no dialect's writer (the servers command itself
    // holds enable|disable, which write the file: write-config-file.ts).
    expect(loaded.modules.has('config/native/native-read.ts')).toBe(true);
    expect(loaded.modules.has('config/dialects/registry.ts')).toBe(false);
    for (const writer of CONFIG_WRITERS.filter((w) => w !== 'config/write-config-file.ts'))
      expect(loaded.modules.has(writer)).toBe(false);
  });
});
