// Builds dist/: one ESM bundle per entry point (shared code in chunks) plus type declarations.
//
// Bundling is for load cost, not size: Node resolves, reads and compiles every module file on its
// own. At ~40 small files that made importing mcp-host cost ~29 ms, and resolving that many files
// makes Node's own resolver functions hot enough for V8 to start its optimising compiler, about
// 4 MiB of RSS before a single message is sent (bench/README.md, issue 12). Two passes:
//
// 1. esbuild compiles and bundles the TypeScript, with code splitting across the entry points.
//    It puts shared code in one chunk per set of entry points that use it: nine entry points
//    make ~50 chunks, and `mcp-host` + `mcp-host/stdio` alone load 20 files.
// 2. rollup re-chunks that output, merging chunks under MIN_CHUNK_BYTES into others (as long as
//    that runs no code that would not have run: the modules have no side effects, so merging may
//    make an entry load a little more code, in fewer files), and carries esbuild's source maps
//    through. `mcp-host` + `mcp-host/stdio` then load 12 files, and V8's optimising compiler is
//    not started by loading them. What only an `import()` reaches stays apart (the transports,
//    the schema engine); the barrel and CLI loading tests hold that. `mcp-host/client` and
//    `mcp-host/stdio` are one file each (BASE_ENTRIES).
//
// Dependencies stay external, except in the CLI (see CLI_BUNDLED below).
import { Parser } from 'acorn';
import { build } from 'esbuild';
import MagicString from 'magic-string';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rollup } from 'rollup';

/** The package's entry points: they share classes (errors, transports), so one chunk graph. */
const LIBRARY = {
  index: 'src/index.ts',
  stdio: 'src/stdio.ts',
  client: 'src/client.ts',
  http: 'src/http.ts',
  ws: 'src/ws.ts',
  'testing/index': 'src/testing/index.ts',
  node: 'src/node.ts',
  config: 'src/config.ts',
  naming: 'src/naming.ts',
  auth: 'src/auth.ts',
  agents: 'src/agents.ts',
  agent: 'src/agent.ts',
  openai: 'src/openai.ts',
  anthropic: 'src/anthropic.ts',
  'ai-sdk': 'src/ai-sdk.ts',
  mastra: 'src/mastra.ts',
  langchain: 'src/langchain.ts',
  'openai-agents': 'src/openai-agents.ts',
  gateway: 'src/gateway.ts',
  grpc: 'src/grpc.ts',
  'postgres/index': 'src/postgres/index.ts',
  'otel/index': 'src/otel/index.ts',
};
/**
 * The command line, an application: a graph of its own (with its own copy of the library code it
 * uses), so that merging the library's chunks never folds a command into what every command
 * loads. Each module it loads with `import()` (a command, the runtime, the host, a transport) is a
 * chunk of its own, with what only it uses (`lazyParts`); the small chunks they share are merged
 * as the library's are; the quick path's modules are claimed by a few chunks (QUICK_PATH), the
 * client's session code with the host. `mcp-host --config one.json tools` loads 8 files (19
 * without the claims, 42 unmerged: the loader resolves, reads and links each).
 */
const CLI = { cli: 'src/cli/main.ts' };
/**
 * The packages bundled into the CLI's graph, in their ESM build: commander, which every command
 * but the quick path's loads, costs more from node_modules (CommonJS imported from ESM: ~13 ms)
 * than bundled (about a third of that). jsonc-parser and yaml stay packages: they are loaded only
 * for a JSON document with a syntax error, a config writer, or a YAML file.
 */
const CLI_BUNDLED = ['commander'];
/**
 * The modules a command connecting stdio servers loads on the quick path (`tools`, `inspect`,
 * `call`), claimed by a few chunks (see `claimed`): what it loads before it spawns its first server
 * (the runtime, the config loader and resolver, the stdio transport: `quick-start`), what it loads
 * while that server starts (the host, the client and its session code: `mcp-host`), and each
 * command's own module. Node 20's loader spends about half a millisecond of the main thread on each
 * file besides compiling it (the 19 files `tools` loaded took 36 ms to import, the same code in one
 * file 25), so `tools` now loads 8 (bench/README.md, thirteenth pass). A claim takes what its
 * modules load, less what another `import()` loads at once without them: a command using one of
 * the host's helpers must not load the whole host before its spawn. `quick-start` takes that
 * shared code too (`shared`): every command that connects a server loads the runtime, and one that
 * only reads the config loads a little more code in fewer files.
 */
