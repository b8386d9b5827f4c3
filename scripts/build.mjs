// Builds dist/: one ESM bundle per entry point (shared code in chunks) plus type declarations.
//
// Bundling is for load cost, not size: Node resolves, reads and compiles every module file on its
// own, and at ~40 small files that made importing mcp-host cost ~29 ms and pulled V8's optimising
// compiler into memory (+3.6 MiB RSS) before a single message was sent. One file per entry point
// brings both well under budget (see bench/README.md). Dependencies stay external. What is reached
// only through import() gets chunks of its own, loaded when used: the transports, the schema
// engine, and each CLI command (dist/cli.js itself holds little more than the command table).
import { build } from 'esbuild';
import { rm } from 'node:fs/promises';

await rm(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: {
    index: 'src/index.ts',
    stdio: 'src/stdio.ts',
    http: 'src/http.ts',
    ws: 'src/ws.ts',
    'testing/index': 'src/testing/index.ts',
    node: 'src/node.ts',
    config: 'src/config.ts',
    naming: 'src/naming.ts',
    cli: 'src/cli/main.ts',
  },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});
