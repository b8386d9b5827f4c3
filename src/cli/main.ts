#!/usr/bin/env node
/**
 * The `mcp-host` command's entry (see README "Command line"). Before anything else is loaded, it
 * turns on Node's compile cache where Node has it (22.1+; Node 20 has not: nothing happens there),
 * as TypeScript's `tsc` does: the code V8 compiled for the CLI's modules is kept on disk and the
 * next run reads it instead of compiling again. It has to come before the command's modules are
 * parsed, so they are imported here, after it, not statically. The commands a script runs most
 * (`tools`, `inspect`, `call`) take a quick path that loads neither commander nor the other
 * commands (quick/quick-command.ts); every other command line goes to the full program. The quick
 * path's own modules (how a command runs, the errors: about 60 KB, which the full program loads
 * too) are static imports, compiled before the cache is on: an `import()` would cost one more
 * file on every run where there is no cache.
 */
import * as nodeModule from 'node:module';
import { parseQuickCommand } from './quick/quick-command.js';
import { runQuickCommand } from './quick/run-quick.js';

(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const quick = parseQuickCommand(process.argv.slice(2), process.env);
if (quick !== undefined) {
  await runQuickCommand(quick);
} else {
  const { runCommandLine } = await import('./run.js');
  await runCommandLine();
}