const QUICK_PATH = [
  { chunk: 'quick-start', modules: ['runtime', 'stdio-transport'], shared: true },
  { chunk: 'mcp-host', modules: ['mcp-host', 'connected-client', 'server-streams'] },
  { chunk: 'tools', modules: ['tools'] },
  { chunk: 'call', modules: ['call'] },
];
/**
 * The client's session code: the modules `McpClient.connect()` loads with `import()` once it has
 * started a server's process (`loadSessionCode`, src/client/session-code.ts). They, and what only
 * they use, make one chunk that is kept out of the merge (see `lazyChunk`), so that `mcp-host/client`
 * loads them while the server starts rather than at import.
 */
const CLIENT_SESSION = {
  entry: 'client',
  chunk: 'client-session',
  modules: ['connected-client'],
};
/**
 * The stdio entry's framing code (the line decoder and writer, and what wires them to streams),
 * which `StdioTransport.start()` loads once it has spawned the server and
 * `StdioServerTransport.start()` when it starts: one chunk of its own, like the session code, so
 * the merge does not fold it into a chunk of code it never runs (the state store merged into it
 * once: 15 KB more to read while the server starts), nor split it in several files.
 */
const STDIO_STREAMS = {
  entry: 'stdio',
  chunk: 'server-streams',
  modules: ['server-streams', 'server-stdio-wiring'],
};
/**
 * The entries a program talking to one server imports (`mcp-host/client`, `mcp-host/stdio`): each
 * file holds its code itself, with everything it loads at once (the errors and other
 * shared parts going to the first), not a facade over chunks. Node 20 reads, compiles and links
 * each ES module file on its own (about a millisecond a file before the server can be spawned), so
 * such a program spawns its server after 2 files, not 5. Other entries import what they share
 * from these two files, which therefore also export internal bindings under short names (rollup's
 * `allow-extension`): only the names their type declarations give are the package's API.
 */
const BASE_ENTRIES = ['client', 'stdio'];
/**
 * What the CommonJS packages bundled into the CLI `require` (node: builtins) goes through Node's
 * own require, made on the first call (making it costs ~0.3 ms, at load otherwise, in a chunk every
 * command loads); a chunk that requires nothing drops it.
 */
const REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module';\nlet __requireMade;\nconst require = (id) => (__requireMade ??= __createRequire(import.meta.url))(id);";
/** Library chunks smaller than this are merged into others (see above). */
const MIN_CHUNK_BYTES = 20_000;
/** A module under 1/SMALL_PART of a lazy chunk's bytes is small (see `lazyMembers`). */
const SMALL_PART = 30;

const dist = fileURLToPath(new URL('../dist', import.meta.url));
const { dependencies, peerDependencies } = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
);
rmSync(dist, { recursive: true, force: true });
await bundle(
  LIBRARY,
  MIN_CHUNK_BYTES,
  [],
  (out) => {
    const session = lazyChunk(out, CLIENT_SESSION, Object.keys(LIBRARY));
    const streams = lazyChunk(out, STDIO_STREAMS, Object.keys(LIBRARY));
    const base = baseEntries(out, BASE_ENTRIES, Object.keys(LIBRARY));
    return (id, meta) => session(id, meta) ?? streams(id, meta) ?? base(id, meta);
  },
  BASE_ENTRIES,
);
// The command line opens its clients through the host: their session code goes into the host's
// chunk (QUICK_PATH), loaded at once with it (not after it, when the host's first client connects).
await bundle(CLI, MIN_CHUNK_BYTES, CLI_BUNDLED, (out) =>
  lazyParts(join(out, 'cli.js'), QUICK_PATH),
);

/**
 * esbuild, then rollup, for one chunk graph; writes its entry files and chunks into dist/. The
 * `bundled` packages go into the graph, every other one stays external. `manualChunks(out)` gives
 * rollup's `manualChunks` for esbuild's files in `out`: those chunks are never merged. The
 * `extensible` entries may export more than their own names (see BASE_ENTRIES).
 */
