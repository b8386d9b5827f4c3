#!/usr/bin/env node
/**
 * The `mcp-host` command's entry (see README "Command line"). Before anything else is loaded, it
 * turns on Node's compile cache where Node has it (22.1+; Node 20 has not: nothing happens there),
 * as TypeScript's `tsc` does: the code V8 compiled for the CLI's modules is kept on disk and the
 * next run reads it instead of compiling again. It has to come before the command's modules are
 * parsed, so they are imported here, after it, not statically.
 */
import * as nodeModule from 'node:module';

(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { runCommandLine } = await import('./run.js');
await runCommandLine();
