#!/usr/bin/env node
/** The `mcp-host` command (see README "Command line"). */
import { CommanderError } from 'commander';
import { installSignalHandlers } from './command.js';
import { ExitCode } from './exit-codes.js';
import { createProgram } from './program.js';

installSignalHandlers();
const program = createProgram();
try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and version exit 0; any other parse error is a usage error (commander printed it).
    process.exitCode = error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  } else throw error;
}