async function bundle(entryPoints, minChunkBytes, bundled, manualChunks, extensible = []) {
  const out = mkdtempSync(join(tmpdir(), 'mcp-host-build-'));
  try {
    await build({
      entryPoints,
      outdir: out,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      ...(bundled.length === 0
        ? { packages: 'external' }
        : {
            // Peers too: the application brings them (`@opentelemetry/api` must be its own copy).
            external: Object.keys({ ...dependencies, ...peerDependencies }).filter(
              (name) => !bundled.includes(name),
            ),
            // A package's ESM build over its CommonJS one.
            mainFields: ['module', 'main'],
            banner: { js: REQUIRE_BANNER },
          }),
      sourcemap: 'external',
      chunkNames: 'chunks/[name]-[hash]',
      logLevel: 'warning',
    });
    const graph = await rollup({
      input: Object.fromEntries(
        Object.keys(entryPoints)
          .filter((name) => !extensible.includes(name))
          .map((name) => [name, join(out, `${name}.js`)]),
      ),
      // Packages and node: builtins; every relative import is one of esbuild's files.
      external: (id) => !id.startsWith('.') && !id.startsWith('/'),
      plugins: [withSourceMaps(), extensibleEntries(out, extensible), withoutComments()],
      // An entry's file exports its own names only: shared code goes to chunks, never into another
      // entry's file (where the root entry would load, say, the agent loop with the host).
      preserveEntrySignatures: 'strict',
      onLog(level, log, handler) {
        // The merge's statistics (info), and the cycles esbuild's chunks may have: not problems.
        if (log.code === 'OPTIMIZE_CHUNK_STATUS' || log.code === 'CIRCULAR_DEPENDENCY') return;
        handler(level, log);
      },
    });
    await graph.write({
      dir: dist,
      format: 'es',
      sourcemap: true,
      entryFileNames: '[name].js',
      // Named after the chunk's main module, without esbuild's hash: stdio-transport-1a2b3c4d.mjs.
      // `.mjs`, not `.js`: Node knows an .mjs file is an ES module from its name, where for a .js
      // file it looks for the nearest package.json from the file's folder up (dist/chunks/, dist/,
      // the package), a walk of URLs and paths per file loaded (about 3 ms over the CLI's `tools`).
      // The entries keep `.js`: they are the paths package.json's `exports` and `bin` name.
      chunkFileNames: (chunk) => `chunks/${chunk.name.replace(/-[A-Z0-9]{8}$/, '')}-[hash:8].mjs`,
      hashCharacters: 'hex',
      ...(minChunkBytes === undefined ? {} : { experimentalMinChunkSize: minChunkBytes }),
      ...(manualChunks === undefined
        ? {}
        : { manualChunks: manualChunks(out), onlyExplicitManualChunks: true }),
    });
    await graph.close();
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * rollup's `manualChunks` for code an entry loads with `import()`: the files of the named modules
 * (esbuild makes a file of each module an `import()` reaches), with what they load that the entry
 * does not load at once, go into one chunk. A manual chunk is never merged with another, so merging
 * small chunks cannot fold that code into a chunk the entry loads at once (which it would, the code
 * having no side effects). Other entries that use some of it (the root entry uses the JSON-RPC peer)
 * load the chunk as they load any other; but each small module of it that an entry never reaching
 * those modules loads at once (`mcp-host/config` needs an error helper and SHA-256, which the
 * session code shares) goes to a chunk of its own (`<chunk>-helpers`), so that entry does not load the whole
 * session code for a helper, nor `entry` those helpers before it starts its server.
 */
function lazyChunk(out, { entry, chunk, modules }, entries) {
  let members;
  return (id, { getModuleInfo }) => {
    members ??= lazyMembers(out, { entry, chunk, modules }, entries, getModuleInfo);
    return members.get(id);
  };
}

/**
 * rollup's `manualChunks` for a graph whose entry loads nearly everything with `import()` (the
 * CLI: each command, the runtime, the host, the transports): each module an `import()` reaches
 * gets a chunk of its own (named after it, as before the merge), holding it and what only it
 * loads. So merging small chunks moves no command, nor the host, into what another command loads:
 * what is merged is code several of them share. Then the `claims` take the modules they name and
 * what those load (see `claimed`).
 */
function lazyParts(entryFile, claims) {
  let chunkOf;
  return (id, { getModuleInfo }) => {
    chunkOf ??= claimed(entryFile, claims, partsOf(entryFile, getModuleInfo), getModuleInfo);
    return chunkOf.get(id);
  };
}

/**
 * `chunkOf` with each of the `claims` (in order) taking the modules its `modules` (files an
 * `import()` reaches) load at once, less those the entry loads at once, those an earlier claim
 * took and, unless it is `shared`, those another `import()` target loads at once without the
 * claim's own code (one the claim's modules never lead to: those load after the chunk anyway).
 */
function claimed(entryFile, claims, chunkOf, getModuleInfo) {
  const closure = (roots, dynamic) => loadedFrom(getModuleInfo, roots, dynamic);
  const targets = new Set(
    [...closure([entryFile], true)].flatMap(
      (id) => getModuleInfo(id)?.dynamicallyImportedIds ?? [],
    ),
  );
  const taken = closure([entryFile]);
  for (const { chunk, modules, shared = false } of claims) {
    const roots = modules.map((name) => importedFile(targets, name, entryFile));
    const code = roots.flatMap((root) => codeFiles(root, getModuleInfo));
    const after = closure(roots, true);
    const elsewhere = new Set();
    for (const target of shared ? [] : targets) {
      if (after.has(target)) continue;
      const loaded = closure([target]);
      if (!code.some((id) => loaded.has(id))) for (const id of loaded) elsewhere.add(id);
    }
    for (const id of closure(roots)) {
      if (taken.has(id) || (elsewhere.has(id) && !roots.includes(id))) continue;
      taken.add(id);
      chunkOf.set(id, chunk);
    }
  }
  return chunkOf;
}

/**
 * The esbuild files holding the code of the module `file` was made for: `file` itself, or, where
 * esbuild moved that code into a shared chunk and left a facade (imports and exports only), the
 * files the facade takes bindings from (it also imports, bare, every chunk those load).
 */
function codeFiles(file, getModuleInfo) {
  const statements = (getModuleInfo(file)?.code ?? '')
    .replace(REQUIRE_BANNER, '')
    .replace(/^\s*\/\/.*$/gm, '');
  if (!/^(?:\s*(?:import|export)\b[^;]*;)*\s*$/.test(statements)) return [file];
  const from = statements.matchAll(/import\s*\{[^}]*\}\s*from\s*["'](\.[^"']+)["']/g);
  return [...from].map(([, path]) => join(dirname(file), path));
}

function partsOf(entryFile, getModuleInfo) {
  const targets = new Map();
  const everything = new Set([entryFile]);
  for (const id of everything) {
    const info = getModuleInfo(id);
    if (info === null) continue;
    for (const next of info.importedIds) everything.add(next);
    for (const next of info.dynamicallyImportedIds) {
      everything.add(next);
      if (next.startsWith('/')) targets.set(next, chunkName(next));
    }
  }
  // Per chunk name: the modules reached only through its targets (less what is reached without).
  const byChunk = new Map();
  for (const [id, chunk] of targets) byChunk.set(chunk, [...(byChunk.get(chunk) ?? []), id]);
  const parts = [];
  for (const [chunk, roots] of byChunk) {
    const avoided = new Set(roots);
    const without = new Set([entryFile]);
    for (const id of without) {
      const info = getModuleInfo(id);
      if (info === null) continue;
      for (const next of [...info.importedIds, ...info.dynamicallyImportedIds])
        if (!avoided.has(next)) without.add(next);
    }
    const members = new Set(roots);
    for (const id of members)
      for (const next of getModuleInfo(id)?.importedIds ?? []) members.add(next);
    parts.push({
      chunk,
      members: [...members].filter((id) => !without.has(id) && id.startsWith('/')),
    });
  }
  // A module only one part reaches goes to the smallest part that holds it (the innermost).
  parts.sort((a, b) => a.members.length - b.members.length);
  // The entry's own module alone: merged into, it would load what its `import()` loads first.
  const chunkOf = new Map([[entryFile, chunkName(entryFile)]]);
  for (const { chunk, members } of parts)
    for (const id of members) if (!chunkOf.has(id)) chunkOf.set(id, chunk);
  return chunkOf;
}

/** esbuild's name of a module's file, less its hash: the chunk is named after the module. */
function chunkName(id) {
  return id.replace(/^.*\//, '').replace(/(-[A-Z0-9]{8})?\.js$/, '');
}

/** The file esbuild makes of a module (named after it, with or without its hash). */
function fileOf(name) {
  return new RegExp(`/${name}(-[A-Z0-9]{8})?\\.js$`);
}

/**
 * The esbuild files `roots` load at once (with `dynamic`, through `import()` too), `roots`
 * included; packages and builtins left out.
 */
function loadedFrom(getModuleInfo, roots, dynamic = false) {
  const seen = new Set(roots);
  for (const id of seen) {
    const info = getModuleInfo(id);
    const next = [
      ...(info?.importedIds ?? []),
      ...(dynamic ? (info?.dynamicallyImportedIds ?? []) : []),
    ];
    for (const other of next) if (other.startsWith('/')) seen.add(other);
  }
  return seen;
}

/** The one file among `targets` (what `entryFile` reaches with `import()`) made of module `name`. */
function importedFile(targets, name, entryFile) {
  const found = [...targets].filter((id) => fileOf(name).test(id));
  // A module renamed or no longer imported: the list naming it is out of date.
  if (found.length !== 1) throw new Error(`${entryFile} does not import() ${name}`);
  return found[0];
}

function lazyMembers(out, { entry, chunk, modules }, entries, getModuleInfo) {
  const entryFile = join(out, `${entry}.js`);
  const closure = (roots, dynamic) => loadedFrom(getModuleInfo, roots, dynamic);
  const eager = closure([entryFile]);
  const imported = new Set([...eager].flatMap((id) => getModuleInfo(id).dynamicallyImportedIds));
  const targets = modules.map((name) => importedFile(imported, name, entryFile));
  // Nor what a base entry loads at once (the client's rate limiter, which the stdio streams share).
  const base = closure(BASE_ENTRIES.map((name) => join(out, `${name}.js`)));
  const members = [...closure(targets)].filter(
    (id) => !eager.has(id) && !base.has(id) && id.startsWith('/'),
  );
  const bytes = (ids) => ids.reduce((sum, id) => sum + (getModuleInfo(id)?.code?.length ?? 0), 0);
  // What an entry that never reaches them uses of them at once, module by module, when the module
  // is a small part of the chunk (a helper): it goes to a chunk of helpers instead, so that entry
  // does not load the session code for it. A large one (the JSON-RPC peer, the schema checks)
  // stays: an entry using it loads the chunk, and the helpers do not grow into a second one.
  const total = bytes(members);
  const small = new Set(members.filter((id) => bytes([id]) * SMALL_PART < total));
  const elsewhere = new Set();
  for (const name of entries) {
    const file = join(out, `${name}.js`);
    const reached = closure([file], true);
    if (name === entry || targets.some((target) => reached.has(target))) continue;
    for (const id of closure([file])) if (small.has(id)) elsewhere.add(id);
  }
  // Their files and what they load, less what the entry loads at once (and packages, builtins),
  // to the chunk; the small parts used elsewhere to the helpers' chunk (which the chunk loads).
  return new Map(members.map((id) => [id, elsewhere.has(id) ? `${chunk}-helpers` : chunk]));
}

/** The `names` entries, given to rollup as chunks whose signature may be extended. */
function extensibleEntries(out, names) {
  return {
    name: 'extensible-entries',
    buildStart() {
      for (const name of names)
        this.emitFile({
          type: 'chunk',
          id: join(out, `${name}.js`),
          fileName: `${name}.js`,
          preserveSignature: 'allow-extension',
        });
    },
  };
}

/**
 * rollup's `manualChunks` for the BASE_ENTRIES, `names` (of all the graph's `entries`): the first
 * entry's chunk (its file) takes everything it loads at once; each other one takes what it loads
 * at once that only entries loading it load too, and the rest of what it loads goes to the first
 * (so the root entry, which loads the client but not the stdio transport, does not load that
 * transport for a helper they share).
 */
function baseEntries(out, names, entries) {
  let chunkOf;
  return (id, { getModuleInfo }) => {
    chunkOf ??= baseChunkOf(out, names, entries, getModuleInfo);
    return chunkOf.get(id);
  };
}

function baseChunkOf(out, names, entries, getModuleInfo) {
  const fileOfEntry = (name) => join(out, `${name}.js`);
  const loadedBy = (name) => loadedFrom(getModuleInfo, [fileOfEntry(name)]);
  const loads = new Map(entries.map((name) => [name, loadedBy(name)]));
  const [first, ...others] = names;
  const chunkOf = new Map([...loads.get(first)].map((file) => [file, first]));
  for (const name of others) {
    const own = fileOfEntry(name);
    for (const file of loads.get(name)) {
      if (chunkOf.has(file)) continue;
      const only = [...loads.values()].every((loaded) => !loaded.has(file) || loaded.has(own));
      chunkOf.set(file, only ? name : first);
    }
  }
  // A file an `import()` loads whose static imports all lie in these chunks (esbuild's file for
  // `import('./stdio-transport.js')`) joins the last of them (which loads the others), so the
  // `import()` loads that entry's file, not a chunk of its own that merging small chunks would
  // fill with unrelated code.
  for (const file of [...chunkOf.keys()])
    for (const target of getModuleInfo(file)?.dynamicallyImportedIds ?? []) {
      const into = (getModuleInfo(target)?.importedIds ?? [])
        .filter((next) => next.startsWith('/'))
        .map((next) => chunkOf.get(next));
      if (chunkOf.has(target) || into.length === 0 || into.includes(undefined)) continue;
      chunkOf.set(
        target,
        names.findLast((name) => into.includes(name)),
      );
    }
  return chunkOf;
}

/**
 * Drops the comments esbuild carries into its output (doc comments of class members and the like,
 * its `// src/...` file headings): a sixth of what a program on `mcp-host/client` and
 * `mcp-host/stdio` loads before it spawns its server, and Node reads and scans every byte of a
 * module before it runs any of it (about 0.2 ms for those 15 KB; bench/README.md, fourteenth
 * pass). The code keeps its lines and indentation, so a stack trace stays readable without source
 * maps; the maps, chained through this step, still lead to src/, where the comments are. Kept:
 * licences (`/*!`, `@license`, `@preserve`) and the annotations bundlers read (`#__PURE__`,
 * `#__NO_SIDE_EFFECTS__`).
 */
function withoutComments() {
  const kept = /^\/\*!|@license|@preserve|[@#]__(?:PURE|NO_SIDE_EFFECTS)__/;
  return {
    name: 'without-comments',
    renderChunk(code) {
      const comments = [];
      Parser.parse(code, {
        ecmaVersion: 'latest',
        sourceType: 'module',
        onComment: (block, text, start, end) => comments.push({ start, end }),
      });
      const edited = new MagicString(code);
      for (const { start, end } of comments) {
        if (kept.test(code.slice(start, end))) continue;
        // A comment alone on its line goes with the line; one ending a line of code, with the
        // spaces before it.
        const lineStart = code.lastIndexOf('\n', start - 1) + 1;
        const lineEnd = code.indexOf('\n', end);
        const restOfLine = code.slice(end, lineEnd === -1 ? code.length : lineEnd);
        if (code.slice(lineStart, start).trim() === '' && restOfLine.trim() === '')
          edited.remove(lineStart, lineEnd === -1 ? code.length : lineEnd + 1);
        else if (restOfLine.trim() === '')
          edited.remove(start - /[ \t]*$/.exec(code.slice(lineStart, start))[0].length, end);
        else edited.remove(start, end);
      }
      return { code: edited.toString(), map: edited.generateMap({ hires: true }) };
    },
  };
}

/** Hands rollup each of esbuild's files with its source map, so dist/ maps back to src/. */
function withSourceMaps() {
  return {
    name: 'esbuild-source-maps',
    load(id) {
      if (!id.endsWith('.js')) return null;
      const mapPath = `${id}.map`;
      return {
        code: readFileSync(id, 'utf8'),
        map: existsSync(mapPath) ? readFileSync(mapPath, 'utf8') : null,
      };
    },
  };
}
